"""Submitting the log's checkpoints to its witnesses (C2SP tlog-witness ``add-checkpoint``).

The witnesses are the ones the host's tlog-policy file names with a URL
(``QUESTLOG_WITNESS_POLICY``). Each is submitted to on its own worker thread, never in a
request's or a command's path: a witness that is down, slow (``QUESTLOG_WITNESS_TIMEOUT``) or
refuses never holds anything else back; its state says so (``WitnessState``, kept in the store
for the page): ``cosigned``, ``waiting``, ``down``, ``conflict`` or ``refused``.

One submission (``submit_one``) sends the latest checkpoint with the consistency proof from the
size the witness last cosigned (0 at first). On 409 the witness says that size
(``text/x.tlog.size``): the log retries once from it, if its tree has that size. On 200 each
returned cosignature line is verified against the witness's key from the policy before it is
kept (tlog-witness: "the client MUST ignore any cosignatures from unknown keys").
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from domain.model.signed_note import NoteError
from domain.model.tlog.cosignature import cosignatures
from domain.model.tlog.policy import Policy, parse_policy
from domain.model.tlog.witness_protocol import AddCheckpoint, parse_size_body
from domain.service.transparency.retry import RetryBackoff
from domain.storage.tlog_tables import Cosignature, StoredCheckpoint, TlogTables, WitnessState

log = logging.getLogger("questlog.tlog")
DEFAULT_TIMEOUT = 5.0
"""Seconds a witness has to answer (``QUESTLOG_WITNESS_TIMEOUT``)."""
MAX_RESPONSE = 64 * 1024
"""The most of a witness's answer that is read."""
SIGNATURE_LINE = "\u2014 "
TROUBLE = ("down", "refused", "conflict")
"""The states a change to is logged as a warning."""
ERRNO = re.compile(r"^\[Errno -?\d+\] ")


@dataclass(frozen=True)
class Answer:
    """A witness's HTTP answer: status, content type and body (status 0: no answer)."""

    status: int
    content_type: str
    body: bytes
    error: str | None = None


def post(url: str, body: bytes, timeout: float) -> Answer:
    """POST ``body`` to ``url`` with urllib; any failure to get an answer is status 0."""
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "text/plain; charset=utf-8"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Answer(
                response.status, response.headers.get_content_type(), response.read(MAX_RESPONSE)
            )
    except urllib.error.HTTPError as error:
        with error:
            return Answer(error.code, error.headers.get_content_type(), error.read(MAX_RESPONSE))
    except (urllib.error.URLError, OSError, ValueError) as error:
        return Answer(0, "", b"", unanswered(error, timeout))


def unanswered(error: BaseException, timeout: float) -> str:
    """Why a witness gave no answer, in words (no errno): the connection refused at once, no
    answer within the timeout, its name not found, or another failure to connect."""
    reason = getattr(error, "reason", error)
    if isinstance(reason, ConnectionRefusedError):
        return "refused the connection (nothing listens at its address)"
    if isinstance(reason, TimeoutError | socket.timeout):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, socket.gaierror):
        return "its host name was not found"
    if isinstance(reason, ConnectionError):
        return "the connection was cut before an answer"
    words = str(getattr(reason, "strerror", None) or reason)
    return f"could not be reached: {ERRNO.sub('', words)}"


