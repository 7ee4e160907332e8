"""The citation path (design §5.2-5.8, the seeds' path): the prompt a model reads (`prompt`), its reply parsed into
sections (`parse`), every source id checked (`ids`), each section resolved to the segments that back it (`resolve`,
with support judged by `verify` and the text-match fallback of `match`), the passage of each citation (`quote`),
the inline markers (`markers`) and the message payload (`answer`). `model` holds the types they pass along, `defuse`
what keeps anything tag-like out of what a reader sees."""
