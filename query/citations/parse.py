"""`parse_answer`: whatever the model wrote -> sections with their (unvalidated) source ids (design §5.3).

Never raises, never drops the model's text, and runs in time linear in the length of the output. JSON may
sit in code fences or between prose, carry trailing commas, be a bare list, wrap `sections` in a key such as
`answer`, come as several objects, or be cut off. Prose outside the JSON goes to `extra_text`. Text that is
not JSON at all is one section without ids (but the ids of SEG tags inside it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import json_repair
import orjson

from ingest import neutralize_seg_tags, split_ids, take_seg_tags
from query.citations.defuse import defused
from query.citations.markers import remove_model_markers
from query.citations.model import Section

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Where an answer's JSON can start: an object with a key, or a list of objects. `[1]`, `[61, 70]` or `[[[`
# in prose never do.
_ANSWER_START = re.compile(r"""\{\s*["'}]|\[\s*\{""")
_STRUCTURE = re.compile(r'[\[\]{}"\\]')
_LOOKS_LIKE_ANSWER = re.compile(r"""["'](sections|text|source_ids)["']\s*:""")
# Runs of nested brackets deeper than any answer needs (`"source_ids": [[[[…]]]]`, 3000 deep): collapsed to one
# before the last parse attempt, since JSON parsers stop at a depth limit.
_DEEP_OPEN = re.compile(r"\[(?:\s*\[){15,}")
_DEEP_CLOSE = re.compile(r"\](?:\s*\]){15,}")
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"[ \t]+([.,;:!?])")
# Where the above matches, as searches the regex engine runs fast: a pattern that starts with one literal character
# is scanned for it in C; one that starts with a character set (`[ \t]`) is tried at every position.
_SPACED_PUNCTUATION = re.compile(r" [.,;:!?]")
_TABBED_PUNCTUATION = re.compile(r"\t[.,;:!?]")
_SECTION_KEYS = ("sections", "answer_sections", "answers")
_WRAPPER_KEYS = ("answer", "response", "data", "result", "output")
_TEXT_KEYS = ("text", "content", "answer", "section")
_ID_KEYS = ("source_ids", "sourceIds", "source_id", "sources", "ids", "citations")
_ID_KEY_SET = frozenset(_ID_KEYS)
_ID_KEY_IN_TEXT = re.compile(r'"(?:source_ids|sourceIds|source_id|sources|ids|citations)"\s*:')
MAX_REPAIR_CHARS = 65_536  # json_repair is pure Python: past this, broken JSON is prose
MAX_RESTARTS = 4  # unclosed brackets rescanned from the next answer-like start: bounded, so parsing stays linear
MAX_WRAPPER_DEPTH = 3
MAX_IDS = 1000


@dataclass(frozen=True)
class ParsedAnswer:
    sections: list[Section]
    extra_text: str | None  # prose the model wrote outside its JSON ("Here is the answer:"), or None


def parse_answer(raw: str | None, *, max_marker: int | None = None) -> ParsedAnswer:
    """The sections of a model's reply. `max_marker`: `[n]` clusters the model wrote with 1 <= n <= it are
    removed from section text (None: any n); other bracketed text (`[2023]`, `[a]`) stays."""
    if raw is None or not str(raw).strip():
        return ParsedAnswer([], None)
    text = without_surrogates(str(raw))
    blocks = list(_json_blocks(text))
    if not blocks:
        section = _section(text, [], max_marker)
        return ParsedAnswer([section] if section else [], None)
    sections: list[Section] = []
    prose: list[str] = []
    position = 0
    for start, end, value in blocks:
        prose.append(text[position:start])
        sections.extend(_sections_from_value(value, max_marker))
        position = end
    prose.append(text[position:])
    extra = "\n\n".join(p.strip() for p in prose if p.strip())
    if not sections and extra:  # `I do not know. {"sections": []}`: the prose is all the answer there is
        section = _section(extra, [], max_marker)
        return ParsedAnswer([section] if section else [], None)
    return ParsedAnswer(sections, neutralize_seg_tags(extra) if extra else None)