class WitnessSubmitter:
    """Submits checkpoints to the policy's witnesses, each on its own (see the module)."""

    def __init__(
        self,
        tables: TlogTables,
        prove: Callable[[int, int], list[bytes]],
        *,
        send: Callable[[str, bytes, float], Answer] = post,
        retry: RetryBackoff | None = None,
    ) -> None:
        self.tables = tables
        self.retry = retry or RetryBackoff()
        self.prove = prove
        self.send = send
        self.policy: Policy | None = None
        self.policy_text: str | None = None
        self.timeout = DEFAULT_TIMEOUT
        self._guard = threading.Lock()
        self._running: set[str] = set()
        self._again: set[str] = set()
        self._executor: ThreadPoolExecutor | None = None

    def use_policy(self, text: str | None, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Submit to the witnesses of this tlog-policy text (None: to none)."""
        self.policy = None if text is None else parse_policy(text)
        self.policy_text = text
        self.timeout = timeout

    def submit(self, checkpoint: StoredCheckpoint) -> None:
        """Submit the latest checkpoint to every witness that has not cosigned its size, each on
        a worker thread (one submission per witness at a time: one asked for meanwhile runs
        after it, with the checkpoint then latest)."""
        if self.policy is None:
            return
        states = self.tables.witness_states()
        for name, witness in self.policy.witnesses.items():
            state = states.get(name)
            if witness.url is None or not self._due(name, state, checkpoint):
                continue
            with self._guard:
                if name in self._running:
                    self._again.add(name)
                    continue
                self._running.add(name)
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(thread_name_prefix="questlog-witness")
                self._executor.submit(self._run, name)

    def _run(self, name: str) -> None:
        while True:
            try:
                latest = self.tables.tlog_checkpoint()
                if latest is not None:
                    self.submit_one(name, latest)
            except Exception:  # a worker must never die silently with its witness marked busy
                log.exception("submitting to witness %s failed", name)
            with self._guard:
                if name not in self._again:
                    self._running.discard(name)
                    return
                self._again.discard(name)

    def submit_all(self, checkpoint: StoredCheckpoint) -> dict[str, WitnessState]:
        """Submit a checkpoint to every witness now, one after the other (the CLI's
        ``questlog log checkpoint``); each witness's state after."""
        if self.policy is None:
            return {}
        return {
            name: self.submit_one(name, checkpoint)
            for name, witness in self.policy.witnesses.items()
            if witness.url is not None
        }

    def submit_one(self, name: str, checkpoint: StoredCheckpoint) -> WitnessState:
        """Submit a checkpoint to one witness, retrying once from a 409's size; its new state
        (stored)."""
        assert self.policy is not None
        witness = self.policy.witnesses[name]
        state = self.tables.witness_states().get(name) or WitnessState(name)
        if self._past(name, state, checkpoint):
            return state  # the witness is past this checkpoint, or has cosigned this one
        attempt = replace(state, last_attempt=datetime.now(UTC).isoformat())
        answer = self._add_checkpoint(str(witness.url), state.cosigned_size, checkpoint)
        if answer.status == 409:
            size = _size_of(answer)
            if size is None or size > checkpoint.size:
                new = replace(attempt, state="conflict", error=_conflict(answer, "409"))
                self._keep_state(state, new)
                self.retry.record(new)
                return new
            attempt = replace(attempt, cosigned_size=size)
            answer = self._add_checkpoint(str(witness.url), size, checkpoint)
        new = self._outcome(name, attempt, answer, checkpoint)
        self._keep_state(state, new)
        self.retry.record(new)
        return new

    def _past(self, name: str, state: WitnessState, checkpoint: StoredCheckpoint) -> bool:
        """Whether the witness is past the checkpoint, or has cosigned this very one."""
        if state.cosigned_size != checkpoint.size:
            return state.cosigned_size > checkpoint.size
        return any(c.witness == name for c in self.tables.cosignatures(checkpoint.size))

    def _due(self, name: str, state: WitnessState | None, checkpoint: StoredCheckpoint) -> bool:
        """Whether the background submission goes to the witness now: the same test as
        ``submit_one``'s (a witness that refused at its own size is tried again, as one whose
        log grew is), once its refusals' delay (``RetryBackoff``) is over."""
        state = state or WitnessState(name)
        return not self._past(name, state, checkpoint) and self.retry.due(name)

    def _keep_state(self, old: WitnessState, new: WitnessState) -> None:
        """Store a witness's new state; a change to down, refused or conflict is logged as a
        warning once (not at every submission while it stays so), and a return to cosigned."""
        self.tables.set_witness_state(new)
        if new.state == old.state:
            return
        if new.state in TROUBLE:
            log.warning("witness %s is %s: %s", new.witness, new.state, new.error)
        elif new.state == "cosigned" and old.state in TROUBLE:
            log.info("witness %s cosigns again (%d events)", new.witness, new.cosigned_size)

    def _add_checkpoint(self, url: str, old_size: int, checkpoint: StoredCheckpoint) -> Answer:
        proof = self.prove(old_size, checkpoint.size) if old_size else []
        body = AddCheckpoint(old_size, tuple(proof), checkpoint.note).body()
        return self.send(url.rstrip("/") + "/add-checkpoint", body, self.timeout)

    def _outcome(
        self, name: str, attempt: WitnessState, answer: Answer, checkpoint: StoredCheckpoint
    ) -> WitnessState:
        """The witness's state after its answer: the cosignatures verified and kept on 200."""
        text = answer.body.decode(errors="replace").strip()
        if answer.status == 0:
            return replace(attempt, state="down", error=answer.error)
        if answer.status == 409:
            return replace(attempt, state="conflict", error=_conflict(answer, "409 again"))
        if answer.status >= 500:
            return replace(attempt, state="down", error=f"{answer.status}: {text[:200]}")
        if answer.status != 200:
            return replace(attempt, state="refused", error=f"{answer.status}: {text[:200]}")
        kept = self._keep_cosignatures(name, answer.body.decode(errors="replace"), checkpoint)
        if not kept:
            error = "200 without a valid cosignature by the witness's key"
            return replace(attempt, state="refused", error=error)
        return replace(attempt, cosigned_size=checkpoint.size, state="cosigned", error=None)

    def _keep_cosignatures(self, name: str, body: str, checkpoint: StoredCheckpoint) -> int:
        """Verify each returned line against the witness's key and keep the valid ones."""
        assert self.policy is not None
        key = self.policy.witnesses[name].key
        kept = 0
        for line in body.splitlines(keepends=True):
            if not line.startswith(SIGNATURE_LINE) or not line.endswith("\n"):
                continue
            try:
                found = cosignatures(checkpoint.note + line, [key])
            except (NoteError, ValueError) as error:
                log.warning("witness %s sent a cosignature that fails: %s", name, error)
                continue
            for timestamp in found.values():
                self.tables.add_cosignature(Cosignature(checkpoint.size, name, line, timestamp))
                kept += 1
        return kept

    def report(self, size: int | None) -> list[dict[str, Any]]:
        """Each witness of the policy and where it stands with the checkpoint of ``size``."""
        if self.policy is None:
            return []
        states = self.tables.witness_states()
        cosigned = {c.witness for c in self.tables.cosignatures(size)} if size else set()
        shown = []
        for name, witness in self.policy.witnesses.items():
            state = states.get(name) or WitnessState(name)
            word = state.state
            if name in cosigned:  # only a kept cosignature of this very checkpoint counts
                word = "cosigned"
            elif word == "cosigned":
                word = "waiting"
            shown.append(
                {
                    "name": name,
                    "url": witness.url,
                    "cosigned_size": state.cosigned_size,
                    "state": word,
                    "error": None if word in ("cosigned", "waiting") else state.error,
                    "last_attempt": state.last_attempt,
                    "waiting_since": None if word == "cosigned" else self._since(state),
                }
            )
        return shown

    def _since(self, state: WitnessState) -> str | None:
        """When the log first had a checkpoint the witness has not cosigned (ISO UTC)."""
        first = self.tables.tlog_first_checkpoint_after(state.cosigned_size)
        return None if first is None else first.created

    def quorum_met(self, size: int | None) -> bool:
        """Whether the cosignatures collected on the checkpoint of ``size`` meet the policy."""
        if self.policy is None or not size:
            return False
        return self.policy.quorum_met({c.witness for c in self.tables.cosignatures(size)})

    def close(self) -> None:
        """Stop taking submissions; those running finish (each within its timeout)."""
        with self._guard:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def _conflict(answer: Answer, status: str) -> str:
    """A 409's error in words: the size the witness has cosigned up to."""
    size = _size_of(answer)
    if size is not None:
        return f"{status}: the witness has cosigned up to size {size}"
    said = answer.body.decode(errors="replace").strip()[:200]
    return f"{status}: the witness names no size it cosigned (it answered {said!r})"


def _size_of(answer: Answer) -> int | None:
    """The size a 409 names (``text/x.tlog.size``), or None if it names none."""
    if answer.content_type != "text/x.tlog.size":
        return None
    try:
        return parse_size_body(answer.body)
    except ValueError:
        return None
