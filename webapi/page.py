"""The table page: the HTML shell at ``/app/...`` and its static files at ``/app/static/``.

The shell holds no data (the page signs in with a token and calls the API), so these routes need
no token. Every answer of theirs carries a Content-Security-Policy that lets the page load only
its own scripts, styles and API, and a Referrer-Policy that keeps a share link's URL at home.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory

from webapi import access

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
SHELL = "app.html"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",
}

blp = Blueprint("page", __name__)


@blp.after_request
def page_headers(response: Response) -> Response:
    """Pin what the page may load and never send its URL (a share link's token) onwards."""
    response.headers.update(PAGE_HEADERS)
    return response


@blp.route("/")
@access.requires("public")
def root() -> Response:
    """Send a browser to the table page."""
    return redirect("/app/", code=302)  # type: ignore[return-value]


@blp.route("/app/")
@blp.route("/app/verify")
@blp.route("/app/campaigns/<id>")
@access.requires("public")
def shell(id: str | None = None) -> Response:
    """The table page's HTML shell (the page routes itself by its URL)."""
    response = send_from_directory(TEMPLATES, SHELL, mimetype="text/html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.route("/app/static/<path:filename>")
@access.requires("public")
def static(filename: str) -> Response:
    """A file of the page (scripts, styles, images) from ``webapi/static``."""
    return send_from_directory(STATIC, filename, max_age=0)