def without_surrogates(text: str) -> str:
    """Lone surrogates (`\\ud83d` cut from its pair) as U+FFFD: a payload holding one cannot be serialized."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def parse_sections(raw: str | None, *, max_marker: int | None = None) -> list[Section]:
    return parse_answer(raw, max_marker=max_marker).sections


def _json_blocks(text: str) -> Iterator[tuple[int, int, Any]]:
    """The answer-shaped JSON values in the text, in order, with their spans."""
    whole = _loads(text.strip(), repair=False)
    if whole is not None and _is_answer(whole, whole_output=True):
        yield 0, len(text), whole
        return
    fences = [(m.start(), m.end(), _loads(m.group(1))) for m in _FENCE.finditer(text)]
    fenced = [(s, e, v) for s, e, v in fences if v is not None and _is_answer(v, whole_output=True)]
    if fenced:
        yield from fenced
        return
    yield from _bracketed_blocks(text)


def _bracketed_blocks(text: str) -> Iterator[tuple[int, int, Any]]:
    start_at = 0
    restarts = 0
    while (found := _ANSWER_START.search(text, start_at)) is not None:
        start = found.start()
        end = _closing(text, start)
        value = _loads(text[start:end] if end else text[start:])
        if value is not None and _is_answer(value, whole_output=False):
            yield start, end or len(text), value
            if end is None:
                return
            start_at = end
        elif end is not None:
            start_at = end  # a closed bracket that is not an answer: prose, skipped whole
        elif restarts < MAX_RESTARTS:
            restarts += 1
            start_at = start + 1  # an unclosed bracket in prose: the answer may start inside it
        else:
            return


def _closing(text: str, start: int) -> int | None:
    """Index after the bracket that closes text[start] (strings skipped), or None if it never closes."""
    depth = 0
    in_string = False
    skip_to = -1
    for match in _STRUCTURE.finditer(text, start):
        at = match.start()
        if at < skip_to:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                skip_to = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return at + 1
    return None


def _loads(text: str, *, repair: bool = True) -> Any:
    text = text.strip()
    if not text or text[0] not in "{[":
        return None
    value = _loads_strict(text)
    if value is None and repair and _DEEP_OPEN.search(text):
        value = _loads_strict(_DEEP_CLOSE.sub("]", _DEEP_OPEN.sub("[", text)))
    return value if value is not None or not repair else _repair(text)


def _loads_strict(text: str) -> Any:
    for attempt in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            value = orjson.loads(attempt)
        except orjson.JSONDecodeError:
            continue
        return _with_repeated_keys(attempt, value)
    return None


def _repair(text: str) -> Any:
    if len(text) > MAX_REPAIR_CHARS or not _LOOKS_LIKE_ANSWER.search(text):
        return None  # a bracket in prose ("{a, b}"), not a broken answer
    try:  # the usual LLM slips: raw newlines in strings, single quotes, a missing bracket, a cut-off end
        repaired = json_repair.loads(text)
    except (RecursionError, ValueError, TypeError):
        return None
    return repaired if isinstance(repaired, dict | list) and repaired else None


def _with_repeated_keys(text: str, value: Any) -> Any:
    """Real models write `"source_ids": [a], "source_ids": [b]`: orjson keeps the last list, this keeps both."""
    written = len(_ID_KEY_IN_TEXT.findall(text))
    if written <= 1 or written == _count_id_keys(value):
        return value
    try:
        return json.loads(text, object_pairs_hook=_merge_repeated_ids)
    except (RecursionError, ValueError):
        return value


def _count_id_keys(value: Any) -> int:
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict):
        inner = next((value[k] for k in (*_SECTION_KEYS, *_WRAPPER_KEYS) if isinstance(value.get(k), list)), None)
        items = inner if inner is not None else [value]
    return sum(len(_ID_KEY_SET.intersection(item)) for item in items if isinstance(item, dict))


def _merge_repeated_ids(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key, value in pairs:
        if key in _ID_KEYS and key in merged:
            merged[key] = [*_as_list(merged[key]), *_as_list(value)]
        else:
            merged[key] = value
    return merged


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _answer_items(value: Any, depth: int = 0) -> list[Any] | None:
    """The section items of an answer-shaped value, or None if the value is not an answer."""
    if isinstance(value, list):
        return value
    if not isinstance(value, dict) or depth > MAX_WRAPPER_DEPTH:
        return None
    for key in _SECTION_KEYS:
        if key in value:
            return _as_list(value[key])
    for key in _WRAPPER_KEYS:  # {"answer": {"sections": [...]}}
        inner = value.get(key)
        if isinstance(inner, dict | list) and _is_answer(inner, whole_output=False, depth=depth + 1):
            return _answer_items(inner, depth + 1)
    return [value] if any(isinstance(value.get(k), str | int | float) for k in _TEXT_KEYS) else None


def _is_answer(value: Any, *, whole_output: bool, depth: int = 0) -> bool:
    """A list is an answer if it holds sections with text; a list of plain strings only when it is the whole
    output (`["a", "b"]` inside prose is not)."""
    if isinstance(value, dict):
        return _answer_items(value, depth) is not None
    if not isinstance(value, list):
        return False
    if any(isinstance(i, dict) and any(k in i for k in _TEXT_KEYS) for i in value):
        return True
    return whole_output and bool(value) and all(isinstance(i, str) for i in value)


def _sections_from_value(value: Any, max_marker: int | None) -> list[Section]:
    sections = (_section_from_item(item, max_marker) for item in _answer_items(value) or [])
    return [s for s in sections if s is not None]


def _section_from_item(item: Any, max_marker: int | None) -> Section | None:
    if not isinstance(item, dict):
        return _section(" ".join(_leaves(item)), [], max_marker)
    # (the keys the prompt asks for first: the usual item is read without a search through the others)
    if (text := item.get(_TEXT_KEYS[0])) is None:
        text = next((item[k] for k in _TEXT_KEYS if k in item and item[k] is not None), "")
    if (ids := item.get(_ID_KEYS[0])) is None:
        ids = next((item[k] for k in _ID_KEYS if k in item and item[k] is not None), [])
    return _section(text if isinstance(text, str) else " ".join(_leaves(text)), _id_list(ids), max_marker)


def _leaves(value: Any, limit: int = 10_000) -> list[str]:
    """The scalar leaves of a nested value, in order, without recursion (models nest thousands deep)."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, str):
            out.append(item)
        elif item is not None and not isinstance(item, bool):
            out.append(str(item))
    return out


