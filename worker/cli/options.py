"""Option types and options that several commands share."""

from __future__ import annotations

import math

import click


class Seconds(click.ParamType):
    """A timeout: a finite number of seconds above 0."""

    name = "SECONDS"

    def convert(self, value, param, ctx) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not (math.isfinite(seconds) and seconds > 0):
            self.fail(f"must be a number of seconds above 0, got {value}", param, ctx)
        return seconds


SECONDS = Seconds()


def check_workspace(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from worker.app_actions import workspace_id

    try:
        workspace_id(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None
    return value


workspace_option = click.option(
    "--workspace", default="default", show_default=True, callback=check_workspace, help="Workspace UUID or name."
)
