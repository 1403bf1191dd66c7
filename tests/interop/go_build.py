"""Building the Go interop programs of ``tests/interop/`` offline, against Debian's
``golang.org/x/mod`` (``golang-golang-x-mod-dev``): each program's ``go.mod`` replaces the module
with that directory, so nothing is downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.machine import missing

X_MOD = Path("/usr/share/gocode/src/golang.org/x/mod")
INSTALL = "apt-get install golang-go golang-golang-x-mod-dev"


def build_go_program(name: str, package: str, work: Path) -> Path:
    """``tests/interop/<name>`` built in ``work``: its binary. A skip (under CI a failure, see
    ``tests.machine.missing``) when Go or x/mod's ``sumdb/<package>`` is missing."""
    go = shutil.which("go")
    if go is None:
        missing(f"go is not installed ({INSTALL})")
    if not (X_MOD / "sumdb" / package).is_dir():
        missing(f"golang.org/x/mod is not at {X_MOD} ({INSTALL})")
    env = {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOWORK": "off",
        "GO111MODULE": "on",
        "GOCACHE": str(work / "cache"),
        "GOPATH": str(work / "gopath"),
    }
    binary = work / name
    subprocess.run(
        [str(go), "build", "-o", str(binary), "."],
        cwd=Path(__file__).parent / name,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return binary
