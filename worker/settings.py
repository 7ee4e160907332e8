"""Settings from the environment and `.env` (pydantic-settings).

Field names are the environment variables, lower-cased, so `REDIS_URL` is `settings.redis_url`.
Every field is documented in the README's configuration table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class SettingsError(ValueError):
    """A setting has a bad value; the message names the variable."""


def _check_url(value: str | None, schemes: tuple[str, ...]) -> str | None:
    if value is None or value == "":
        return None
    parts = urlsplit(value)
    if parts.scheme not in schemes:
        raise ValueError(f"must start with {' or '.join(s + '://' for s in schemes)}, got {value!r}")
    if parts.scheme in ("http", "https") and not parts.hostname:
        raise ValueError(f"has no host: {value!r}")
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    segcite_home: Path = Path(".segcite")
    redis_url: str | None = None
    database_url: str | None = None
    segcite_store: Literal["postgres", "supabase"] = "postgres"
    supabase_url: str | None = None
    supabase_service_role_key: SecretStr | None = None

    segcite_object_store: Literal["auto", "r2", "local"] = "auto"
    r2_endpoint_url: str | None = None
    r2_account_id: str | None = None
    r2_access_key_id: str | None = None
    r2_secret_access_key: SecretStr | None = None
    r2_bucket: str | None = None

    segcite_llm_provider: Literal["extractive", "openai"] = "extractive"
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    segcite_llm_model: str = "gpt-4o-mini"
    segcite_llm_timeout: float = Field(60.0, gt=0)
    segcite_llm_max_tokens: int = Field(1024, ge=16, le=32768)
    # The model's rewrite of a follow-up into a standalone question (design §5.10): the whole call's seconds, after
    # which the rules' rewrite is used.
    segcite_rewrite_timeout: float = Field(10.0, gt=0)
    segcite_embedding_provider: Literal["hash", "openai"] = "hash"
    segcite_embedding_model: str = "text-embedding-3-small"
    segcite_embedding_dim: int = Field(1024, ge=8, le=4096)

    segcite_rag_mode: Literal["naive", "mix"] = "naive"
    segcite_top_k: int = Field(12, ge=1, le=200)
    # Vector search at scale (design §4 "Scale"): the HNSW search's candidate list (pgvector's hnsw.ef_search) for a
    # real model's vectors, and the largest workspace (or scope) the hash embedder's vectors are searched exactly in;
    # past it, only the segments the full-text search's candidate stage finds are ranked by them.
    segcite_hnsw_ef_search: int = Field(400, ge=10, le=1000)
    segcite_hnsw_workspace_min: int = Field(5_000, ge=100)  # a workspace this big gets its own HNSW index
    # 10,000: the exact scan of a workspace of 20,000 took 33 / 42 ms (p50 / p95, bench_scale at a million), as much
    # as the whole fused retrieval should; of 10,000, 20 / 27 ms.
    segcite_exact_vector_limit: int = Field(10_000, ge=0)
    # The embedded PostgreSQL's shared_buffers: `auto` (a quarter of the memory, 128 MB to 8 GB) or a size.
    segcite_pg_shared_buffers: str = Field("auto", pattern=r"^(auto|[0-9]+(kB|MB|GB|TB))$")
    segcite_max_chars: int = Field(1200, ge=200, le=8000)
    segcite_page_images: bool = True  # keep each page's image at ingest (design §3 "Page images")

    # The parse stage (design §3a): a PDF or an image -> Document AI JSON. `auto`: documentai where a processor is
    # configured (DOCUMENTAI_PROJECT_ID and DOCUMENTAI_PROCESSOR_ID), else the offline `local` parser.
    segcite_parser: Literal["auto", "documentai", "local"] = "auto"
    segcite_max_pages: int = Field(2000, ge=1, le=100_000)  # per document, checked before any parser call
    segcite_ocr_languages: str = Field("eng", pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$")  # Tesseract's -l (local)
    documentai_project_id: str | None = None
    documentai_location: str = "us"
    documentai_processor_id: str | None = None
    documentai_processor_version: str | None = None  # None: the processor's default version
    documentai_endpoint: str | None = None  # None: https://<location>-documentai.googleapis.com
    documentai_transport: Literal["grpc", "rest"] = "grpc"
    documentai_imageless: bool = False  # imageless mode: 30 pages a request instead of 15, no page images back
    documentai_rate: int = Field(600, ge=1)  # online requests a minute, per project, shared by every worker
    documentai_timeout: float = Field(120.0, gt=0)  # seconds one request may take

    segcite_task_soft_time_limit: int = Field(900, ge=10)
    segcite_task_time_limit: int = Field(960, ge=15)
    segcite_max_redeliveries: int = Field(3, ge=1)
    segcite_max_retries: int = Field(5, ge=0, le=20)
    segcite_db_timeout: float = Field(10.0, gt=0)
    segcite_lock_ttl: int = Field(20, ge=3, le=3600)
    # The inbox's taker (worker/inbox.py): a direct or session connection for LISTEN (default DATABASE_URL),
    # and the seconds between two sweeps for entries a notification did not announce.
    segcite_inbox_database_url: str | None = None
    segcite_inbox_sweep: float = Field(2.0, gt=0, le=60)

    flower_basic_auth: SecretStr | None = None
    flower_address: str | None = None  # None: 127.0.0.1 (worker/flower.py)
    flower_port: int = Field(5555, ge=1, le=65535)

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, v: str | None) -> str | None:
        return _check_url(v, ("redis", "rediss", "redis+socket", "unix"))

    @field_validator("database_url", "segcite_inbox_database_url")
    @classmethod
    def _database_url(cls, v: str | None) -> str | None:
        return _check_url(v, ("postgres", "postgresql"))

    @field_validator("supabase_url", "openai_base_url", "r2_endpoint_url", "documentai_endpoint")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        return _check_url(v, ("http", "https"))

    @field_validator("flower_basic_auth")
    @classmethod
    def _basic_auth(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and ":" not in v.get_secret_value():
            raise ValueError("must be user:password")
        return v

    @property
    def visibility_timeout(self) -> int:
        """Redis redelivers an unacked task after this; it must exceed the longest task (design §7)."""
        return self.segcite_task_time_limit * 2 + 60

    @property
    def parser(self) -> str:
        """The parser in use: `documentai` or `local` (SEGCITE_PARSER, `auto` resolved)."""
        if self.segcite_parser != "auto":
            return self.segcite_parser
        return "documentai" if self.documentai_project_id and self.documentai_processor_id else "local"

    @property
    def home(self) -> Path:
        return self.segcite_home.expanduser().resolve()

    def masked(self) -> dict[str, str]:
        """Effective settings for display: secrets show only their last 4 characters."""
        shown: dict[str, str] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                secret = value.get_secret_value()
                value = "****" + secret[-4:] if len(secret) >= 12 else "****"
            elif name.endswith("_url") and value:
                value = mask_url_password(value)
            shown[name.upper()] = "" if value is None else str(value)
        return shown


def mask_url_password(url: str) -> str:
    """The URL with its password shown as ****, for messages and `segcite config`."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    return url.replace(f":{parts.password}@", ":****@", 1)


def load_settings() -> Settings:
    """Read the settings; a bad value raises SettingsError naming the variable in one line."""
    try:
        return Settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        variable = str(err["loc"][0]).upper() if err["loc"] else "settings"
        message = err["msg"].removeprefix("Value error, ")
        got = err.get("input")
        suffix = f" (got {got!r})" if isinstance(got, str) and "got " not in message else ""
        raise SettingsError(f"{variable}: {message}{suffix}") from None
