"""A gate between the process that times candidates and the processes that build them.

On a CPU device, building and timing share the cores: a candidate timed while another
process compiles is timed slower than it runs. The timing process holds the gate
`exclusive` while it runs candidates; each building process holds it `shared` while it
compiles, so the builders work together while nothing is timed and wait while something
is. A timing process waiting for the gate lets no new build start (a turnstile), so
builders in a row never keep it waiting longer than the builds already under way.

The gate is two files locked with `flock`: it holds across processes, and a process
that dies releases what it held.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Gate:
    """The gate of the files `path`.turn and `path`.lock (created on first use)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._files: tuple[int, int] | None = None
        self.waited = 0.0
        """Seconds the last `exclusive` waited for the gate."""

    def _fds(self) -> tuple[int, int]:
        if self._files is None:
            flags = os.O_RDWR | os.O_CREAT
            self._files = (os.open(self.path + ".turn", flags, 0o600), os.open(self.path + ".lock", flags, 0o600))
        return self._files

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the gate alone: wait for the builds under way; none starts meanwhile."""
        turn, lock = self._fds()
        start = time.perf_counter()
        fcntl.flock(turn, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.waited = time.perf_counter() - start
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Hold the gate beside the other builders, once no timing holds or awaits it."""
        turn, lock = self._fds()
        fcntl.flock(turn, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_SH)
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._files is not None:
            for fd in self._files:
                os.close(fd)
            self._files = None
