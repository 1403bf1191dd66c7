"""Memory given back after a long read.

An audit decodes a whole campaign (30,000 events: some 40 MB at its peak). Python frees those
objects when the audit ends, but glibc's allocator keeps the freed pages in the arena of the
request thread that used them, so each of the server's threads keeps its own high-water mark: the
process grew by about 37 MB per audit of a 30,000-event campaign until every thread had held one.
``malloc_trim(0)`` returns the free pages of every arena to the system; it is called after each
long read. On a C library without it (musl, macOS) this does nothing.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from typing import Any


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        trim: Any = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    found: Callable[[int], int] = trim
    return found


TRIM = _malloc_trim()


def give_back() -> bool:
    """Collect what the long read left in cycles (it ran with the collector paused), then return
    the allocator's free pages to the system; whether it could.

    The collection runs even while another audit has the collector paused, and then walks that
    audit's objects too (some tenths of a second with the GIL held, once per whole audit): left
    to the pause's end instead, the server kept +235 MB after 20 audits 4 at a time, against
    +120 to +131 MB this way (docs/performance-results.md, "The server's memory after audits")."""
    gc.collect()
    if TRIM is None:
        return False
    TRIM(0)
    return True
