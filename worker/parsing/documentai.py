"""The adapter to Document AI's online processing (google-cloud-documentai's DocumentProcessorServiceClient).

One call per shard: the shard's pages as their own PDF (or the image), `process_document`, the Document back as
JSON. The client's own retries are off: Celery's retry policy is the one retry policy (design §7), so this maps
the library's errors to ours at the boundary: quota, unavailable and deadline errors (HTTP 429, 503, 504, and 500)
are TransientError; a refused file, a denied permission or an unknown processor is a PermanentError whose
message says what to fix."""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import urlsplit

import orjson

from parse.kinds import MIME_TYPES
from worker.errors import PermanentError, TransientError
from worker.settings import Settings


def processor_name(settings: Settings) -> str:
    name = (
        f"projects/{settings.documentai_project_id}/locations/{settings.documentai_location}"
        f"/processors/{settings.documentai_processor_id}"
    )
    if settings.documentai_processor_version:
        name += f"/processorVersions/{settings.documentai_processor_version}"
    return name


def missing_settings(settings: Settings) -> list[str]:
    needed = {"DOCUMENTAI_PROJECT_ID": settings.documentai_project_id}
    needed["DOCUMENTAI_PROCESSOR_ID"] = settings.documentai_processor_id
    return [name for name, value in needed.items() if not value]


@functools.cache
def _client(endpoint: str, transport: str, anonymous: bool) -> Any:
    from google.api_core.client_options import ClientOptions
    from google.cloud import documentai

    # A plain-http endpoint is a local emulator (the tests' fake): no Google credentials to present. Anything else
    # uses Google's standard credentials (GOOGLE_APPLICATION_CREDENTIALS, or the metadata server).
    credentials = None
    if anonymous:
        from google.auth.credentials import AnonymousCredentials

        credentials = AnonymousCredentials()
    return documentai.DocumentProcessorServiceClient(
        transport=transport, client_options=ClientOptions(api_endpoint=endpoint), credentials=credentials
    )


def client(settings: Settings) -> Any:
    endpoint = settings.documentai_endpoint or f"https://{settings.documentai_location}-documentai.googleapis.com"
    plain_http = urlsplit(endpoint).scheme == "http"
    if settings.documentai_transport == "grpc":
        parts = urlsplit(endpoint)
        endpoint = parts.netloc or endpoint
    try:
        return _client(endpoint, settings.documentai_transport, plain_http)
    except Exception as exc:  # google.auth's DefaultCredentialsError, most often
        raise PermanentError(
            f"cannot reach Document AI: {_first_line(exc)} (set GOOGLE_APPLICATION_CREDENTIALS to a service "
            "account key file, or run where Google's default credentials exist)"
        ) from exc


def process(settings: Settings, content: bytes, kind: str, *, what: str) -> dict[str, Any]:
    """Document AI's Document for `content` (a PDF of at most the online page limit, or an image), as a JSON dict.
    `what` names the user's file and pages in messages (`report.pdf, pages 16-30`)."""
    from google.cloud import documentai

    request = documentai.ProcessRequest(
        name=processor_name(settings),
        raw_document=documentai.RawDocument(content=content, mime_type=MIME_TYPES[kind]),
        imageless_mode=settings.documentai_imageless,
        skip_human_review=True,
    )
    try:
        response = client(settings).process_document(request=request, retry=None, timeout=settings.documentai_timeout)
    except Exception as exc:
        ours = _ours(exc, settings, what)
        if ours is None:
            raise
        raise ours from exc
    json = documentai.Document.to_json(
        response.document, indent=None, use_integers_for_enums=False, always_print_fields_with_no_presence=False
    )
    return orjson.loads(json)


def _ours(exc: Exception, settings: Settings, what: str) -> Exception | None:
    """A library's error as ours (None: a bug, left as it is). Transient: retried with backoff by the task."""
    import requests
    from google.api_core import exceptions as google
    from google.auth import exceptions as auth

    processor = processor_name(settings)
    transient = (google.TooManyRequests, google.ServiceUnavailable, google.GatewayTimeout, google.InternalServerError)
    if isinstance(exc, transient):  # RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL
        return TransientError(f"Document AI is busy or unavailable ({_code(exc)}) for {what}")
    if isinstance(exc, google.Forbidden):  # PERMISSION_DENIED (gRPC), 403 (REST)
        return PermanentError(
            f"Document AI denied access to processor {processor} ({_code(exc)}): the service account needs the "
            f"role roles/documentai.apiUser on project {settings.documentai_project_id}"
        )
    if isinstance(exc, google.Unauthorized):
        return PermanentError(
            f"Document AI did not accept segcite's credentials ({_code(exc)}): point GOOGLE_APPLICATION_CREDENTIALS "
            "at a key of a service account with roles/documentai.apiUser"
        )
    if isinstance(exc, google.NotFound):
        return PermanentError(
            f"Document AI has no processor {processor} ({_code(exc)}): check DOCUMENTAI_PROJECT_ID, "
            "DOCUMENTAI_LOCATION and DOCUMENTAI_PROCESSOR_ID"
        )
    if isinstance(exc, google.BadRequest):  # INVALID_ARGUMENT (gRPC), 400 (REST)
        return PermanentError(f"Document AI refused {what} ({_code(exc)}): {_reason(exc)}")
    if isinstance(exc, google.GoogleAPICallError):
        return PermanentError(f"Document AI failed on {what} ({_code(exc)})")
    if isinstance(exc, (ConnectionError, TimeoutError, requests.RequestException, auth.TransportError)):
        return TransientError(f"Document AI did not answer for {what}: {_first_line(exc)}")
    if isinstance(exc, auth.GoogleAuthError):  # no usable credentials: a refused refresh, a bad key file
        return PermanentError(f"no usable Google credentials for Document AI: {_first_line(exc)}")
    return None


# Google's HTTP codes for the canonical error codes (the REST transport's errors carry only the HTTP one).
_CANONICAL = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _code(exc: Any) -> str:
    """`400 INVALID_ARGUMENT`: the HTTP code and the canonical name, as Google's docs spell them."""
    status = getattr(exc, "grpc_status_code", None)
    code = getattr(exc, "code", None)
    name = status.name if status is not None else _CANONICAL.get(code, "") if isinstance(code, int) else ""
    return " ".join(part for part in (str(code) if isinstance(code, int) else "", name) if part) or type(exc).__name__


def _reason(exc: Any) -> str:
    """Google's own words, without the REST transport's `POST <url>: ` in front."""
    return re.sub(r"^[A-Z]+ \S+: ", "", _first_line(exc.message))


def _first_line(exc: Any) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
