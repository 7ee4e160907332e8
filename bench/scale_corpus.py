"""bench/bench_scale.py's database: the plan of workspaces, generated text with planted facts, and the build.

- One workspace holds 60% of N, three hold 5%, 2% and 1% (how p95 grows with the workspace), and workspaces of
  0.032% of N (at least 20 segments) hold the rest: at N = 1,000,000 one of 600,000 and 1,000 of 320.
- Text: sentences of made-up words drawn from a Zipf distribution; in each workspace `facts` segments carry a
  planted fact ("The clearance code of <name> is <number>.", the name unique in the database).
- Vectors: the hash embedder's (sparse, in `segcite_hash_vectors`) and, for the `openai` provider's path, synthetic
  clustered vectors of a real model's dimension (768 by default) in LightRAG's chunk table, as a real model's: each
  document has a topic (one of `TOPICS` random directions), a segment's vector is its topic plus noise, a planted
  fact's question is its segment's vector plus a little noise, and a generated question is a topic plus noise.
  `ClusteredEmbeddings` serves them over the OpenAI API (a question it was told of; any other text by its hash).
- Everything is written with COPY (LightRAG's HNSW index is built once after the load, not row by row); the plan
  is kept beside the database (`plan.json`), so `--reuse` measures it again without waiting for a build.
"""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import psycopg
from openai_stub import FakeOpenAI

from ingest import Segment, tagged_text
from worker.embeddings import hash_embed
from worker.rag import OfflineTokenizer, sparse, workspace_name

SHARES = (("60%", 0.6), ("5%", 0.05), ("2%", 0.02), ("1%", 0.01))
SMALL_SHARE = 0.00032
SMALL_LABEL = "small"
SEGMENTS_PER_DOCUMENT = 50
VOCABULARY = 40_000
ZIPF_S = 1.1
LOAD_BATCH = 5_000  # segments per COPY
TOPICS = 1_000
NOISE = 0.8  # a segment's noise against its topic (norms): cosine to its topic about 0.8
QUESTION_NOISE = 0.3  # a planted fact's question against its segment's vector
DENSE_MODEL = "bench-clustered"


@dataclass
class Fact:
    question: str
    segment_id: str


@dataclass
class Workspace:
    label: str
    id: str
    size: int
    facts: list[Fact] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)


def plan(n: int) -> list[Workspace]:
    spaces = [Workspace(label, str(uuid.uuid4()), int(n * share)) for label, share in SHARES]
    small = max(20, int(n * SMALL_SHARE))
    count = (n - sum(w.size for w in spaces)) // small
    return spaces + [Workspace(SMALL_LABEL, str(uuid.uuid4()), small) for _ in range(count)]


class Text:
    """Generated prose: words drawn from a Zipf distribution over a made-up vocabulary. The vocabulary is always
    the same (its own seed), so questions drawn with another `seed` use the corpus's words."""

    def __init__(self, seed: int):
        vocabulary_rng = np.random.default_rng(7)
        syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
        words: dict[str, None] = {}
        while len(words) < VOCABULARY:
            picks = vocabulary_rng.integers(0, len(syllables), size=int(vocabulary_rng.integers(1, 5)))
            words.setdefault("".join(syllables[i] for i in picks), None)
        self.words = list(words)
        self.rng = np.random.default_rng(seed) if seed != 7 else vocabulary_rng

    def sentences(self, count: int, length: int = 12) -> list[str]:
        ranks = np.minimum(self.rng.zipf(ZIPF_S, size=(count, length)), VOCABULARY) - 1
        return [" ".join(self.words[r] for r in row).capitalize() + "." for row in ranks]

    def segment(self) -> str:
        return " ".join(self.sentences(int(self.rng.integers(4, 9))))


def fact_of(rng: random.Random, workspace_index: int, number: int) -> tuple[str, str]:
    """A planted fact and its question: a name and a code word unique in the whole database."""
    name = f"Qx{workspace_index}n{number}var"
    value = rng.randint(100_000, 999_999)
    return f"The clearance code of {name} is {value}.", f"What is the clearance code of {name}?"


