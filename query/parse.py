"""`parse_sections`: whatever the model wrote -> sections with their (unvalidated) source ids.

Never raises, never drops the model's text: JSON in code fences, prose around the JSON, trailing commas,
a bare list, `source_ids` as one string, ids wrapped as `[SEG=x:1]` / `SEG=x:1`, SEG tags left inside the
text. Text that is not JSON at all is one section without ids.
"""

from __future__ import annotations

import re
from typing import Any

import json_repair
import orjson

from query.model import Section

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
# A SEG tag inside text: `[SEG=doc:1]`, `[SEG=doc:1, doc:2]`, or a bare `SEG=doc:1`.
_BRACKET_TAG = re.compile(r"\[\s*SEG\s*=\s*([^\]]*)\]")
_BARE_TAG = re.compile(r"\bSEG\s*=\s*([^\s,;\])]+)")
# `[3]`-style markers the model wrote itself would be mistaken for ours; they carry no id.
_NUMBER_MARKER = re.compile(r"\s*\[\d+\](?:\s*,?\s*\[\d+\])*")
_LOOKS_LIKE_ANSWER = re.compile(r"""["'](sections|text|source_ids)["']\s*:""")
_ID_SPLIT = re.compile(r"[,;\s]+")
_TEXT_KEYS = ("text", "content", "answer", "section")
_ID_KEYS = ("source_ids", "sourceIds", "source_id", "sources", "ids", "citations")


def parse_sections(raw: str | None) -> list[Section]:
    if raw is None:
        return []
    raw = str(raw)
    if not raw.strip():
        return []
    found = _find_json(raw)
    if found is None:
        return _sections_from_text([raw])
    value, before, after = found
    sections = _sections_from_value(value)
    if sections is None:  # JSON, but not an answer shape (e.g. a bare number): keep the text as it is
        return _sections_from_text([raw])
    return _sections_from_text([before]) + sections + _sections_from_text([after])


def _find_json(raw: str) -> tuple[Any, str, str] | None:
    """The first JSON object or list in the text, with the prose before and after it."""
    whole = _loads(raw, repair=False)  # the usual case: the whole output is the JSON
    if whole is not None:
        return whole, "", ""
    fence = _FENCE.search(raw)
    if fence:
        parsed = _loads(fence.group(1))
        if parsed is not None:
            return parsed, _framing(raw[: fence.start()]), raw[fence.end() :]
    for start, char in enumerate(raw):
        if char not in "{[":
            continue
        end = _matching_close(raw, start)
        candidate = raw[start:end] if end else raw[start:]
        parsed = _loads(candidate)
        if parsed is not None:
            return parsed, _framing(raw[:start]), raw[end:] if end else ""
    return None


def _framing(prose: str) -> str:
    """Prose before the JSON, unless it only introduces it ("Here is the answer:")."""
    return "" if prose.strip().endswith(":") else prose


def _matching_close(text: str, start: int) -> int | None:
    """Index after the bracket that closes text[start], skipping strings; None if it never closes."""
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _loads(text: str, *, repair: bool = True) -> Any:
    text = text.strip()
    if not text or text[0] not in "{[":
        return None
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return orjson.loads(attempt)
        except orjson.JSONDecodeError:
            continue
    if not repair or not _LOOKS_LIKE_ANSWER.search(text):
        return None  # a bracket in prose ("[SEG=x:1]", "{a, b}"), not a broken answer
    # Last resort for the usual LLM slips (raw newlines in strings, single quotes, a missing bracket).
    repaired = json_repair.loads(text)
    return repaired if isinstance(repaired, dict | list) and repaired else None


def _sections_from_value(value: Any) -> list[Section] | None:
    if isinstance(value, dict):
        items = next((value[k] for k in ("sections", "answer_sections", "answers") if k in value), None)
        if items is None:
            section = _section_from_item(value)
            return [section] if section else None
        value = items if isinstance(items, list) else [items]
    if not isinstance(value, list):
        return None
    sections = [_section_from_item(item) for item in value]
    return [s for s in sections if s is not None]


def _section_from_item(item: Any) -> Section | None:
    if isinstance(item, str):
        return _section(item, [])
    if not isinstance(item, dict):
        return _section(str(item), []) if item is not None else None
    text = next((item[k] for k in _TEXT_KEYS if k in item and item[k] is not None), "")
    ids = next((item[k] for k in _ID_KEYS if k in item and item[k] is not None), [])
    return _section(text if isinstance(text, str) else orjson.dumps(text).decode(), _id_list(ids))


def _id_list(ids: Any) -> list[str]:
    if isinstance(ids, str | int):
        ids = [ids]
    if not isinstance(ids, list):
        return [str(ids)]
    out: list[str] = []
    for item in ids:
        if isinstance(item, dict):  # {"id": "x:1"} or {"source_id": "x:1"}
            item = next((item[k] for k in ("id", "source_id", "segment_id") if k in item), "")
        if isinstance(item, str):
            bracketed = _BRACKET_TAG.fullmatch(item.strip())
            parts = _ID_SPLIT.split(bracketed.group(1)) if bracketed else _ID_SPLIT.split(item)
            out.extend(p for p in parts if p)
        elif item is not None:
            out.append(str(item))
    return out


def _section(text: str, ids: list[str]) -> Section | None:
    """A section with SEG tags moved from its text to its ids, and stray `[n]` markers removed."""
    tag_ids: list[str] = []
    for match in _BRACKET_TAG.finditer(text):
        tag_ids.extend(p for p in _ID_SPLIT.split(match.group(1)) if p)
    text = _BRACKET_TAG.sub("", text)

    def take_bare_tag(match: re.Match[str]) -> str:
        found = match.group(1).rstrip(".!?:")  # "capital SEG=d:2." ends a sentence; the period stays
        tag_ids.append(found)
        return match.group(1)[len(found) :]

    text = _BARE_TAG.sub(take_bare_tag, text)
    text = _NUMBER_MARKER.sub("", text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    if not text:
        return None
    return Section(text=text, source_ids=[*ids, *tag_ids])


def _sections_from_text(texts: list[str]) -> list[Section]:
    """Prose (no JSON): one section per non-empty piece, ids only from SEG tags in it."""
    sections = [_section(t, []) for t in texts if t and t.strip()]
    return [s for s in sections if s is not None]
