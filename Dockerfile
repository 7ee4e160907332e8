# The production image: segcite installed as a wheel (not editable), without the `embedded` extra: no Redis
# or PostgreSQL inside, so REDIS_URL and DATABASE_URL must name real services (docker-compose.yml).
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY ingest ingest
COPY parse parse
COPY query query
COPY worker worker
COPY migrations migrations
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 SEGCITE_HOME=/data
COPY --from=build /wheels /wheels
# The offline parser (SEGCITE_PARSER=local) reads scanned pages and images with Tesseract (English models included).
RUN apt-get update && apt-get install -y --no-install-recommends tesseract-ocr && rm -rf /var/lib/apt/lists/*
RUN pip install /wheels/*.whl && rm -rf /wheels && useradd --create-home segcite && mkdir -p /data && chown segcite /data
USER segcite
# Not /src: no checkout beside the installed packages to shadow them.
WORKDIR /data
CMD ["segcite", "worker"]
