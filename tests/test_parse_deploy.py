"""Deployment of the parse stage (issue 33 point 6): the `local` Compose profile parses PDFs and images with no
Google account, with what the image carries (Tesseract, the `parse` package in the wheel)."""

from __future__ import annotations

from pathlib import Path

import yaml

from worker.settings import Settings

REPO = Path(__file__).resolve().parent.parent


def env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def test_the_local_profile_parses_offline_with_what_the_image_carries(monkeypatch) -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    for name, value in (env_file(REPO / ".env.local") | compose["services"]["worker-ingest"]["environment"]).items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    assert (settings.segcite_parser, settings.parser) == ("local", "local")
    assert not settings.documentai_project_id  # nothing of Google's is needed
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "tesseract-ocr" in dockerfile  # OCR for scans and images
    assert "COPY parse parse" in dockerfile


def test_the_default_parser_is_document_ai_only_where_a_processor_is_configured() -> None:
    assert Settings(_env_file=None).parser == "local"
    assert Settings(_env_file=None, documentai_project_id="p").parser == "local"  # no processor yet
    configured = Settings(_env_file=None, documentai_project_id="p", documentai_processor_id="x")
    assert configured.parser == "documentai"
    assert Settings(_env_file=None, documentai_project_id="p", documentai_processor_id="x",
                    segcite_parser="local").parser == "local"  # fmt: skip
