"""Calls the API tests make over the Flask test client: a POST that must give a status, a game
command, and a game plan's table (send a command, undo it by a rollback)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

Json = dict[str, Any]


def post(client: FlaskClient, path: str, body: Json, status: int = 201) -> Json:
    """POST ``body``; the answer must have ``status``; its JSON."""
    response = client.post(path, json=body)
    assert response.status_code == status, response.json
    result: Json = response.json
    return result


def command(client: FlaskClient, cid: str, body: Json, status: int = 201) -> Json:
    """POST a game command to campaign ``cid``; the answer must have ``status``."""
    return post(client, f"/campaigns/{cid}/commands", body, status)


class ApiTable:
    """A plan's table over the Flask test client: commands, and undo by rollback."""

    server_dice_only = True
    """Refuse a command that brings its own faces (the plan's API run plays on server dice)."""

    def __init__(self, client: FlaskClient, created: Json) -> None:
        self.client = client
        self.cid: str = created["id"]
        self.version: int = created["version"]
        self.before: int | None = None
        self.events: list[Json] = []

    def send(self, body: Json) -> Json:
        """POST the command; it must be stored (201)."""
        assert not (self.server_dice_only and "faces" in body), body
        response = self.client.post(f"/campaigns/{self.cid}/commands", json=body)
        assert response.status_code == 201, (body, response.json)
        self.before, self.version = self.version, response.json["version"]
        self.events += response.json["events"]
        state: Json = response.json["state"]
        return state

    def undo(self) -> Json:
        """Roll back to the version before the last command."""
        body = {"to_version": self.before, "reason": "undo the last command"}
        response = self.client.post(f"/campaigns/{self.cid}/rollback", json=body)
        assert response.status_code == 201, response.json
        self.version = response.json["version"]
        state: Json = response.json["state"]
        return state
