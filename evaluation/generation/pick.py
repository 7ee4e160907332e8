"""Which generated questions a set holds: each found question checked against its page, ambiguous ones left out,
the document named where another could answer too, then a set spread over the documents, their kinds and their
pages, with unanswerable probes at most a third of it. Pure; the same segments and seed give the same set."""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evaluation.generation.fields import field_questions
from evaluation.generation.lines import line_questions
from evaluation.generation.probes import probe_questions
from evaluation.generation.sentences import sentence_questions
from evaluation.generation.tables import table_questions
from evaluation.generation.text import LONG_DOCUMENT, TEXT_KINDS, Document, content_words, documents
from evaluation.generation.values import Candidate
from evaluation.normalize import holds, plain
from evaluation.questions import Question, SegmentRef, Source

# A name of one thing wherever it is used: an option, an identifier (`GNUPLOT_PS_DIR`, `fontpath`, `set.size`).
_GLOBAL_NAME = re.compile(r"^(?:--?[A-Za-z][\w\-]*|[A-Za-z]+(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z]\w*)$")
# `the string`, `the increments`, `the terminal's default encoding`: a noun the text before it named.
_ANAPHORIC = re.compile(r"(?:^|\s)[Tt]he [\w\-]+(?:$|['’]s\s)")
PROBE_SHARE = 0.15  # of a set, when the workspace gives enough answerable questions (never more than a third)
PAGE_BINS = 10  # a document's pages are cut into this many stretches, and the set takes from each in turn
KIND_ORDER = ("field", "table", "label", "sentence", "definition")
SPREAD_PAGES, PER_PAGE = 10, 3  # in a document of SPREAD_PAGES pages or more, questions of one page taken first


