"""Celery tasks. Each task is a thin shell: the work lives in pure functions and small adapters."""

from __future__ import annotations

import os
import socket

from worker.app import app


@app.task(name="segcite.ping")
def ping() -> dict[str, object]:
    """Round-trip check for a worker: who answered."""
    return {"pong": True, "hostname": socket.gethostname(), "pid": os.getpid()}
