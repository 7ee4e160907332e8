"""Small parts of the parse stage on real servers where they need one: the per-project Document AI budget on a
real Redis (a fake clock, so nothing waits), the page plan of a parse, and a ProcessResponse read as its
document by ingest (segments and page images)."""

from __future__ import annotations

import orjson
import pytest
import redis

from worker.embedded import redis_client_url
from worker.parsing.ratelimit import RateLimiter
from worker.parsing.shards import Shard, plan, set_offset, shard_key


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def client(services):
    client = redis.Redis.from_url(redis_client_url(services.redis_url))
    yield client
    client.close()


def test_the_budget_lets_a_burst_through_then_one_request_per_interval(client) -> None:
    clock = Clock()
    project = f"p-{clock.now}-{id(clock)}"
    limiter = RateLimiter(client, project, 60, clock=clock, sleep=clock.sleep)  # a burst of 6, then 1 a second
    waits = [limiter.wait() for _ in range(9)]
    assert waits[:6] == [0, 0, 0, 0, 0, 0]
    assert [round(w, 2) for w in waits[6:]] == [1.0, 1.0, 1.0]
    # Another worker's limiter on the same project shares the budget; another project has its own.
    assert round(RateLimiter(client, project, 60, clock=clock, sleep=clock.sleep).wait(), 2) == 1.0
    assert RateLimiter(client, project + "-other", 60, clock=clock, sleep=clock.sleep).wait() == 0


def test_600_a_minute_lets_a_200_page_pdfs_14_requests_start_together(client) -> None:
    clock = Clock()
    limiter = RateLimiter(client, f"q-{id(clock)}", 600, clock=clock, sleep=clock.sleep)
    assert [limiter.wait() for _ in range(14)] == [0] * 14
    assert len(plan(200, 15)) == 14


def test_the_plan_covers_every_page_once_in_ranges_of_at_most_the_limit() -> None:
    assert plan(35, 15) == [Shard(0, 3, 0, 15), Shard(1, 3, 15, 30), Shard(2, 3, 30, 35)]
    assert plan(60, 30) == [Shard(0, 2, 0, 30), Shard(1, 2, 30, 60)]
    assert plan(1, 15) == [Shard(0, 1, 0, 1)]
    assert Shard(1, 3, 15, 30).describe() == "pages 16-30" and Shard(0, 1, 0, 1).describe() == "page 1"
    assert shard_key("ws/report.pdf", 0) == "ws/report.pdf.docai/0001.json"


def test_a_shards_offset_is_set_only_where_it_differs() -> None:
    shard = orjson.dumps({"text": "héllo", "shardInfo": {"shardIndex": "1", "shardCount": "2", "textOffset": "0"}})
    updated, length = set_offset(shard, 7)
    assert length == 5 and orjson.loads(updated)["shardInfo"]["textOffset"] == 7
    assert set_offset(updated, 7) == (None, 5)


def test_a_process_response_is_read_as_the_document_it_wraps() -> None:
    """ingest is the one reader of Document AI JSON: segments and page images alike see a wrapper's document."""
    import base64
    import io

    from PIL import Image

    from ingest import build_segments
    from ingest.page_images import page_images

    png = io.BytesIO()
    Image.new("RGB", (40, 20), "white").save(png, "PNG")
    image = {"content": base64.b64encode(png.getvalue()).decode(), "mimeType": "image/png", "width": 40, "height": 20}
    page = {"pageNumber": 1, "image": image, "layout": {"textAnchor": {"textSegments": [{"endIndex": "8"}]}}}
    document = orjson.dumps({"text": "Invoice\n", "pages": [page]})
    wrapped = b'{"document": ' + document + b', "humanReviewStatus": {}}'
    assert build_segments(wrapped, "d") == build_segments(document, "d")
    assert [s.text for s in build_segments(wrapped, "d")] == ["Invoice"]
    assert [(p.page_idx, p.width, p.height) for p in page_images(wrapped)] == [(0, 40, 20)]
    odd = b'{"text": "x", "document": {"text": "y"}}'  # a Document with a field of that name is not a wrapper
    assert [s.text for s in build_segments(odd, "d")] == ["x"]


def test_both_object_stores_tell_a_pdf_by_its_first_bytes_and_list_its_shards(tmp_path) -> None:
    """`head` and `keys` (what the parse stage asks of the object store) on a folder and on moto's S3 server."""
    import uuid

    from conftest import free_port
    from moto.server import ThreadedMotoServer

    from worker.objects import LocalFolderStore, R2Store
    from worker.settings import Settings

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    try:
        bucket = f"parse-{uuid.uuid4().hex[:8]}"
        r2 = R2Store(
            Settings(
                _env_file=None,
                r2_endpoint_url=f"http://127.0.0.1:{port}",
                r2_bucket=bucket,
                r2_access_key_id="test",
                r2_secret_access_key="test-secret",
            )
        )
        r2.client.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "auto"})
        for objects in (LocalFolderStore(tmp_path), r2):
            objects.put("ws/report.pdf", b"%PDF-1.7\n" + b"x" * 5000, "application/pdf")
            objects.put("ws/report.pdf.docai/0002.json", b"{}")
            objects.put("ws/report.pdf.docai/0001.json", b"{}")
            objects.put("ws/empty.bin", b"")
            assert objects.head("ws/report.pdf", 8) == b"%PDF-1.7", objects
            assert objects.head("ws/empty.bin", 8) == b""
            assert objects.head("ws/missing.pdf", 8) is None
            assert objects.head("ws/report.pdf.docai/", 8) is None  # a prefix holds no bytes of its own
            assert objects.keys("ws/report.pdf.docai/") == [
                "ws/report.pdf.docai/0001.json",
                "ws/report.pdf.docai/0002.json",
            ]
            assert objects.keys("ws/none/") == []
    finally:
        server.stop()