def _id_list(ids: Any) -> list[str]:
    """Ids as written, flattened: strings of several ids and SEG-tagged ids are cut into single ids."""
    if isinstance(ids, dict):  # {"id": "x:1"} or {"source_id": "x:1"}
        ids = [ids]
    out: list[str] = []
    if isinstance(ids, list) and len(ids) <= MAX_IDS and all(type(i) is str for i in ids):
        items = ids  # the usual list of id strings: its own leaves
    else:
        items = _leaves([_id_of(i) for i in _as_list(ids)], MAX_IDS)
    for item in items:
        rest, tagged = take_seg_tags(without_surrogates(item))
        out.extend(tagged)
        if rest.isprintable() and " " not in rest and "," not in rest and ";" not in rest:
            out += [rest] if rest else []  # one id: what split_ids gives (no whitespace is printable but " ")
        else:
            out.extend(split_ids(rest))
    return out


def _id_of(item: Any) -> Any:
    if isinstance(item, dict):
        return next((item[k] for k in ("id", "source_id", "segment_id") if k in item), None)
    return item


def _section(text: str, ids: list[str], max_marker: int | None) -> Section | None:
    """A section with SEG tags moved from its text to its ids, model-written `[n]` markers removed, and
    anything else that could be read as a SEG tag defused."""
    text, tagged = take_seg_tags(without_surrogates(text))
    text = remove_model_markers(text, max_marker) if "[" in text else text
    if "  " in text or "\t" in text:
        text = _SPACES.sub(" ", text)
    # (rare: searches are cheaper than a sub with a template)
    if _SPACED_PUNCTUATION.search(text) or ("\t" in text and _TABBED_PUNCTUATION.search(text)):
        text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    text = text.strip()
    if not text:
        return None
    return Section(text=defused(text), source_ids=[*ids, *tagged])