def _seed(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


class Clusters:
    """The synthetic model: `TOPICS` unit directions in `dim` dimensions; a text's vector is a topic's plus noise
    seeded by the text, so one text always gets one vector."""

    def __init__(self, dim: int):
        self.dim = dim
        centers = np.random.default_rng(13).standard_normal((TOPICS, dim)).astype(np.float32)
        self.centers = centers / np.linalg.norm(centers, axis=1, keepdims=True)

    def near(self, base: np.ndarray, text: str, noise: float) -> np.ndarray:
        jitter = np.random.default_rng(_seed(text)).standard_normal(self.dim).astype(np.float32)
        vector = base + noise * jitter / np.sqrt(self.dim)
        return vector / np.linalg.norm(vector)

    def of_topic(self, topic: int, text: str) -> np.ndarray:
        return self.near(self.centers[topic % TOPICS], text, NOISE)

    def of_text(self, text: str) -> np.ndarray:
        return self.of_topic(_seed(text), text)


class ClusteredEmbeddings(FakeOpenAI):
    """An OpenAI-compatible embeddings server for the synthetic model: the vectors it was told of (`known`, by
    text), else the text's own (`Clusters.of_text`)."""

    def __init__(self, clusters: Clusters):
        super().__init__()
        self.clusters = clusters
        self.known: dict[str, np.ndarray] = {}

    def default(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if not path.endswith("/embeddings"):
            return super().default(path, body)
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": self.vector_of(t).tolist()} for i, t in enumerate(inputs)
        ]
        return {"object": "list", "model": body["model"], "data": data}

    def vector_of(self, text: str) -> np.ndarray:
        known = self.known.get(text)
        return known if known is not None else self.clusters.of_text(text)


def literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.4g}" for x in vector.tolist()) + "]"


@dataclass
class Tables:
    """Where the build writes: LightRAG's chunk table of the synthetic model, and the hash embedder's model name."""

    dense: str
    hash_model: str
    dim: int


def build(database_url: str, tables: Tables, spaces: list[Workspace], facts: int, say: Callable) -> dict[str, Any]:
    """COPY the planned documents, segments, hash vectors and dense chunks; then LightRAG's HNSW index, once."""
    text, rng, clusters = Text(7), random.Random(7), Clusters(tables.dim)
    hash_dim = int(tables.hash_model.rsplit("-", 1)[1])
    loader = _Loader(tables, clusters, hash_dim)
    figures: dict[str, Any] = {}
    started = time.perf_counter()
    with psycopg.connect(database_url, autocommit=True) as conn:
        index = conn.execute(
            "select indexname, indexdef from pg_indexes where tablename = %s and indexdef ilike '%%hnsw%%'",
            (tables.dense,),
        ).fetchone()
        if index:
            conn.execute(f'drop index "{index[0]}"')
        for number, space in enumerate(spaces):
            planted = set(rng.sample(range(space.size), min(facts, space.size)))
            for document_start in range(0, space.size, SEGMENTS_PER_DOCUMENT):
                document_id = str(uuid.uuid4())
                space.documents.append(document_id)
                topic = rng.randrange(TOPICS)
                count = min(SEGMENTS_PER_DOCUMENT, space.size - document_start)
                loader.documents.append((document_id, space.id, f"gen-{document_start}.json", count))
                for index_in_doc in range(count):
                    body = text.segment()
                    if document_start + index_in_doc in planted:
                        sentence, question = fact_of(rng, number, len(space.facts))
                        body = f"{body} {sentence} {text.segment()}"
                        space.facts.append(Fact(question, f"{document_id}:{index_in_doc}"))
                    segment = Segment(document_id, index_in_doc, index_in_doc, "paragraph", body, None, None, None)
                    loader.add(space, segment, topic)
                if len(loader.pending) >= LOAD_BATCH:
                    loader.flush(conn)
                    rate = loader.loaded / (time.perf_counter() - started)
                    say(f"  loaded {loader.loaded} segments ({rate:.0f}/s)")
        loader.flush(conn)
        figures["load_seconds"] = time.perf_counter() - started
        say(f"  loaded {loader.loaded} segments in {figures['load_seconds']:.0f} s; building the HNSW index")
        started = time.perf_counter()
        conn.execute("set maintenance_work_mem = '4GB'")
        conn.execute("set max_parallel_maintenance_workers = 2")
        if index:
            conn.execute(index[1])
        figures["index_seconds"] = time.perf_counter() - started
        for table in ("document_segments", "segcite_hash_vectors", tables.dense, "documents"):
            conn.execute(f'vacuum analyze "{table}"')
        say(f"  HNSW index built in {figures['index_seconds']:.0f} s")
    return figures


