"""Questions generated from a workspace's segments without a model (design §12): from Document AI's fields and
tables, and from the text every document has (sentences stating a value, label/value lines, definition lists,
tables read as lines), spread over the documents and their pages, with unanswerable probes. Pure."""

from evaluation.generation.pick import PROBE_SHARE, generate, summary

__all__ = ["PROBE_SHARE", "generate", "summary"]
