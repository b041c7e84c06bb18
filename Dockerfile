FROM python:3.11-slim
WORKDIR /srv/dejarik
# pg_dump and pg_restore for `dejarik backup` and `restore`, from Debian: PostgreSQL 15 or
# newer, as pg_dump dumps servers of its own version or older (docker-compose.yml runs 15).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*
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
