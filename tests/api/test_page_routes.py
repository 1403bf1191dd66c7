"""The table page's shell and files: served without a token, from this host only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask

from tests.api.conftest import client_as

STATIC = Path(__file__).resolve().parents[2] / "webapi" / "static"
SHELL = Path(__file__).resolve().parents[2] / "webapi" / "templates" / "app.html"


def test_the_root_sends_the_browser_to_the_page(flask_app: Flask) -> None:
    response = client_as(flask_app, None).get("/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/app/")


@pytest.mark.parametrize(
    "path",
    [
        "/app/",
        "/app/campaigns/3f1c9a7e-0000-4000-8000-000000000000",
        "/app/verify",
        "/app/analytics",
    ],
)
def test_every_page_address_serves_the_shell_without_a_token(flask_app: Flask, path: str) -> None:
    response = client_as(flask_app, None).get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert b'<script type="module" src="/app/static/app.js">' in response.data


def test_the_modules_are_served_as_javascript(flask_app: Flask) -> None:
    client = client_as(flask_app, None)
    for module in sorted(STATIC.glob("*.js")):
        response = client.get(f"/app/static/{module.name}")
        assert response.status_code == 200, module.name
        assert response.mimetype in ("text/javascript", "application/javascript")
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert client_as(flask_app, None).get("/app/static/app.css").mimetype == "text/css"
    assert client_as(flask_app, None).get("/app/static/../page.py").status_code == 404


def test_the_api_still_needs_a_token(flask_app: Flask) -> None:
    assert client_as(flask_app, None).get("/campaigns").status_code == 401


def test_no_inline_script_or_style_and_no_other_host() -> None:
    shell = SHELL.read_text("utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)", shell)
    assert "<style" not in shell and "style=" not in shell
    for path in [SHELL, *STATIC.iterdir()]:
        # the SVG namespace is a name, not an address anything fetches
        text = path.read_text("utf-8").replace('"http://www.w3.org/2000/svg"', "")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), path.name
        assert not re.search(r"\.innerHTML\s*=|\beval\(|new Function\(", text), path.name
