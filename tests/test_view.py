"""`segcite view` (issue 27) in a real browser: Debian's Chromium driven by Playwright, from file:// with no network.

For every citation marker: clicking it (or pressing Enter on it) shows the cited page, and each of the quote's
boxes is highlighted where box * image rect puts it, within a pixel, scrolled into view; no console errors, no
request leaves the page, and at a phone's width nothing overflows sideways.
"""

from __future__ import annotations

import base64
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import REPO, service_env
from conftest import segcite as run

from ingest import build_segments
from ingest.page_images import page_images
from query import build_answer
from worker.view import AnswerView, PageView, render_view

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
# Answers over real outputs, as a model writes them (sections with their ids), resolved by the worker's path: an
# invoice over two pages, a form with a table, a page photographed upside down and skewed, one turned four ways.
CASES = {
    "invoice": (
        "docai/invoice_parser_edf_2p_snake_case.json",
        "How much is the invoice and when is it paid?",
        [
            ("The invoice of 11/12/2022 comes to 62,86 € TTC.", 0),
            ("The amount of 62,86 € will be debited on 28/12/2022.", 1),
            ("Of it, 264 kWh of consumption come to 25,71 € before tax.", 2),
        ],
    ),
    "form-table": (
        "docai-real/form_pix2info_d_table_with_borders_snake.json",
        "What does the form ask for, and what is in its table's last row?",
        [
            ("The form asks to list the 24 letters of the Greek alphabet.", 0),
            ("Its table's last row holds RHO, TAU, PHI and OMEGA.", 1),
        ],
    ),
    "upside-down": (
        "docai-real/ocr_pix2info_d_upside_down_snake.json",
        "What did Deep Thought say?",
        [("Forty-two, said Deep Thought with infinite majesty.", 0)],
    ),
    "four-orientations": (
        "docai-real/ocr_pix2info_e_multiple_orientations_snake.json",
        "How did Deep Thought answer?",
        [("Said Deep Thought: forty-two, and calm, with infinite majesty.", 0)],
    ),
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")
    if executable is None:
        pytest.skip("no Chromium at /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=LAUNCH_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def offline_view(source: Path, question: str, sections: list[tuple[str, int]]) -> tuple[AnswerView, list[dict]]:
    """The answer (`sections`: claim, cited segment index) over a real output, resolved by `build_answer` with the
    page images the document carries, as `segcite view` shows it."""
    data = source.read_bytes()
    document_id = source.stem.split("_")[0]
    segments = build_segments(data, document_id)
    images = {image.page_idx: image for image in page_images(data)}
    keys = {(document_id, i): {"key": f"{i}.img", "width": m.width, "height": m.height} for i, m in images.items()}
    reply = {"sections": [{"text": t, "source_ids": [f"{document_id}:{i}"]} for t, i in sections]}
    payload = build_answer(orjson.dumps(reply).decode(), context=segments, page_images=keys)
    citations = payload["metadata"]["citations"]
    pages: dict[int, PageView] = {}
    for citation in citations:
        page_idx = citation["page_idx"]
        if page_idx not in pages:
            image = images[page_idx]
            uri = f"data:{image.mime};base64,{base64.b64encode(image.data).decode()}"
            pages[page_idx] = PageView(document_id, page_idx, image.width, image.height, uri)
        pages[page_idx].citations.append(citation)
    view = AnswerView(question, payload["content"], citations, {document_id: source.name}, list(pages.values()))
    return view, citations


def test_the_page_escapes_what_it_shows_and_says_each_citations_trust() -> None:
    citation = {
        "number": 1,
        "document_id": "d<1>",
        "page_idx": 2,
        "quote": {"text": "Revenue <b>fell</b> by 16%."},
        "boxes": [{"page_idx": 2, "x0": 0.1, "y0": 0.2, "x1": 0.5, "y1": 0.25}],
        "citation_status": "cited",
        "support": 0.2,
        "warning": "contradicts: 16 vs 61",
    }
    page = PageView("d<1>", 2, 8.5, 11.0, None, [citation])
    content = "Revenue rose by 61% in [2023] <script>alert(1)</script> [1]."
    html_text = render_view(AnswerView("Why <i>?", content, [citation], {"d<1>": "r&d.json"}, [page]))
    assert "<script>alert(1)</script>" not in html_text and "&lt;script&gt;alert(1)&lt;/script&gt;" in html_text
    assert "in [2023] " in html_text  # not a citation: stays text
    assert html_text.count('class="marker" data-citation="1"') == 1
    assert "Revenue &lt;b&gt;fell&lt;/b&gt; by 16%." in html_text and "Why &lt;i&gt;?" in html_text
    assert "r&amp;d.json" in html_text and "page 3" in html_text and "support 20%" in html_text
    assert "⚠ contradicts: 16 vs 61" in html_text
    assert 'id="page-d&lt;1&gt;-2"' in html_text and 'aria-controls="page-d&lt;1&gt;-2"' in html_text
    assert 'style="left:10.0000%;top:20.0000%;width:40.0000%;height:5.0000%"' in html_text
    assert "padding-top:129.4118%" in html_text  # no image stored: a blank page of the letter shape


def check_in_browser(browser: Any, html_file: Path, citations: list[dict[str, Any]], *, width: int = 1280) -> Any:
    """Opens the file and checks every marker; returns the page (still open) for a screenshot."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith(("data:", "file:")) else problems.append(r.url))
    page.goto(html_file.as_uri())
    # It opens on the first citation (issue 43: it opened blank); on a phone, where the pages come under the
    # answer, without scrolling away from the answer.
    _check_shown(page, citations[0], in_view=width > 820)
    assert page.evaluate("window.scrollY") == 0
    markers = page.locator(".answer button.marker")
    assert markers.count() >= len(citations) >= 1
    by_number = {c["number"]: c for c in citations}
    for index in range(markers.count()):
        marker = markers.nth(index)
        number = int(marker.get_attribute("data-citation"))
        if index % 2:
            marker.focus()
            page.keyboard.press("Enter")  # keyboard-usable
        else:
            marker.click()
        _check_shown(page, by_number[number])
        assert marker.get_attribute("aria-pressed") == "true"
    # The citation list's own buttons show the same.
    for citation in citations:
        page.locator(f"#cite-{citation['number']} button.show").click()
        _check_shown(page, citation)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a {width}px screen"
    assert problems == []
    return page


def _check_shown(page: Any, citation: dict[str, Any], *, in_view: bool = True) -> None:
    shown = page.locator(".page-view:not([hidden])")
    assert shown.count() == 1
    assert (shown.get_attribute("data-document"), int(shown.get_attribute("data-page"))) == (
        citation["document_id"],
        citation["page_idx"],
    )
    image = shown.locator(".page-image").bounding_box()
    active = shown.locator(".highlight.active")
    boxes = [b for b in citation["boxes"] if b["page_idx"] == citation["page_idx"]]
    assert active.count() == len(boxes) >= 1
    assert page.locator(".highlight.active").count() == len(boxes)  # no other citation's highlight shows
    for box, element in zip(boxes, active.all(), strict=True):
        rect = element.bounding_box()
        expected = {
            "x": image["x"] + box["x0"] * image["width"],
            "y": image["y"] + box["y0"] * image["height"],
            "width": (box["x1"] - box["x0"]) * image["width"],
            "height": (box["y1"] - box["y0"]) * image["height"],
        }
        assert all(abs(rect[k] - expected[k]) <= 1.0 for k in expected), (box, rect, expected)
    assert page.evaluate("location.hash") == f"#c{citation['number']}"  # its address links this citation
    if in_view:
        first = active.first.bounding_box()
        height = page.evaluate("window.innerHeight")
        assert first["y"] >= 0 and first["y"] + min(first["height"], height / 2) <= height, "not scrolled into view"


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_marker_shows_its_page_with_the_quote_highlighted(
    browser: Any, docai_dir: Path, docai_real_dir: Path, tmp_path: Path, case: str
) -> None:
    path, question, sections = CASES[case]
    view, citations = offline_view(docai_dir.parent / path, question, sections)
    assert [c["citation_status"] for c in citations] == ["cited"] * len(sections)
    assert all(c["page_image"] is not None and c["boxes"] for c in citations)
    html_file = tmp_path / "answer.html"
    html_file.write_text(render_view(view), encoding="utf-8")
    check_in_browser(browser, html_file, citations).close()
    check_in_browser(browser, html_file, citations, width=390).close()  # a phone's width


def test_segcite_view_writes_the_last_answer_as_one_file(
    browser: Any, services, service_home: Path, celery_worker, docai_real_dir: Path, tmp_path: Path
) -> None:
    env = service_env(services, service_home)
    workspace = f"view-{uuid.uuid4().hex[:8]}"
    ingested = run(env, "ingest", str(docai_real_dir / "invoice_parser_1p.json"), "--workspace", workspace)
    assert ingested.returncode == 0, ingested.stderr
    asked = run(env, "ask", "What is the invoice number?", "--workspace", workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    citations = orjson.loads(asked.stdout)["metadata"]["citations"]

    out = tmp_path / "answer.html"
    viewed = run(env, "view", "--last", "--workspace", workspace, "--out", str(out))
    assert viewed.returncode == 0, viewed.stderr
    assert viewed.stdout.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 1  # the one cited page, inlined once
    assert "invoice_parser_1p.json" in page and "http://" not in page and "https://" not in page
    check_in_browser(browser, out, citations).close()

    wrong = run(env, "view", "--workspace", workspace)
    assert (wrong.returncode, wrong.stderr.strip()) == (2, "error: give a MESSAGE_ID or --last (not both)")
    unknown = run(env, "view", str(uuid.uuid4()), "--out", str(out))
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: no message ")


def test_view_opens_on_the_first_citation_links_each_and_steps_between_them(
    browser: Any, services, service_home: Path, celery_worker, tmp_path: Path
) -> None:
    """Issue 43: the page opened blank ("Choose a citation marker…"), no address opened a citation, nothing moved
    from one to the next, and `view --last` wrote into the current folder. A PDF of our own (its pages' images
    from the local parser), asked a two-part question: two citations on two pages."""
    from docai_fake import make_pdf

    env = service_env(services, service_home)
    pages = [
        "Harbor report\nThe Eastwick harbor handled 4,200 ships in 2025.\nIts pilots boarded 310 tankers.",
        "Second page\nThe lighthouse on Gull Rock was rebuilt in 1911.\nIts lamp is seen 18 miles out.",
    ]
    pdf = make_pdf(pages, tmp_path / "harbor.pdf")
    workspace = f"steps-{uuid.uuid4().hex[:8]}"
    assert run(env, "ingest", str(pdf), "--workspace", workspace).returncode == 0
    question = "How many ships did the harbor handle, and when was the lighthouse rebuilt?"
    asked = run(env, "ask", question, "--workspace", workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    citations = orjson.loads(asked.stdout)["metadata"]["citations"]
    assert [(c["number"], c["page_idx"]) for c in citations] == [(1, 0), (2, 1)]
    assert all(c["page_image"] and c["boxes"] for c in citations)

    viewed = run(env, "view", "--last", "--workspace", workspace)  # no --out: under $SEGCITE_HOME/views/
    assert viewed.returncode == 0, viewed.stderr
    out = Path(viewed.stdout.strip())
    assert out.parent == service_home.resolve() / "views" and out.is_file(), viewed.stdout
    assert out.name == f"answer-{orjson.loads(asked.stdout)['message_id'][:8]}.html"
    assert not list(Path(REPO).glob("answer-*.html"))  # nothing in the folder it ran in
    check_in_browser(browser, out, citations).close()  # opens on [1], each marker still shows its page

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(out.as_uri())
        position, previous, following = (
            page.locator("#position"),
            page.locator(".step").first,
            page.locator(".step").last,
        )
        assert (position.inner_text(), previous.is_disabled(), following.is_disabled()) == (
            "Citation 1 of 2",
            True,
            False,
        )
        page.keyboard.press("ArrowRight")
        _check_shown(page, citations[1])
        assert (position.inner_text(), position.get_attribute("href")) == ("Citation 2 of 2", "#c2")
        assert following.is_disabled() and not previous.is_disabled()
        page.keyboard.press("ArrowRight")  # past the last: stays
        _check_shown(page, citations[1])
        previous.click()
        _check_shown(page, citations[0])
        following.click()
        _check_shown(page, citations[1])
        page.keyboard.press("ArrowLeft")
        _check_shown(page, citations[0])
        page.evaluate("location.hash = '#c2'")  # an address edited by hand, or a link followed
        page.wait_for_function("document.getElementById('position').textContent === 'Citation 2 of 2'")
        _check_shown(page, citations[1])
    finally:
        page.close()
    for width in (1280, 390):  # a link to citation 2 opens on it, scrolled to its quote, on a phone too
        linked = browser.new_page(viewport={"width": width, "height": 844})
        try:
            linked.goto(out.as_uri() + "#c2")
            _check_shown(linked, citations[1])
            assert linked.locator("#position").inner_text() == "Citation 2 of 2"
        finally:
            linked.close()
