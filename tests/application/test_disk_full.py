"""A full disk: 507 with Retry-After, nothing half stored, and the service
recovers by itself once there is room again. The disk is a real, small tmpfs."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask.testing import FlaskClient
from psycopg import sql

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.conftest import StoreFactory
from webapi.app import create_app

DISK_BYTES = 8 * 1024 * 1024
MAX_ROLLS = 2000


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A freshly mounted 8 MiB tmpfs that anyone may traverse (PostgreSQL writes there too)."""
    folder = Path(tempfile.mkdtemp(prefix="questlog-disk-"))
    folder.chmod(0o755)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES},mode=0777", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        folder.rmdir()


def fill(disk: Path, leave: int) -> Path:
    """Fill the disk with one file, leaving about ``leave`` bytes free."""
    stats = os.statvfs(disk)
    free = stats.f_bavail * stats.f_frsize
    filler = disk / "filler"
    with open(filler, "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))
    return filler


def roll_until_full(client: FlaskClient, campaign_id: str) -> tuple[int, Any]:
    """Roll until a roll is refused; returns the version before it and the refusal."""
    for _ in range(MAX_ROLLS):
        version = client.get(f"/campaigns/{campaign_id}").json["version"]
        response = client.post(f"/campaigns/{campaign_id}/rolls", json={"dice": "4d20"})
        if response.status_code != 201:
            return version, response
    raise AssertionError(f"{MAX_ROLLS} rolls fitted on the small disk")


def assert_full_then_recovers(client: FlaskClient, campaign_id: str, filler: Path) -> None:
    version, refused = roll_until_full(client, campaign_id)

    assert refused.status_code == 507, refused.json
    assert refused.mimetype == "application/problem+json"
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.json["stored"] is False
    assert "disk is full" in refused.json["detail"]
    assert client.get(f"/campaigns/{campaign_id}").json["version"] == version

    filler.unlink()
    again = client.post(f"/campaigns/{campaign_id}/rolls", json={"dice": "d20"})
    assert again.status_code == 201, again.json
    assert again.json["version"] == version + 1
    audit = client.get(f"/campaigns/{campaign_id}/audit").json
    assert audit["chain_ok"] is True


def test_sqlite_full_disk_answers_507_and_recovers(small_disk: Path) -> None:
    app = Questlog(StoreConfig(sqlite_path=small_disk / "questlog.db"))
    try:
        client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
        campaign = client.post("/campaigns", json={"game": "quest-calendar", "name": "full"}).json
        filler = fill(small_disk, leave=64 * 1024)
        assert_full_then_recovers(client, campaign["id"], filler)
    finally:
        app.close()


@pytest.mark.postgres
def test_postgres_full_disk_answers_507_and_recovers(
    small_disk: Path, postgres_url: str, tmp_path: Path
) -> None:
    space = f"questlog_small_{small_disk.name.rsplit('-', 1)[-1].lower()}"
    tablespace = small_disk / "pg"
    tablespace.mkdir()
    subprocess.run(["chown", "postgres:postgres", str(tablespace)], check=True)
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    app = Questlog(config)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(
                sql.Identifier(space), sql.Literal(str(tablespace))
            )
        )
        try:
            admin.execute(
                sql.SQL("ALTER TABLE {}.{} SET TABLESPACE {}").format(
                    sql.Identifier(str(config.postgres_schema)),
                    sql.Identifier(app.recorder.events_table_name),
                    sql.Identifier(space),
                )
            )
            client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
            campaign = client.post("/campaigns", json={"game": "quest-calendar", "name": "f"}).json
            filler = fill(small_disk, leave=16 * 1024)
            assert_full_then_recovers(client, campaign["id"], filler)
        finally:
            app.close()
            factory.remove_all()
            admin.execute(sql.SQL("DROP TABLESPACE IF EXISTS {}").format(sql.Identifier(space)))
