FROM python:3.11-slim
WORKDIR /srv/dejarik
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
# static/vendor/ (Swagger UI, ReDoc for /docs and /redoc) comes from `make vendor`: run it first.
COPY static ./static
COPY templates ./templates
# Editable: the app finds static/, templates/ and migrations/ beside its own code.
RUN pip install --no-cache-dir -e .
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
# `serve` migrates the database before it listens.
CMD ["dejarik", "serve"]