def generate(segments: Sequence[SegmentRef], count: int, seed: int = 0) -> list[Question]:
    """Up to `count` questions: answerable ones spread over the documents, their kinds and pages, and about 15%
    unanswerable probes, never more than half as many as the answerable ones (a third of the set)."""
    rng = random.Random(seed)
    docs = documents(segments)
    by_document: dict[str, list[Question]] = defaultdict(list)
    taken: set[tuple[str, str, str]] = set()  # (document, subject, value): a label's line and its field are one
    labels: list[str] = []
    for question in [*field_questions(segments), *table_questions(segments)]:
        if any(holds(question.text, answer) for answer in question.expected[0]):
            continue  # `the Quantity ... in invoice_1p.json` -> `1`: the question says its answer
        document = question.origin["document"]
        subject = question.origin.get("label") or f"{question.origin.get('row')} {question.origin.get('column')}"
        taken.add((document, plain(subject), plain(question.expected[0][0])))
        labels += [question.origin["label"]] if question.kind == "field" else []
        by_document[document].append(question)
    for doc in docs:
        for question in checked_questions(doc, docs, taken):
            if question.kind == "label" and "statement" not in question.origin:  # a label's line, not a default
                labels.append(question.origin["label"])
            by_document[doc.name].append(question)
    answerable = count - round(count * PROBE_SHARE)
    chosen = spread(by_document, {d.name: max(d.pages, default=0) + 1 for d in docs}, answerable, rng)
    if len(chosen) < answerable:  # fewer answerable questions than that: probes fill in, up to a third of the set
        answerable = len(chosen)
    words = {word for doc in docs for word in doc.word_pages}
    probes = list(probe_questions(words, labels, rng))
    rng.shuffle(probes)
    chosen += probes[: min(count - len(chosen), answerable // 2)]
    return chosen


def checked_questions(doc: Document, docs: Sequence[Document], taken: set[tuple[str, str, str]]) -> list[Question]:
    """The questions found in a document's text that hold: the value printed on its page, the subject's words on
    it, the question not giving its answer away, a subject that names one thing, one value per question."""
    found: dict[str, list[Candidate]] = defaultdict(list)
    section = None  # the heading the text is under, in reading order over segments and pages
    for _, page in sorted(doc.pages.items()):
        for segment in page.segments:
            if segment.kind in TEXT_KINDS:
                stated, section = sentence_questions(doc, segment, section)
                for candidate in [*line_questions(doc, segment), *stated]:
                    if _holds_on_its_page(doc, candidate):
                        candidate = _specific(doc, candidate)
                        if candidate is not None:
                            found[plain(candidate.text)].append(candidate)
    questions = []
    for same in found.values():
        if len({plain(c.answers[0]) for c in same}) > 1:
            continue  # one question, several values: which one is meant is unclear
        first = same[0]
        key = (doc.name, plain(first.subject), plain(first.answers[0]))
        said = (doc.name, plain(first.origin.get("statement", first.text)), plain(first.answers[0]))
        if key in taken or said in taken:
            continue  # asked already, or the same sentence's same value asked another way
        taken.update({key, said})
        questions.append(_question(first, frozenset(c.page_idx for c in same), _named(first, doc, docs)))
    return questions


def _specific(doc: Document, candidate: Candidate) -> Candidate | None:
    """The candidate when its subject names one thing in the document; when it does only within the section it is
    in (`the default format` of many, under the heading `Format`), the question says so (`In the section on
    Format, what is the default format?`); else None."""
    if candidate.kind not in ("sentence", "label") or candidate.origin.get("scoped"):
        return candidate
    if _GLOBAL_NAME.match(candidate.subject):
        return candidate  # `--num-callers`, `GNUPLOT_PS_DIR`: a name that means one thing anywhere
    subject = candidate.subject
    if candidate.origin.get("statement", "").startswith(f"{subject} ") and subject.islower() and subject[0].isalpha():
        return candidate  # `fillcolor may be ...`: a sentence starting in lower case starts with a keyword
    anaphoric = _ANAPHORIC.search(subject) and len(doc.pages) >= LONG_DOCUMENT
    if not anaphoric and doc.specific(subject):
        return candidate
    topic = candidate.origin.get("section")
    if not topic or plain(topic) == plain(candidate.subject) or not doc.holds(candidate.page_idx, topic):
        return None
    if not doc.specific(candidate.subject, within=topic):
        return None
    text = f"In the section on {topic}, {candidate.text[0].lower()}{candidate.text[1:]}"
    if any(holds(text, answer) for answer in candidate.answers):
        return None  # `In the section on Hidden3d, ...` -> `3`: the question would say its answer
    return dataclasses.replace(candidate, text=text, subject=f"{candidate.subject} {topic}")


def _holds_on_its_page(doc: Document, candidate: Candidate) -> bool:
    answers = [a for a in candidate.answers if not holds(candidate.text, a)]
    if len(answers) != len(candidate.answers) and candidate.kind != "definition":
        return False  # the question says its own answer
    if not answers or not doc.holds(candidate.page_idx, candidate.answers[0]):
        return False
    return all(doc.holds(candidate.page_idx, word) for word in content_words(candidate.subject))


def _named(candidate: Candidate, doc: Document, docs: Sequence[Document]) -> bool:
    """Whether another document holds every word of the subject: then the question names its document."""
    words = content_words(candidate.subject)
    return any(other is not doc and all(w in other.word_pages for w in words) for other in docs)


def _question(candidate: Candidate, pages: frozenset[int], named: bool) -> Question:
    text = candidate.text[:-1] + f" in {candidate.document}?" if named else candidate.text
    answers = tuple(a for a in candidate.answers if not holds(candidate.text, a))
    origin = {
        "from": candidate.origin.get("from", candidate.kind),
        "segment_id": candidate.segment_id,
        "document": candidate.document,
        "page": candidate.page_idx + 1,
        "subject": candidate.subject,
        **{k: v for k, v in candidate.origin.items() if k not in ("from", "scoped")},
    }
    question_id = f"{candidate.kind}:{candidate.segment_id}:{plain(candidate.subject)[:40]}"
    return Question(question_id, text, candidate.kind, (answers,), (Source(candidate.document, pages),), origin)


def spread(
    by_document: Mapping[str, list[Question]], page_counts: Mapping[str, int], count: int, rng: random.Random
) -> list[Question]:
    """Up to `count` questions, one document after another (every document is asked about), each document's in
    turn over its kinds and over stretches of its pages (every part of a long manual, not its first pages)."""
    pools = {d: deque(_in_turn(qs, page_counts.get(d, 1), rng)) for d, qs in sorted(by_document.items())}
    out: list[Question] = []
    while len(out) < count and any(pools.values()):
        for document in sorted(pools):
            if pools[document] and len(out) < count:
                out.append(pools[document].popleft())
    return out


def _in_turn(questions: Iterable[Question], pages: int, rng: random.Random) -> list[Question]:
    """A document's questions in the order a set takes them: its kinds in turn, each over its pages' stretches;
    in a long document, more than PER_PAGE of one page only after all others (a set that is mostly one page's
    table measures that table)."""
    by_kind: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_kind[q.kind].append(q)
    ordered = _round_robin([_by_stretch(by_kind[k], pages, rng) for k in sorted(by_kind, key=_kind_rank)])
    if pages < SPREAD_PAGES:
        return ordered
    on_page: Counter[int] = Counter()
    first, later = [], []
    for q in ordered:
        on_page[q.origin["page"]] += 1
        (first if on_page[q.origin["page"]] <= PER_PAGE else later).append(q)
    return first + later


def _by_stretch(questions: list[Question], pages: int, rng: random.Random) -> deque[Question]:
    stretches: dict[int, list[Question]] = defaultdict(list)
    for q in questions:
        stretches[(q.origin["page"] - 1) * PAGE_BINS // max(pages, 1)].append(q)
    for stretch in stretches.values():
        rng.shuffle(stretch)
    return deque(_round_robin([deque(stretches[k]) for k in sorted(stretches)]))


def _round_robin(queues: list[deque[Question]]) -> list[Question]:
    out = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.popleft())
    return out


def _kind_rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def summary(asked: int, questions: Sequence[Question]) -> dict[str, Any]:
    """What generation gave for `asked` questions: how many, answerable or not, per kind; `answerable_wanted` is
    how many answerable ones a set of that size holds when the workspace gives enough."""
    answerable = sum(q.answerable for q in questions)
    return {
        "asked": asked,
        "generated": len(questions),
        "answerable": answerable,
        "unanswerable": len(questions) - answerable,
        "answerable_wanted": asked - round(asked * PROBE_SHARE),
        "by_kind": dict(sorted(Counter(q.kind for q in questions).items(), key=lambda kv: _kind_rank(kv[0]))),
    }
