"""Page images (issue 27, design §3 "Page images", §5.8 `page_image`): read one page at a time from the JSON,
stored once beside it, named by each citation, deleted with the document, and off with SEGCITE_PAGE_IMAGES."""

from __future__ import annotations

import base64
import tracemalloc
import types
import uuid
from pathlib import Path

import orjson
import psycopg
from conftest import segcite as run
from conftest import service_env

from ingest import build_segments
from ingest.page_images import page_images
from query import build_answer
from worker.objects import LocalFolderStore
from worker.page_images import delete_page_images, image_key, store_page_images
from worker.settings import Settings
from worker.stores.postgres import PostgresStore


def test_each_page_image_comes_out_as_the_json_holds_it(docai_dir: Path, docai_real_dir: Path) -> None:
    source = (docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes()
    pages = orjson.loads(source)["pages"]
    images = list(page_images(source))
    assert [(i.page_idx, i.mime, i.width, i.height) for i in images] == [
        (0, "image/jpeg", 1674, 2388),
        (1, "image/jpeg", 1674, 2388),
    ]
    assert [i.data for i in images] == [base64.b64decode(p["image"]["content"]) for p in pages]
    # camelCase, and a page that leaves out mimeType, width and height: its image's own header says them
    [camel] = page_images((docai_real_dir / "invoice_parser_1p.json").read_bytes())
    assert (camel.mime, camel.width, camel.height, camel.extension) == ("image/png", 1758, 2275, "png")
    [bare] = page_images((docai_real_dir / "us_driver_license_dl3_1p.json").read_bytes())
    assert (bare.mime, bare.width, bare.height) == ("image/jpeg", 600, 386)
    # The bytes say what they are: this output labels a JPEG `image/png`.
    [mislabeled] = page_images((docai_real_dir / "ocr_with_symbols_tiny.json").read_bytes())
    assert (mislabeled.mime, mislabeled.extension, mislabeled.width) == ("image/jpeg", "jpg", 600)


def test_shards_give_their_pages_images_in_page_order(docai_dir: Path) -> None:
    document = orjson.loads((docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes())
    first, second = document["pages"]
    shards = [
        orjson.dumps({"text": "", "pages": [second], "shard_info": {"shard_index": "1", "shard_count": "2"}}),
        orjson.dumps({"text": "", "pages": [first], "shard_info": {"shard_index": "0", "shard_count": "2"}}),
    ]
    images = list(page_images(shards))
    assert [i.page_idx for i in images] == [0, 1]
    assert [i.data for i in images] == [base64.b64decode(p["image"]["content"]) for p in (first, second)]


def test_documents_without_images_give_none_and_nothing_fails(docai_dir: Path, docai_real_dir: Path) -> None:
    shards = [p.read_bytes() for p in sorted((docai_dir / "invoice_sharded_48p_noimages").glob("*.json"))]
    assert list(page_images(shards)) == []
    assert list(page_images((docai_real_dir / "layout_parser_hubble_6p_to_json_defaults.json").read_bytes())) == []
    assert list(page_images((docai_real_dir / "lending_splitter_textonly.json").read_bytes())) == []
    assert list(page_images(b"not json")) == []
    broken = orjson.dumps({"text": "x", "pages": [{"pageNumber": 1, "image": {"content": "***", "mimeType": "x"}}]})
    assert list(page_images(broken)) == []


def test_images_are_decoded_one_page_at_a_time(docai_real_dir: Path) -> None:
    source = (docai_real_dir / "doc_quality_id_ine_2p.json").read_bytes()  # two pages: 1.1 MB and 0.9 MB of PNG
    sizes = []
    tracemalloc.start()
    try:
        for image in page_images(source):
            sizes.append(len(image.data))
            del image
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(sizes) == 2
    assert peak < max(sizes) * 1.5 < sum(sizes)  # one page's image at a time, never both


def test_citations_name_their_page_image(docai_dir: Path) -> None:
    source = (docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes()
    segments = build_segments(source, "edf")
    first = next(s for s in segments if s.page_idx == 0)
    second = next(s for s in segments if s.page_idx == 1)
    reply = orjson.dumps(
        {
            "sections": [
                {"text": first.text, "source_ids": [first.segment_id]},
                {"text": second.text, "source_ids": [second.segment_id]},
            ]
        }
    ).decode()
    pages = {("edf", 0): {"key": "ws/edf.pages/1-abc.jpg", "width": 1674, "height": 2388}}
    citations = build_answer(reply, context=[first, second], page_images=pages)["metadata"]["citations"]
    assert [(c["page_idx"], c["page_image"]) for c in citations] == [
        (0, {"key": "ws/edf.pages/1-abc.jpg", "width": 1674, "height": 2388}),
        (1, None),  # no image stored for that page
    ]


def test_stored_once_replaced_when_changed_deleted_with_the_document(
    migrated: str, docai_dir: Path, tmp_path: Path
) -> None:
    source = (docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes()
    store = PostgresStore(migrated, max_size=1)
    objects = LocalFolderStore(tmp_path / "objects")
    rt = types.SimpleNamespace(settings=Settings(), store=store, objects=objects)
    try:
        workspace = str(uuid.uuid4())
        document = store.create_document(workspace, "edf.json", f"{workspace}/edf.json")
        twin = store.create_document(workspace, "copy.json", f"{workspace}/edf.json")  # the same JSON object
        assert store_page_images(rt, document, [source]) == 2
        rows = store.page_images([document.id])
        assert sorted(rows) == [(document.id, 0), (document.id, 1)]
        first = rows[(document.id, 0)]
        assert first.image_key.startswith(f"{workspace}/edf.pages/1-") and first.image_key.endswith(".jpg")
        assert (first.mime, first.width, first.height) == ("image/jpeg", 1674, 2388)
        path = tmp_path / "objects" / first.image_key
        assert path.read_bytes() == next(page_images(source)).data
        inode = path.stat().st_ino

        assert store_page_images(rt, document, [source]) == 2  # a re-ingest: nothing written again
        assert path.stat().st_ino == inode and store.page_images([document.id]) == rows

        # A page whose image changed gets a new object; the old one goes.
        changed = orjson.loads(source)
        changed["pages"].pop()
        png = (docai_dir.parent / "docai-real" / "ocr_with_symbols_tiny.json").read_bytes()
        changed["pages"][0]["image"] = orjson.loads(png)["pages"][0]["image"]
        assert store_page_images(rt, document, [orjson.dumps(changed)]) == 1
        [(where, now)] = store.page_images([document.id]).items()
        assert where == (document.id, 0) and now.image_key.endswith(".jpg")
        assert now.image_key != first.image_key and (now.width, now.height) == (600, 296)
        assert not path.exists() and not (tmp_path / "objects" / rows[(document.id, 1)].image_key).exists()

        # Two documents on one JSON share its images: deleting one leaves the other's.
        store_page_images(rt, twin, [orjson.dumps(changed)])
        delete_page_images(rt, document.id)
        assert store.page_images([document.id]) == {}
        assert (tmp_path / "objects" / now.image_key).is_file()
        delete_page_images(rt, twin.id)
        assert not (tmp_path / "objects" / now.image_key).exists()

        rt.settings = Settings(segcite_page_images=False)  # SEGCITE_PAGE_IMAGES=false: none kept
        assert store_page_images(rt, document, [source]) == 0
        assert store.page_images([document.id]) == {} and list((tmp_path / "objects").rglob("*.jpg")) == []
    finally:
        store.close()


def test_image_keys_sit_beside_the_json_and_change_with_the_image(docai_dir: Path) -> None:
    image = next(page_images((docai_dir / "invoice_parser_edf_2p_snake_case.json").read_bytes()))
    assert image_key("ws/doc.json", image).startswith("ws/doc.pages/1-")
    assert image_key("ws/doc/", image).startswith("ws/doc.pages/1-")  # a prefix of shards
    assert image_key("ws/doc.json", image) == image_key("ws/doc.json", image)


def test_ingest_ask_and_delete_keep_page_images_in_step(
    services, service_home: Path, celery_worker, docai_real_dir: Path, tmp_path: Path
) -> None:
    env = service_env(services, service_home)
    workspace = f"pages-{uuid.uuid4().hex[:8]}"
    source = docai_real_dir / "invoice_parser_1p.json"
    ingested = run(env, "ingest", str(source), "--workspace", workspace)
    assert ingested.returncode == 0, ingested.stderr
    document_id = ingested.stdout.strip().rsplit("document ", 1)[1].rstrip(")")
    with psycopg.connect(services.database_url) as conn:
        rows = conn.execute(
            "select page_idx, image_key, mime, width, height from document_pages where document_id = %s", (document_id,)
        ).fetchall()
    assert [(r[0], r[2], r[3], r[4]) for r in rows] == [(0, "image/png", 1758, 2275)]
    stored = service_home / "objects" / rows[0][1]
    assert stored.read_bytes() == next(page_images(source.read_bytes())).data
    inode = stored.stat().st_ino
    again = run(env, "ingest", str(source), "--workspace", workspace, "--force")  # rebuilt in place
    assert again.returncode == 0, again.stderr
    assert stored.stat().st_ino == inode  # the image was not written again

    asked = run(env, "ask", "What is the invoice number?", "--workspace", workspace, "--json")
    assert asked.returncode == 0, asked.stderr
    citations = orjson.loads(asked.stdout)["metadata"]["citations"]
    assert citations and all(
        c["page_image"] == {"key": rows[0][1], "width": 1758, "height": 2275} for c in citations
    ), citations

    deleted = run(env, "delete", document_id)
    assert deleted.returncode == 0, deleted.stderr
    with psycopg.connect(services.database_url) as conn:
        left = conn.execute("select count(*) from document_pages where document_id = %s", (document_id,)).fetchone()
    assert left == (0,) and not stored.exists()
