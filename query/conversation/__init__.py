"""A question read with its conversation (design §5.10): the standalone question a follow-up stands for, by rules
(`standalone`: the subject earlier turns named, `subject`, carried into a question that leaves it out, in the words
of `words`), and the model's rewrite call, its messages and the reading of its reply (`prompt`)."""

from query.conversation.prompt import REWRITE_MAX_TOKENS, read_rewrite, rewrite_messages
from query.conversation.standalone import Standalone, standalone_question

__all__ = ["REWRITE_MAX_TOKENS", "Standalone", "read_rewrite", "rewrite_messages", "standalone_question"]
