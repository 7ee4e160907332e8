"""Flower, Celery's monitor, closed by default (design §7).

`segcite flower` checks the settings (`plan_flower`) and execs `python -m worker.flower`, which is Celery's
own `celery -A worker.app flower` with one change: `/metrics` asks for the credentials the UI asks for.
Flower 2.x exempts `/metrics` (and `/healthcheck`) from authentication by design and has no option to change
that (its docs, "Authentication"; mher/flower#1342), and its `--auth_provider` only swaps the OAuth login
page, so the route is replaced before Flower builds its application.

- Flower listens on 127.0.0.1 unless FLOWER_ADDRESS says otherwise.
- No start without FLOWER_BASIC_AUTH unless `--no-auth`, and then on 127.0.0.1 whatever FLOWER_ADDRESS says.
- The credentials reach Flower through its own FLOWER_BASIC_AUTH variable, never argv: a command line is
  readable by every user of the machine (`ps`, /proc/<pid>/cmdline), a process's environment is not.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

import tornado.web
from flower.urls import handlers as flower_routes  # the list flower.app.Flower builds its routes from
from flower.views.monitor import Metrics
from pydantic import SecretStr

from worker.settings import Settings, SettingsError

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class FlowerPlan:
    """How Flower is started: where it listens and with which credentials."""

    address: str
    port: int
    credentials: SecretStr | None
    warning: str | None = None

    def argv(self) -> list[str]:
        """Flower's command line; it carries no secret (FLOWER_ADDRESS / FLOWER_PORT in the environment would
        be read by Flower too, but a command-line option wins over them)."""
        return [
            sys.executable, "-m", "worker.flower", "-A", "worker.app", "flower",
            f"--address={self.address}", f"--port={self.port}",
        ]  # fmt: skip

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        env = {name: value for name, value in base.items() if name != "FLOWER_BASIC_AUTH"}
        if self.credentials is not None:
            env["FLOWER_BASIC_AUTH"] = self.credentials.get_secret_value()
        return env


def plan_flower(settings: Settings, port: int | None = None, no_auth: bool = False) -> FlowerPlan:
    """Check the settings; raises SettingsError (one line, naming the variable) when Flower must not start."""
    port = port or settings.flower_port
    if no_auth:
        ignored = f" (FLOWER_ADDRESS={settings.flower_address} ignored)" if settings.flower_address else ""
        warning = f"--no-auth: Flower asks for no password and listens on {LOOPBACK} only{ignored}"
        return FlowerPlan(LOOPBACK, port, None, warning)
    if settings.flower_basic_auth is None:
        raise SettingsError(
            "FLOWER_BASIC_AUTH: not set; set it to user:password, "
            f"or pass --no-auth to run Flower without a password on {LOOPBACK} only"
        )
    _check_credentials(settings.flower_basic_auth.get_secret_value())
    return FlowerPlan(settings.flower_address or LOOPBACK, port, settings.flower_basic_auth)


def _check_credentials(value: str) -> None:
    # Flower splits the variable on commas into user:password pairs; an entry without a user or a password
    # would be a credential that is easy to guess.
    for entry in value.split(","):
        user, _, password = entry.partition(":")
        if not user or not password:
            raise SettingsError(
                "FLOWER_BASIC_AUTH: every comma-separated entry must be user:password with neither part empty"
            )


class AuthenticatedMetrics(Metrics):
    """Flower's Prometheus endpoint, asking for the credentials its UI pages ask for."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await super().get()


def require_auth_on_metrics() -> None:
    for index, route in enumerate(flower_routes):
        if isinstance(route, tuple) and route[0] == r"/metrics":
            flower_routes[index] = (route[0], AuthenticatedMetrics, *route[2:])
            return
    raise RuntimeError("this Flower has no /metrics route to protect; check the installed flower version")


def main() -> None:
    """`python -m worker.flower <celery arguments>`: Celery's command line, with /metrics behind the auth."""
    require_auth_on_metrics()
    from celery.__main__ import main as celery_main

    sys.argv = ["celery", *sys.argv[1:]]
    celery_main()


if __name__ == "__main__":
    main()
