"""Question fit (design §5.9): does each claim answer the question, and so what the answer's status is.

`check.FitCheck` runs the checks in order, a module each: `not_found`, `label`, `focus`, `kind`, `scope`, then the
subpackage `relation` says whether a claim that fits is verified (its passage states the value as what was asked,
which `answered` promises); `asked`
reads the question once for all of them, `words` is how they read a claim, `documents` which part of a document a
segment speaks for, `verdict` what a check says (`Fit`) and what the sections' fits make of the answer
(`answer_status`)."""