class _Loader:
    def __init__(self, tables: Tables, clusters: Clusters, hash_dim: int):
        self.tables, self.clusters, self.hash_dim = tables, clusters, hash_dim
        self.tokenizer = OfflineTokenizer()
        self.pending: list[tuple[Workspace, Segment, int]] = []
        self.documents: list[tuple[str, str, str, int]] = []
        self.loaded = 0

    def add(self, space: Workspace, segment: Segment, topic: int) -> None:
        self.pending.append((space, segment, topic))

    def flush(self, conn: psycopg.Connection) -> None:
        from lightrag.utils import compute_mdhash_id

        if not self.pending:
            return
        contents = [tagged_text(segment) for _, segment, _ in self.pending]
        hashed = hash_embed(contents, self.hash_dim)
        with conn.transaction():
            with conn.cursor().copy(
                "copy documents (id, workspace_id, filename, status, docai_raw_r2_key, page_count, segment_count, "
                "progress) from stdin"
            ) as copy:
                for document_id, workspace_id, filename, count in self.documents:
                    copy.write_row(
                        (document_id, workspace_id, filename, "ingested", f"docai/{document_id}.json", 1, count, 1)
                    )
            with conn.cursor().copy(
                "copy document_segments (document_id, segment_index, workspace_id, page_idx, kind, text) from stdin"
            ) as copy:
                for space, s, _ in self.pending:
                    copy.write_row((s.document_id, s.segment_index, space.id, s.page_idx, s.kind, s.text))
            with conn.cursor().copy(
                "copy segcite_hash_vectors (model, workspace_id, document_id, segment_index, embedding) from stdin"
            ) as copy:
                for (space, s, _), vector in zip(self.pending, hashed, strict=True):
                    row = (self.tables.hash_model, space.id, s.document_id, s.segment_index, sparse(vector).to_text())
                    copy.write_row(row)
            with conn.cursor().copy(
                f'copy "{self.tables.dense}" (id, workspace, full_doc_id, chunk_order_index, tokens, content, '
                "content_vector, file_path) from stdin"
            ) as copy:
                for (space, s, topic), content in zip(self.pending, contents, strict=True):
                    vector = self.clusters.of_topic(topic, content)
                    copy.write_row(
                        (
                            compute_mdhash_id(content, prefix="chunk-"),
                            workspace_name(space.id),
                            s.document_id,
                            s.segment_index,
                            len(self.tokenizer.encode(content)),
                            content,
                            literal(vector),
                            f"{s.document_id}.json",
                        )
                    )
        self.loaded += len(self.pending)
        self.pending, self.documents = [], []


def save_plan(path: Path, tables: Tables, spaces: list[Workspace], figures: dict[str, Any]) -> None:
    body = {"tables": asdict(tables), "figures": figures, "workspaces": [asdict(s) for s in spaces]}
    path.write_bytes(orjson.dumps(body))


def load_plan(path: Path) -> tuple[Tables, list[Workspace], dict[str, Any]]:
    body = orjson.loads(path.read_bytes())
    spaces = [
        Workspace(w["label"], w["id"], w["size"], [Fact(**f) for f in w["facts"]], w["documents"])
        for w in body["workspaces"]
    ]
    return Tables(**body["tables"]), spaces, body["figures"]
