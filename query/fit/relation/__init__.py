"""The relation check (design §5.9): `answered` is a promise, given only where the claim is *verified*: the cited
passage states the claim's value as the asked attribute of the asked subject. Three forms count:
- a label and its value ("Balance Due: $4,647.68", a form's field, a label line over its value line): the words right
  before the value name the attribute asked, every word of it, with nothing but function words, other field names or
  a parenthesis between them and the value;
- a table cell: the column's head and the row's label name the attribute and the row asked ("Laptop" under "Rate");
- a sentence whose relation is the question's: the attribute or the question's verb right before the value ("the
  default viewer is xdg-open", "the tutorial was written by Charles Staats", "supplies used for Project Q"), or a
  definition right after it ("Cymbal Inc. (the Licensor)", "xdg-open is the default viewer").
In each form, the words that say whose attribute it is (the subject: "the *earlier application*'s filing date") are
said around the value or by the document's title, half of them at least. Anything else the answerer offers (a
sentence that shares the question's words, a value near them) is not verified, and the answer is `uncertain`.

Only the passage is read, never how the claim was written: a model's paraphrase is verified by the passage's unit
(line, sentence, table row, or pair its boxes show) holding the claim's value, an extractive answer by the unit it
was copied from.

A module a role: `units` reads a passage (its units, a value's lead and trail), `reading` the question once,
`naming` whether the words around a value name the attribute, `subject` whose attribute it is, `clause` what the
value's clause says of it, and `check` composes them (`RelationCheck`).
"""

from query.fit.relation.check import CELL, LABEL, SENTENCE, RelationCheck, Verification

__all__ = ["CELL", "LABEL", "SENTENCE", "RelationCheck", "Verification"]
