"""Composition root: Celery app and tasks, settings, adapters, embedded servers, CLI."""
