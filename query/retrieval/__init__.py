"""The pure half of retrieval (design §4; the I/O half is worker/retrieval.py): the question's full-text search
terms, and the fusion of the searches' rankings into the context (`fusion`)."""
