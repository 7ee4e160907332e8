"""Where Document AI JSON (and the page images taken from it) lives: Cloudflare R2 (S3 API, boto3) or, for the
embedded default, a local folder.

A key names one JSON object, or a prefix (ending in `/`, or with no object of its own) holding the shards.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Protocol

from worker.errors import MissingObject, PermanentError, TransientError
from worker.settings import Settings


class ObjectStore(Protocol):
    def read_docai(self, key: str) -> list[bytes]: ...

    def read(self, key: str) -> bytes:
        """One object's bytes; MissingObject when there is none."""
        ...

    def head(self, key: str, size: int) -> bytes | None:
        """An object's first `size` bytes (what tells a PDF from JSON); None when there is no object at `key`
        (a prefix of shards, or nothing)."""
        ...

    def keys(self, prefix: str) -> list[str]:
        """The keys of the objects under a prefix (ending in `/`), sorted."""
        ...

    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None: ...

    def delete(self, key: str) -> None:
        """Remove one object, or every object under a prefix (shards); nothing there is fine."""
        ...

    def url(self, key: str) -> str: ...


class LocalFolderStore:
    def __init__(self, root: Path):
        self.root = root

    def url(self, key: str) -> str:
        return f"file://{self.root / key}"

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise PermanentError(f"object key {key!r} points outside the object folder")
        return path

    def read_docai(self, key: str) -> list[bytes]:
        path = self._path(key)
        if path.is_file():
            return [path.read_bytes()]
        shards = sorted(path.glob("*.json")) if path.is_dir() else []
        if not shards:
            raise MissingObject(f"nothing at key {key!r} in the local object folder")
        return [shard.read_bytes() for shard in shards]

    def read(self, key: str) -> bytes:
        path = self._path(key)
        if not path.is_file():
            raise MissingObject(f"nothing at key {key!r} in the local object folder")
        return path.read_bytes()

    def head(self, key: str, size: int) -> bytes | None:
        path = self._path(key)
        if not path.is_file():
            return None
        with path.open("rb") as file:
            return file.read(size)

    def keys(self, prefix: str) -> list[str]:
        folder = self._path(prefix)
        if not folder.is_dir():
            return []
        root = self.root.resolve()
        return sorted(str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file() and p.suffix != ".part")

    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".part")
        tmp.write_bytes(data)
        tmp.replace(path)  # readers never see half a file

    def delete(self, key: str) -> None:
        path = self._path(key)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        # A document's page images sit in a folder of its own (`<key>.pages/`), which R2 would not keep once its
        # last object is gone: neither is it kept here. Shared folders (`docai/`) stay: an upload may be writing.
        folder = path.parent
        if folder.name.endswith(".pages") and folder != self.root.resolve():
            with contextlib.suppress(OSError):  # not empty, or gone already
                folder.rmdir()


