"""How a command fails: one line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import os
import sys

import click

from worker.embedded import EmbeddedServiceError
from worker.errors import PermanentError
from worker.settings import SettingsError

INTERRUPTED = 130  # the shell's exit status for Ctrl-C


class UserError(click.ClickException):
    """An error a user can act on: printed as one line, exit 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _one_line_usage(exc: click.UsageError) -> UserError:
    """click's usage errors print the usage, a hint and the error on four lines: one line instead."""
    where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
    return UserError(exc.format_message().splitlines()[0] + where)


class SegciteGroup(click.Group):
    """Turns the errors a user can act on into one line; anything else still prints one line."""

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line_usage(exc) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line_usage(exc) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt, BrokenPipeError):
            raise  # click's own handling (a closed pipe, as in `segcite config | head`, ends quietly)
        except (SettingsError, EmbeddedServiceError, PermanentError) as exc:
            raise UserError(str(exc)) from None
        except Exception as exc:  # last resort: one line, without the library's class names
            if os.environ.get("SEGCITE_DEBUG"):
                raise
            lines = [line for line in str(exc).splitlines() if line.strip()]
            reason = lines[0] if lines else "an unexpected error"
            click.echo(f"error: {reason} (SEGCITE_DEBUG=1 shows the traceback)", err=True)
            sys.exit(1)
