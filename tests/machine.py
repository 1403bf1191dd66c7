"""What a test needs from the machine: a tool or service that is missing skips the test with the
reason, except under ``CI=true``, where CI must run every test and a skip is a failure."""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest


def missing(reason: str) -> NoReturn:
    """Skip with ``reason``; under ``CI=true`` fail with it instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI must run this test, so a missing tool is a failure)")
    pytest.skip(reason)


def tool(name: str, install: str) -> str:
    """The path of the program ``name``; missing (``install`` says how to get it) if it is not
    on PATH."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} is not installed ({install})")
    return found