class R2Store:
    def __init__(self, settings: Settings, client=None, read_timeout: float = 60):
        import boto3
        from botocore.config import Config

        endpoint = settings.r2_endpoint_url or f"https://{settings.r2_account_id}.r2.cloudflarestorage.com"
        if not settings.r2_bucket:
            raise PermanentError("R2_BUCKET is not set")
        self.bucket = settings.r2_bucket
        # boto3 >= 1.36 sends checksums R2 rejects unless told to only when required.
        config = Config(
            signature_version="s3v4",
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
            retries={"max_attempts": 3, "mode": "standard"},
            connect_timeout=10,
            read_timeout=read_timeout,
        )
        self.client = client or boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="auto",
            aws_access_key_id=settings.r2_access_key_id,
            aws_secret_access_key=settings.r2_secret_access_key.get_secret_value()
            if settings.r2_secret_access_key
            else None,
            config=config,
        )

    def url(self, key: str) -> str:
        return f"r2://{self.bucket}/{key}"

    def read_docai(self, key: str) -> list[bytes]:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            if not key.endswith("/"):
                try:
                    return [self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()]
                except ClientError as exc:
                    if exc.response.get("Error", {}).get("Code") not in ("NoSuchKey", "404"):
                        raise
            prefix = key if key.endswith("/") else key + "/"
            keys: list[str] = []
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                keys.extend(o["Key"] for o in page.get("Contents", []) if o["Key"].endswith(".json"))
            if not keys:
                raise MissingObject(f"nothing at {self.url(key)}")
            return [self.client.get_object(Bucket=self.bucket, Key=k)["Body"].read() for k in sorted(keys)]
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            if code in ("NoSuchBucket", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                raise PermanentError(f"R2 refused {self.url(key)}: {code}") from exc
            if status >= 500 or code in ("SlowDown", "RequestTimeout", "InternalError"):
                raise TransientError(f"R2 error reading {self.url(key)}: {code or status}") from exc
            raise PermanentError(f"R2 error reading {self.url(key)}: {code or status}") from exc
        except BotoCoreError as exc:  # connection errors, timeouts
            raise TransientError(f"R2 unreachable reading {self.url(key)}: {exc}") from exc

    def read(self, key: str) -> bytes:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in ("NoSuchKey", "404"):
                raise MissingObject(f"no object at {self.url(key)}") from exc
            raise TransientError(f"R2 error reading {self.url(key)}: {code}") from exc
        except BotoCoreError as exc:
            raise TransientError(f"R2 unreachable reading {self.url(key)}: {exc}") from exc

    def head(self, key: str, size: int) -> bytes | None:
        from botocore.exceptions import BotoCoreError, ClientError

        if key.endswith("/"):
            return None
        try:
            return self.client.get_object(Bucket=self.bucket, Key=key, Range=f"bytes=0-{size - 1}")["Body"].read()
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in ("NoSuchKey", "404"):
                return None
            if code == "InvalidRange":  # an empty object
                return b""
            raise TransientError(f"R2 error reading {self.url(key)}: {code}") from exc
        except BotoCoreError as exc:
            raise TransientError(f"R2 unreachable reading {self.url(key)}: {exc}") from exc

    def keys(self, prefix: str) -> list[str]:
        from botocore.exceptions import BotoCoreError, ClientError

        found: list[str] = []
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                found.extend(o["Key"] for o in page.get("Contents", []))
        except (ClientError, BotoCoreError) as exc:
            raise TransientError(f"R2 error listing {self.url(prefix)}: {exc}") from exc
        return sorted(found)

    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type)

    def delete(self, key: str) -> None:
        keys = [key] if not key.endswith("/") else []
        prefix = key.rstrip("/") + "/"
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            keys.extend(o["Key"] for o in page.get("Contents", []))
        for start in range(0, len(keys), 1000):  # the most one DeleteObjects request takes
            batch = [{"Key": k} for k in keys[start : start + 1000]]
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True})


def missing_r2_settings(settings: Settings) -> list[str]:
    """The R2 settings a worker still needs before it can read anything from R2."""
    needed = {
        "R2_BUCKET": settings.r2_bucket,
        "R2_ACCESS_KEY_ID": settings.r2_access_key_id,
        "R2_SECRET_ACCESS_KEY": settings.r2_secret_access_key,
        "R2_ENDPOINT_URL or R2_ACCOUNT_ID": settings.r2_endpoint_url or settings.r2_account_id,
    }
    return [name for name, value in needed.items() if not value]


def make_object_store(settings: Settings) -> ObjectStore:
    """R2 when SEGCITE_OBJECT_STORE says `r2` (or, by default, when any R2 setting is given), else a folder under
    SEGCITE_HOME, which only processes sharing that folder can read (the embedded default)."""
    kind = settings.segcite_object_store
    if kind == "auto":
        kind = "r2" if settings.r2_bucket or settings.r2_endpoint_url or settings.r2_account_id else "local"
    if kind == "local":
        return LocalFolderStore(settings.home / "objects")
    missing = missing_r2_settings(settings)
    if missing:
        raise PermanentError(f"R2 is not fully configured: {', '.join(missing)} not set")
    return R2Store(settings)
