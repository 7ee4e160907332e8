"""Flower closed by default (design §7, issue 15): on 127.0.0.1 unless FLOWER_ADDRESS says otherwise, no start
without FLOWER_BASIC_AUTH unless `--no-auth` (then 127.0.0.1 whatever FLOWER_ADDRESS says), credentials never
in a command line, `/metrics` behind the same credentials. Flower is started as a user starts it,
`segcite flower`, in a subprocess. Also: docker-compose.yml and the Dockerfile keep those defaults."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import yaml
from conftest import REPO, free_port, http_get, service_env, wait_for

from worker.embedded import Services
from worker.flower import LOOPBACK, plan_flower
from worker.settings import Settings, SettingsError


class FlowerProcess:
    def __init__(self, services: Services, home: Path, *args: str, **env: str):
        self.port = free_port()
        self.log = home / f"flower-{self.port}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "worker.cli", "flower", *args],
            env=service_env(services, home, FLOWER_PORT=str(self.port), **env),
            cwd=REPO,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for(self.listening, timeout=60, what=f"flower to listen ({self.log})", interval=0.2)

    def listening(self) -> set[tuple[str, int]]:
        if self.proc.poll() is not None:
            raise AssertionError(f"flower exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
        connections = psutil.Process(self.proc.pid).net_connections(kind="inet")
        return {(c.laddr.ip, c.laddr.port) for c in connections if c.status == psutil.CONN_LISTEN}

    def get(self, path: str, auth: str | None = None) -> tuple[int, bytes]:
        return http_get(f"http://127.0.0.1:{self.port}{path}", auth)

    def processes(self) -> list[psutil.Process]:
        parent = psutil.Process(self.proc.pid)
        return [parent, *parent.children(recursive=True)]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)


@pytest.fixture
def start_flower(services: Services, tmp_path: Path) -> Iterator:
    started: list[FlowerProcess] = []

    def start(*args: str, **env: str) -> FlowerProcess:
        started.append(FlowerProcess(services, tmp_path, *args, **env))
        return started[-1]

    yield start
    for flower in started:
        flower.stop()


@pytest.mark.parametrize(("flower_address", "listens_on"), [(None, LOOPBACK), ("0.0.0.0", "0.0.0.0")])
def test_flower_asks_for_credentials_on_every_page_and_metrics(start_flower, flower_address, listens_on) -> None:
    password = secrets.token_urlsafe(16)
    env = {"FLOWER_BASIC_AUTH": f"admin:{password}"} | ({"FLOWER_ADDRESS": flower_address} if flower_address else {})
    flower = start_flower(**env)
    assert flower.listening() == {(listens_on, flower.port)}
    for path in ("/", "/metrics", "/api/workers"):
        assert flower.get(path)[0] == 401, path
        assert flower.get(path, auth="admin:wrong")[0] == 401, path
        assert flower.get(path, auth=f"admin:{password}")[0] == 200, path
    assert b"# HELP flower_" in flower.get("/metrics", auth=f"admin:{password}")[1]
    assert flower.get("/healthcheck") == (200, b"OK")  # a liveness probe, which says nothing else

    # The password is in no process's command line: not Flower's, not its children's, not anyone's.
    for process in flower.processes():
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert password.encode() not in cmdline, cmdline
    assert b"worker.flower" in Path(f"/proc/{flower.proc.pid}/cmdline").read_bytes()
    everyone = [" ".join(p.info["cmdline"] or []) for p in psutil.process_iter(["cmdline"])]
    assert [line for line in everyone if password in line] == []
    # It reached Flower through the environment, which only the same user (or root) can read.
    assert f"FLOWER_BASIC_AUTH=admin:{password}".encode() in Path(f"/proc/{flower.proc.pid}/environ").read_bytes()


def test_no_auth_listens_on_loopback_only_whatever_flower_address_says(start_flower) -> None:
    flower = start_flower("--no-auth", FLOWER_ADDRESS="0.0.0.0", FLOWER_BASIC_AUTH="admin:unused-here")
    assert flower.listening() == {(LOOPBACK, flower.port)}
    assert flower.get("/")[0] == 200
    assert flower.get("/metrics")[0] == 200
    assert "FLOWER_ADDRESS=0.0.0.0 ignored" in flower.log.read_text()


def test_flower_will_not_start_without_credentials(services: Services, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "worker.cli", "flower", "--port", str(free_port())],
        env=service_env(services, tmp_path, FLOWER_ADDRESS="0.0.0.0"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: FLOWER_BASIC_AUTH: not set; set it to user:password, "
        "or pass --no-auth to run Flower without a password on 127.0.0.1 only"
    ]


def test_the_plan_puts_credentials_in_the_environment_only() -> None:
    plan = plan_flower(Settings(_env_file=None, flower_basic_auth="admin:pw-in-env", flower_port=5601))
    assert plan.argv()[1:] == [
        "-m", "worker.flower", "-A", "worker.app", "flower", "--address=127.0.0.1", "--port=5601",
    ]  # fmt: skip
    assert plan.environment({"PATH": "/bin"}) == {"PATH": "/bin", "FLOWER_BASIC_AUTH": "admin:pw-in-env"}
    # --no-auth means no auth: credentials inherited from the environment do not reach Flower either.
    open_plan = plan_flower(Settings(_env_file=None, flower_address="10.0.0.5"), port=5602, no_auth=True)
    assert (open_plan.address, open_plan.port) == (LOOPBACK, 5602)
    assert open_plan.environment({"PATH": "/bin", "FLOWER_BASIC_AUTH": "x:y"}) == {"PATH": "/bin"}


@pytest.mark.parametrize("credentials", ["admin:", ":secret", "admin:secret,guest"])
def test_credentials_easy_to_guess_are_refused(credentials: str) -> None:
    with pytest.raises(SettingsError, match=r"^FLOWER_BASIC_AUTH: every comma-separated entry"):
        plan_flower(Settings(_env_file=None, flower_basic_auth=credentials))


# Deployment files --------------------------------------------------------------------------------------


def test_compose_publishes_flower_only_with_auth_and_on_the_host_loopback() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]
    assert [name for name, service in services.items() if service.get("ports")] == ["flower"]
    flower = services["flower"]
    command = flower["command"]
    assert command[:2] == ["segcite", "flower"] and "--no-auth" not in command
    container_port = command[command.index("--port") + 1]
    # Short syntax HOST_IP:HOST_PORT:CONTAINER_PORT; without a host IP Docker would publish on every interface.
    assert flower["ports"] == [f"127.0.0.1:{container_port}:{container_port}"]
    environment = flower["environment"]
    # The credentials come from .env, and `segcite flower` refuses to start without them (a test above): a
    # `${FLOWER_BASIC_AUTH:?}` here would stop every Compose command, `docker compose up redis` included.
    assert "FLOWER_BASIC_AUTH" not in environment and "FLOWER_BASIC_AUTH" not in flower["command"]
    # Inside its container Flower listens beyond loopback, or the published port would reach nothing.
    assert environment["FLOWER_ADDRESS"] == "0.0.0.0"
    opened = [name for name, service in services.items() if "FLOWER_ADDRESS" in (service.get("environment") or {})]
    assert opened == ["flower"]


def test_the_image_sets_no_flower_default() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "FLOWER_" not in dockerfile and "--no-auth" not in dockerfile
    assert not re.search(r"^\s*EXPOSE\b", dockerfile, re.MULTILINE)
