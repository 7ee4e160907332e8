"""The same questions asked of a document's Document AI JSON and of its page images parsed offline (issue 43).

    python bench/bench_ocr_answers.py [--questions bench/ocr_questions.json] [--verbose] [--keep]

Every fixture of ../shared/fixtures whose pages carry their images (bench/bench_ocr.py's `fixture_documents`: each
photo once) is ingested twice, through `segcite ingest` on the embedded services (a fresh SEGCITE_HOME under /tmp,
the offline answerer and embedder): its Document AI JSON into one workspace, its page images into another (the
image as stored in the JSON; a PDF of them for a document of several pages, as a scanner writes one), which the
`local` parser reads. Each question is asked of both workspaces with `segcite ask --json` and scored by
`evaluation.scoring.score_answer`, the scorer `segcite eval` uses. Documents are named by the fixture's file name
without its extension in both, so a question names the same document in each.

Prints right / not found / wrong for each workspace, the documents that failed to ingest, and the questions whose
outcomes differ (`--verbose`: every question, with the answer's first words).
"""

from __future__ import annotations

import argparse
import io
import re
import tempfile
import time
from pathlib import Path

import orjson
from bench_answers import load_questions, segcite, stop_services
from bench_ocr import FixtureDocument, fixture_documents
from PIL import Image

from evaluation import Question, score_answer
from evaluation.scoring import NOT_FOUND, RIGHT, WRONG, Score
from parse import detect_kind

REPO = Path(__file__).resolve().parent.parent
WORKSPACES = {"json": "ocr-bench-json", "image": "ocr-bench-image"}
INGESTED = re.compile(r"^(?P<name>.+?): ingested, .*document (?P<id>[0-9a-f-]{36})$")


def image_file(document: FixtureDocument, folder: Path) -> Path:
    """The document's page images as a user would upload them: the one image, or a PDF of its pages."""
    stem = document.path.stem
    if len(document.pages) == 1:
        data = document.pages[0].image
        path = folder / f"{stem}.{detect_kind(data) or 'png'}"
        path.write_bytes(data)
        return path
    pictures = [Image.open(io.BytesIO(page.image)).convert("RGB") for page in document.pages]
    path = folder / f"{stem}.pdf"
    pictures[0].save(path, format="PDF", resolution=200, save_all=True, append_images=pictures[1:])
    return path


def json_file(document: FixtureDocument, folder: Path) -> Path:
    """The document's Document AI JSON (a ProcessResponse's document, as the app would store it)."""
    path = folder / f"{document.path.stem}.json"
    path.write_bytes(orjson.dumps(document.document))
    return path


def ingest(paths: list[Path], workspace: str, home: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Document id -> the file's stem, for the files ingested; file name -> error line, for those that failed."""
    done = segcite(["ingest", *map(str, paths), "--workspace", workspace], home, timeout=3600)
    names, failed = {}, {}
    for line in done.stdout.decode().splitlines():
        if match := INGESTED.match(line.strip()):
            names[match["id"]] = Path(match["name"]).stem
    for line in done.stderr.decode().splitlines():
        name, sep, error = line.partition(": failed: ")
        if sep:
            failed[Path(name).name] = error
    return names, failed


def ask(question: Question, workspace: str, home: Path, names: dict[str, str]) -> tuple[Score, str]:
    """The question's score, and the answer's text (or why it failed)."""
    start = time.perf_counter()
    done = segcite(["ask", question.text, "--json", "--workspace", workspace], home, timeout=600)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        error = done.stderr.decode().strip()
        return score_answer(question, None, names, seconds=seconds, error=error), error
    payload = orjson.loads(done.stdout)
    return score_answer(question, payload, names, seconds=seconds), payload.get("content") or ""


def counts(scores: list[Score]) -> dict[str, int]:
    return {outcome: sum(s.outcome == outcome for s in scores) for outcome in (RIGHT, NOT_FOUND, WRONG, "error")}


def report(results: dict[str, list[Score]], answers: dict[str, list[str]], verbose: bool) -> None:
    print(f"\n{'':18} {'right':>6} {'not found':>10} {'wrong':>6} {'error':>6}")
    for kind, scores in results.items():
        c = counts(scores)
        print(f"{kind:18} {c[RIGHT]:6d} {c[NOT_FOUND]:10d} {c[WRONG]:6d} {c['error']:6d}")
    print()
    json_scores, image_scores = results["Document AI JSON"], results["page image"]
    for n, (a, b) in enumerate(zip(json_scores, image_scores, strict=True)):
        if verbose or a.outcome != b.outcome:
            print(f"{a.question.id:24} json {a.outcome:9} image {b.outcome:9} {a.question.text}")
            if verbose:
                print(f"    json:  {answers['json'][n][:160]!r}\n    image: {answers['image'][n][:160]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=REPO / "bench" / "ocr_questions.json")
    parser.add_argument("--fixtures", type=Path, default=REPO.parent / "shared" / "fixtures")
    parser.add_argument("--verbose", action="store_true", help="every question, with the start of both answers")
    parser.add_argument("--keep", action="store_true", help="leave the services running and the home in place")
    args = parser.parse_args()
    documents = fixture_documents(args.fixtures)
    if not documents:
        print(f"skipped: no Document AI fixtures with page images under {args.fixtures}")
        return
    questions = load_questions(args.questions)
    home = Path(tempfile.mkdtemp(prefix="sc-ocr-", dir="/tmp"))  # short: unix socket paths are limited
    (home / "json").mkdir()
    (home / "image").mkdir()
    try:
        results: dict[str, list[Score]] = {}
        answers: dict[str, list[str]] = {}
        for kind, label, make in (("json", "Document AI JSON", json_file), ("image", "page image", image_file)):
            started = time.perf_counter()
            names, failed = ingest([make(d, home / kind) for d in documents], WORKSPACES[kind], home)
            print(f"{label}: {len(names)} documents ingested in {time.perf_counter() - started:.0f} s", end="")
            print(f"; failed: {failed}" if failed else "")
            asked = [ask(q, WORKSPACES[kind], home, names) for q in questions]
            results[label] = [score for score, _ in asked]
            answers[kind] = [text for _, text in asked]
        report(results, answers, args.verbose)
    finally:
        if not args.keep:
            stop_services(home)


if __name__ == "__main__":
    main()
