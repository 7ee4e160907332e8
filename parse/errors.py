"""The one error the parser raises."""

from __future__ import annotations


class ParseError(ValueError):
    """The file cannot be parsed; the message is one line a user can act on (it names no internal path)."""
