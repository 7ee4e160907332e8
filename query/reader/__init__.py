"""The offline answerer (`SEGCITE_LLM_PROVIDER=extractive`): reads the context as a careful reader would and copies
the passage that answers, with its segment id, in the JSON `sections` shape a model writes. `candidates` lists what
may be copied (table rows, label/value lines, sentences; `layout` pairs what the page shows side by side), `clause`
cuts a long sentence to what answers, `extractive` scores and chooses. Every choice passes the fit check
(`query.fit`) before it is given."""
