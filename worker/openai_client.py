"""The one place an OpenAI SDK client is made, for every use of an OpenAI-compatible API (answers,
embeddings, LightRAG's graph extraction): same endpoint, key and timeout from the settings; and the one
place the SDK's errors become ours."""

from __future__ import annotations

from typing import TYPE_CHECKING

from worker.errors import PermanentError, TransientError
from worker.settings import Settings

if TYPE_CHECKING:
    import openai


def _key(settings: Settings) -> str:
    # A local server (llama.cpp, vLLM) needs no key, but the SDK refuses to start without one.
    return settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"


def openai_client(settings: Settings, *, asynchronous: bool = False) -> openai.OpenAI | openai.AsyncOpenAI:
    """No retries of the SDK's own (design §6): Celery's retry policy is the one retry policy, and a hidden
    retry would have the server compute an abandoned request twice. The timeout bounds each wait for data
    (connecting, the first token, the gap between two tokens), not a whole streamed reply."""
    import httpx
    import openai

    timeout = settings.segcite_llm_timeout
    client = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return client(
        base_url=settings.openai_base_url,
        api_key=_key(settings),
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        max_retries=0,
    )


def classified(exc: Exception, what: str) -> TransientError | PermanentError:
    """An OpenAI SDK error as ours: what may pass on a retry (connection, timeout, rate limit, 5xx) is
    transient; a rejected key, model or request is permanent. `what` names the service ("LLM", …)."""
    import openai

    name = type(exc).__name__
    if isinstance(exc, openai.APIConnectionError | openai.RateLimitError | openai.InternalServerError):
        return TransientError(f"{what} unavailable ({name}): {exc}")  # APITimeoutError is an APIConnectionError
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError | openai.NotFoundError):
        return PermanentError(f"{what} configuration error ({name}): {exc}")
    if isinstance(exc, openai.BadRequestError):
        return PermanentError(f"the {what} rejected the request: {exc}")
    return PermanentError(f"the {what} failed ({name}): {exc}")
