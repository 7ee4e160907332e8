"""The static parts of `segcite view`'s page (worker/view.py): its CSS, which `segcite eval`'s report shares
(worker/evalrun/html.py), its head, and the little script that shows one citation's page at a time."""

# The page's CSS, which `segcite eval`'s report shares (worker/evalrun/html.py).
VIEW_STYLE = """:root { color-scheme: light; --accent: #b45309; --mark: rgba(255, 204, 0, 0.38); }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328;
  background: #f6f7f9; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.1fr); gap: 1.5rem; padding: 1.5rem;
  max-width: 1400px; margin: 0 auto; }
.reading, .viewer { min-width: 0; }
.viewer { position: sticky; top: 1rem; align-self: start; max-height: calc(100vh - 2rem); overflow: auto; }
.question { background: #fff; border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
.label { font-weight: 600; margin-right: .4rem; }
.answer { background: #fff; border-radius: 8px; padding: .25rem 1rem; overflow-wrap: anywhere; }
button { font: inherit; cursor: pointer; }
.marker { border: 0; background: #fde68a; color: #7c2d12; border-radius: 4px; padding: 0 .25rem; margin: 0 .05rem;
  font-size: .85em; font-weight: 600; vertical-align: baseline; }
.marker[aria-pressed="true"], .show[aria-pressed="true"] { background: var(--accent); color: #fff; }
button:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
.citations h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
.citations ol { padding-left: 1.6rem; margin: 0; }
.citation { background: #fff; border-radius: 8px; padding: .6rem .8rem; margin-bottom: .6rem; overflow-wrap: anywhere; }
.meta { font-size: .85rem; color: #57606a; }
.document { font-weight: 600; color: #1f2328; }
blockquote { margin: .4rem 0; padding-left: .7rem; border-left: 3px solid #fbbf24; }
.warning { margin: .3rem 0; color: #9a3412; font-size: .9rem; }
.uncertain { margin: .5rem 0; padding: .4rem .6rem; border-left: 4px solid #d97706; background: #fffbeb;
  color: #92400e; }
.note { color: #9a3412; font-size: .9rem; }
.show { border: 1px solid #d0d7de; background: #f6f8fa; border-radius: 6px; padding: .15rem .6rem; font-size: .85rem; }
.hint { color: #57606a; }
.stepper { display: flex; align-items: center; justify-content: space-between; gap: .5rem; margin-bottom: .6rem; }
.step { border: 1px solid #d0d7de; background: #fff; border-radius: 6px; padding: .2rem .7rem; font-size: .9rem; }
.step:disabled { color: #8c959f; cursor: default; }
.position { color: #1f2328; font-size: .9rem; font-weight: 600; text-decoration: none; }
.position:hover { text-decoration: underline; }
.page-view { margin: 0; }
figcaption { font-size: .9rem; color: #57606a; margin-bottom: .4rem; }
.page-frame { position: relative; line-height: 0; background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.18); }
/* Document AI's boxes are relative to the image as stored: a JPEG's EXIF orientation must not turn it. */
.page-image { display: block; width: 100%; height: auto; image-orientation: none; }
.page-image.blank { background: repeating-linear-gradient(45deg, #fff, #fff 12px, #f3f4f6 12px, #f3f4f6 24px); }
.highlight { position: absolute; display: none; background: var(--mark); outline: 2px solid var(--accent);
  mix-blend-mode: multiply; pointer-events: none; }
.highlight.active { display: block; }
@media (max-width: 820px) {
  .layout { grid-template-columns: minmax(0, 1fr); padding: .75rem; gap: 1rem; }
  .viewer { position: static; max-height: none; overflow: visible; }
}
"""

HEAD = (
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<link rel="icon" href="data:,">
<title>segcite answer</title>
<style>
"""
    + VIEW_STYLE
    + """</style></head><body>
"""
)

# One citation shown at a time: its page, its boxes highlighted, its markers pressed, its number in the address
# (#cN, so the page can be linked at that citation). Opened with no #cN, the first is shown and only the viewer
# pane scrolls: on a phone, where the pages come under the answer, the reader starts at the answer.
SCRIPT = """<script>
(function () {
  "use strict";
  var order = Array.prototype.map.call(document.querySelectorAll("li.citation"), function (item) {
    return item.getAttribute("value");
  });
  var viewer = document.getElementById("viewer");
  var position = document.getElementById("position");
  var current = null;
  function show(number, scroll) {
    var active = document.querySelectorAll('.highlight[data-citation="' + number + '"]');
    var page = active.length ? active[0].closest(".page-view") : null;
    var button = document.querySelector('button[data-citation="' + number + '"]');
    if (!page && button) { page = document.getElementById(button.getAttribute("aria-controls")); }
    document.querySelectorAll(".page-view").forEach(function (p) { p.hidden = p !== page; });
    document.querySelectorAll(".highlight").forEach(function (h) {
      h.classList.toggle("active", h.getAttribute("data-citation") === number);
    });
    document.querySelectorAll("button[data-citation]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-citation") === number ? "true" : "false");
    });
    current = number;
    var index = order.indexOf(number);
    if (position) {
      position.textContent = "Citation " + (index + 1) + " of " + order.length;
      position.setAttribute("href", "#c" + number);
    }
    document.querySelectorAll("button[data-step]").forEach(function (b) {
      var to = index + Number(b.getAttribute("data-step"));
      b.disabled = to < 0 || to >= order.length;
    });
    if (location.hash !== "#c" + number) {
      try { history.replaceState(null, "", "#c" + number); } catch (error) { /* an address that cannot change */ }
    }
    var target = active.length ? active[0] : page;
    if (!target) { return; }
    if (scroll) {
      target.scrollIntoView({block: "center", inline: "nearest"});
    } else if (viewer.scrollHeight > viewer.clientHeight) {
      var into = target.getBoundingClientRect().top - viewer.getBoundingClientRect().top;
      viewer.scrollTop += into - (viewer.clientHeight - target.getBoundingClientRect().height) / 2;
    }
  }
  function step(delta) {
    var to = order.indexOf(current) + delta;
    if (to >= 0 && to < order.length) { show(order[to], true); }
  }
  function linked() {
    var found = /^#c([0-9]+)$/.exec(location.hash);
    return found && order.indexOf(found[1]) >= 0 ? found[1] : null;
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-citation], button[data-step]");
    if (!button) { return; }
    if (button.hasAttribute("data-step")) { step(Number(button.getAttribute("data-step"))); }
    else { show(button.getAttribute("data-citation"), true); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) { return; }
    var delta = {ArrowLeft: -1, ArrowRight: 1}[event.key];
    if (delta && current !== null) { event.preventDefault(); step(delta); }
  });
  window.addEventListener("hashchange", function () {
    var number = linked();
    if (number && number !== current) { show(number, true); }
  });
  if (order.length) {
    var number = linked();
    show(number || order[0], number !== null);
  }
})();
</script>
"""
