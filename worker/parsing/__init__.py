"""The parse stage (design §3a): a document whose object is a PDF or an image becomes Document AI JSON, stored as
shards beside the original (`<key>.docai/0001.json`…), which the ingest then reads as it reads any shards.

- `stage`: the work behind the tasks (start a parse, parse one shard, finish), on the runtime's stores;
- `documentai`: the adapter to Google's online `process_document` (errors mapped to ours);
- `ratelimit`: one per-project budget of online requests a minute, shared by every worker through Redis;
- `shards`: the page ranges of a parse and the keys its shards live under;
- `online`: Document AI for one file on this machine, without Celery (`segcite parse`).
The parsing itself (PDF text layer, OCR) is the pure `parse` package's.
"""
