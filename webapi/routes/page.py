"""The table page: one HTML shell and its static ES modules, served without a token.

The page itself asks for nothing secret: it signs in with a token the player types (or one in a
share link's fragment) and calls the API with it, so the shell and its files are open routes.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory

from webapi.http.declared import requires

HERE = Path(__file__).parents[1]
"""The ``webapi`` package, which holds the page's ``templates`` and ``static`` files."""
STATIC = HERE / "static"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; base-uri 'none'; frame-ancestors 'none'"
)
"""Everything from this host only: no inline script or style, no other host."""

blp = Blueprint("page", __name__)
OPEN = frozenset(
    {
        "page.home",
        "page.shell",
        "page.campaign",
        "page.verify",
        "page.analytics",
        "page.static_file",
    }
)
"""The page's endpoints: each view declares ``public`` access, so no token is asked for."""


@requires("public")
def shell() -> Response:
    """The one HTML document; the modules read the address to show the right part."""
    return send_from_directory(HERE / "templates", "app.html", mimetype="text/html")


@blp.after_request
def protect(response: Response) -> Response:
    """Only this host's scripts, styles and connections."""
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@blp.route("/")
@requires("public")
def home() -> Response:
    """The page lives under /app/."""
    return redirect("/app/", code=302)  # type: ignore[return-value]


@requires("public")
def campaign(campaign_id: str) -> Response:
    """A campaign's address: the same shell, which reads the id from the address."""
    return shell()


blp.add_url_rule("/app/", "shell", shell)
blp.add_url_rule("/app/campaigns/<campaign_id>", "campaign", campaign)
blp.add_url_rule("/app/verify", "verify", shell)
blp.add_url_rule("/app/analytics", "analytics", shell)


@blp.route("/app/static/<path:filename>")
@requires("public")
def static_file(filename: str) -> Response:
    """A module, the style sheet or a vendored file."""
    return send_from_directory(STATIC, filename)
