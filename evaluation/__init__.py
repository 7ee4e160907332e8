"""Evaluation, pure (design §12): questions generated from a workspace's segments or read from a user's file, the
one scorer of answers and the figures of many. No I/O, no storage, no Celery: `worker/evalrun/` runs the
questions."""

from evaluation.figures import calibration, compare, figures, gate, headline
from evaluation.generation import generate
from evaluation.normalize import holds, holds_all, tokens
from evaluation.questions import Question, QuestionFileError, SegmentRef, Source, parse_question_lines
from evaluation.scoring import Score, score_answer

__all__ = [
    "Question",
    "QuestionFileError",
    "Score",
    "SegmentRef",
    "Source",
    "calibration",
    "compare",
    "figures",
    "gate",
    "generate",
    "headline",
    "holds",
    "holds_all",
    "parse_question_lines",
    "score_answer",
    "tokens",
]
