# Debian's nginx, the build `make test` installs (nginx-light), with the project's config.
FROM debian:bookworm-slim
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light \
    && rm -rf /var/lib/apt/lists/*
COPY nginx.conf /etc/nginx/nginx.conf
COPY dejarik-proxy.conf /etc/nginx/dejarik-proxy.conf
EXPOSE 80
CMD ["nginx", "-g", "daemon off;"]
