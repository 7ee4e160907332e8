"""Source-id validation of design §5.4: strict, never auto-correcting."""

from __future__ import annotations

import pytest

from ingest import Segment
from query import check_source_ids, parse_source_id


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("doc:1", ("doc", 1)),
        (" doc:1 ", ("doc", 1)),
        ("SEG=doc:1", ("doc", 1)),
        ("[SEG=doc:1]", ("doc", 1)),
        ("[SEG= doc:12 ]", ("doc", 12)),
        ("6f1c0e2a-3b4d-4c5e-8f90-123456789abc:0", ("6f1c0e2a-3b4d-4c5e-8f90-123456789abc", 0)),
        ("doc:007", ("doc", 7)),
        ("[SEG=doc:1", ("doc", 1)),  # an unclosed wrapper
        ("6F1C0E2A-3B4D-4C5E-8F90-123456789ABC:0", ("6f1c0e2a-3b4d-4c5e-8f90-123456789abc", 0)),
    ],
)
def test_well_formed(raw: str, expected) -> None:
    assert parse_source_id(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "doc-1",
        "doc:abc",
        "doc:-1",
        "<<1-2>>",
        "doc:1.5",
        ":1",
        "doc:",
        "[doc:1]",
        "(doc:1)",
        "doc: 1",
        "SEG:doc:1",
        "doc:1:2",
        "",
        "d o c:1",
        "A:\u0663",  # an Arabic-Indic three is not an id's digit
        "A:\uff13",  # nor a full-width one
        "[SEG=A:\u0663]",
        "[SEG=a:1, b:2]",  # two ids are not one
    ],
)
def test_malformed(raw: str) -> None:
    assert parse_source_id(raw) is None


def seg(doc: str, index: int) -> Segment:
    return Segment(doc, index, 0, "paragraph", f"text {doc} {index}", None, None, None)


def test_checks_in_order_parse_exists_in_context() -> None:
    store = {s.segment_id: s for s in (seg("a", 0), seg("a", 1), seg("b", 0))}
    context = {"a:0", "b:0"}
    checks = check_source_ids(["a:0", "a:1", "zz:3", "doc-1", "[SEG=b:0]", "a:0"], store.get, context)
    assert [(c.raw, c.segment.segment_id if c.segment else None, c.error) for c in checks] == [
        ("a:0", "a:0", None),
        ("a:1", None, "segment a:1 was not in this question's context"),
        ("zz:3", None, "unknown segment zz:3"),
        ("doc-1", None, "malformed id 'doc-1'"),
        ("[SEG=b:0]", "b:0", None),
    ]  # the repeated a:0 is reported once
