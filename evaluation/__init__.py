"""Evaluation, pure (design §12): questions generated from a workspace's segments or read from a user's file, and
the one scorer of answers. No I/O, no storage, no Celery: `worker/evalrun/` runs the questions."""

from evaluation.normalize import holds, holds_all, tokens
from evaluation.questions import Question, QuestionFileError, SegmentRef, Source, generate, parse_question_lines
from evaluation.scoring import Score, compare, figures, gate, score_answer

__all__ = [
    "Question",
    "QuestionFileError",
    "Score",
    "SegmentRef",
    "Source",
    "compare",
    "figures",
    "gate",
    "generate",
    "holds",
    "holds_all",
    "parse_question_lines",
    "score_answer",
    "tokens",
]
