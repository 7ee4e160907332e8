"""A real Celery worker process on the embedded (or configured) Redis; Flower against it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO, free_port, http_get, service_env, wait_for

from worker.app import INGEST_QUEUE, QUERY_QUEUE


def test_ping_round_trips_through_a_worker_process(celery_app, celery_worker) -> None:
    result = celery_app.send_task("segcite.ping").get(timeout=30)
    assert result["pong"] is True
    assert result["pid"] != celery_worker.proc.pid  # answered by a prefork child, not in-process
    # Both queues are served.
    for queue in (INGEST_QUEUE, QUERY_QUEUE):
        assert celery_app.send_task("segcite.ping", queue=queue).get(timeout=30)["pong"] is True


def test_app_settings_of_design_section_7(celery_app) -> None:
    conf = celery_app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost and conf.task_track_started
    assert conf.worker_prefetch_multiplier == 1
    assert conf.worker_send_task_events
    assert conf.broker_transport_options["visibility_timeout"] > conf.task_time_limit > conf.task_soft_time_limit
    assert {q.name for q in conf.task_queues} == {INGEST_QUEUE, QUERY_QUEUE}
    assert conf.task_routes["segcite.ingest_document"]["queue"] == INGEST_QUEUE
    assert conf.task_routes["segcite.answer_message"]["queue"] == QUERY_QUEUE


def test_flower_with_basic_auth_lists_the_worker(services, service_home, celery_worker) -> None:
    port = free_port()
    env = service_env(services, service_home, FLOWER_BASIC_AUTH="admin:s3cret", FLOWER_PORT=str(port))
    log = service_home / "flower.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "worker.cli", "flower"],
        env=env,
        cwd=REPO,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: http_get(f"{base}/healthcheck")[0] == 200, timeout=60, what=f"flower ({log})")
        assert http_get(f"{base}/api/workers")[0] == 401
        assert http_get(f"{base}/api/workers", auth="admin:wrong")[0] == 401

        def worker_listed() -> bool:
            status, body = http_get(f"{base}/api/workers?refresh=1", auth="admin:s3cret")
            return status == 200 and b"test-" in body

        wait_for(worker_listed, timeout=60, what="flower to list the worker", interval=1)
        status, body = http_get(f"{base}/metrics", auth="admin:s3cret")
        assert status == 200
        assert b"flower_" in body
    finally:
        proc.terminate()
        proc.wait(20)


def test_up_and_down_manage_embedded_services_and_a_worker(tmp_path_factory) -> None:
    home = Path(tmp_path_factory.mktemp("up"))
    if len(str(home)) > 80:
        home = Path(subprocess.check_output(["mktemp", "-d", "/tmp/sc-up-XXXX"], text=True).strip())
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "SEGCITE_HOME": str(home)}
    cli = [sys.executable, "-m", "worker.cli"]
    up = subprocess.run([*cli, "up"], env=env, cwd=REPO, capture_output=True, text=True, timeout=180)
    try:
        assert up.returncode == 0, up.stderr
        assert "redis+socket://" in up.stdout and f"host={home}/pg" in up.stdout
        from worker.app import make_celery
        from worker.settings import Settings

        app = make_celery(Settings(segcite_home=home))
        assert app.send_task("segcite.ping").get(timeout=60)["pong"] is True
        again = subprocess.run([*cli, "up"], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert again.returncode == 0
        assert again.stdout.splitlines()[-1] == up.stdout.splitlines()[-1]  # same worker pid reused
    finally:
        down = subprocess.run([*cli, "down"], env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert down.returncode == 0, down.stderr
    assert "worker stopped" in down.stdout
    assert "redis stopped" in down.stdout and "postgres stopped" in down.stdout
    assert not (home / "redis" / "redis.sock").exists()
    second = subprocess.run([*cli, "down"], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert "redis was not running" in second.stdout and "postgres was not running" in second.stdout


def test_each_task_is_delivered_to_its_own_queue_only(tmp_path: Path) -> None:
    """On a Redis of its own with no worker, so the queues can be counted as the broker holds them."""
    import redis

    from worker.app import make_celery
    from worker.embedded import redis_client_url, start_redis, stop_redis
    from worker.settings import Settings

    url = start_redis(tmp_path)
    try:
        app = make_celery(Settings(redis_url=url, segcite_home=tmp_path))
        assert {q.name: (q.exchange.name, q.routing_key) for q in app.conf.task_queues} == {
            INGEST_QUEUE: (INGEST_QUEUE, INGEST_QUEUE),
            QUERY_QUEUE: (QUERY_QUEUE, QUERY_QUEUE),
        }
        with app.connection_for_write() as conn:
            for queue in app.amqp.queues.values():  # as a worker of both queues declares them
                queue(conn.default_channel).declare()
        for name in ("segcite.ingest_document", "segcite.delete_document", "segcite.ingest_document"):
            app.send_task(name, args=["a-document"])
        for name in ("segcite.answer_message", "segcite.record_failure"):
            app.send_task(name, args=["a-message"])
        broker = redis.Redis.from_url(redis_client_url(url))
        assert (broker.llen(INGEST_QUEUE), broker.llen(QUERY_QUEUE)) == (3, 2)
    finally:
        stop_redis(tmp_path)
