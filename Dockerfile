FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 SEGCITE_HOME=/data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY ingest ingest
COPY query query
COPY worker worker
COPY migrations migrations
RUN pip install -e . && useradd --create-home segcite && mkdir -p /data && chown segcite /data
USER segcite
CMD ["segcite", "worker"]
