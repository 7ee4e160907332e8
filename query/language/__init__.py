"""What the words say, read alike by the citation path, the offline reader and the fit check: words, stems,
stopwords and scripts (`terms`), a question's kind, focus and names (`question`), values of a kind and a text's
label (`values`), a claim's and a passage's content words and numbers (`lexical`)."""
