import re
import subprocess
import sys

import pytest

from worker.settings import Settings, SettingsError, load_settings

CLI = [sys.executable, "-m", "worker.cli"]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}
    return subprocess.run([*CLI, *args], env={**base, **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SEGCITE_RAG_MODE", "bogus"),
        ("DATABASE_URL", "mysql://localhost/x"),
        ("REDIS_URL", "http://localhost"),
        ("OPENAI_BASE_URL", "not a url"),
        ("SEGCITE_TOP_K", "many"),
        ("FLOWER_BASIC_AUTH", "nopassword"),
    ],
)
def test_bad_value_stops_with_one_line_naming_the_variable(variable: str, value: str, tmp_path) -> None:
    result = run_cli("config", env={variable: value, "SEGCITE_HOME": str(tmp_path)})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {variable}:")
    assert "Traceback" not in result.stderr


def test_config_masks_secrets(tmp_path) -> None:
    key = "sk-test-abcdefghijklmnopqrstuvwxyz-9876"
    result = run_cli(
        "config",
        env={
            "OPENAI_API_KEY": key,
            "SUPABASE_SERVICE_ROLE_KEY": "short",
            "DATABASE_URL": "postgresql://app:hunter2secret@db.example.com:5432/app",
            "SEGCITE_HOME": str(tmp_path),
        },
    )
    assert result.returncode == 0, result.stderr
    shown = dict(line.split("=", 1) for line in result.stdout.splitlines())
    assert shown["OPENAI_API_KEY"] == "****9876"
    assert shown["SUPABASE_SERVICE_ROLE_KEY"] == "****"
    assert shown["DATABASE_URL"] == "postgresql://app:****@db.example.com:5432/app"
    assert key not in result.stdout and "hunter2secret" not in result.stdout
    assert shown["SEGCITE_RAG_MODE"] == "naive"
    assert shown["SEGCITE_LLM_PROVIDER"] == "extractive"


def test_env_file_is_read(tmp_path, monkeypatch) -> None:
    (tmp_path / ".env").write_text("SEGCITE_TOP_K=7\nSEGCITE_RAG_MODE=mix\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEGCITE_TOP_K", raising=False)
    monkeypatch.delenv("SEGCITE_RAG_MODE", raising=False)
    settings = load_settings()
    assert settings.segcite_top_k == 7
    assert settings.segcite_rag_mode == "mix"


def test_visibility_timeout_exceeds_the_hard_time_limit() -> None:
    settings = Settings(segcite_task_time_limit=600)
    assert settings.visibility_timeout > settings.segcite_task_time_limit


def test_load_settings_error_names_variable(monkeypatch) -> None:
    monkeypatch.setenv("SEGCITE_EMBEDDING_DIM", "3")
    with pytest.raises(SettingsError, match=r"^SEGCITE_EMBEDDING_DIM: "):
        load_settings()


def test_every_setting_is_documented_in_the_readme() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    missing = [name.upper() for name in Settings.model_fields if f"| `{name.upper()}` |" not in readme]
    assert missing == []


def test_env_example_lists_every_setting_with_its_default() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / ".env.example").read_text()
    shown = dict(re.findall(r"^# ?([A-Z][A-Z0-9_]+)=(.*)$", text, re.MULTILINE))
    assert sorted(shown) == sorted(name.upper() for name in Settings.model_fields)
    for name, field in Settings.model_fields.items():
        value = shown[name.upper()]
        if field.default is None:
            assert value == "", name
        else:
            assert getattr(Settings(_env_file=None, **{name: value}), name) == field.default, name
    # Each is explained: the line above a setting is a comment that is not itself a setting.
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if re.match(r"^# ?[A-Z][A-Z0-9_]+=", line):
            assert lines[number - 1].startswith("# ") and "=" not in lines[number - 1].split()[1], line
