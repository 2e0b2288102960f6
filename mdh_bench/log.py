"""Progress messages of a run, on stderr (stdout stays free for a subprocess's result)."""

from __future__ import annotations

import sys


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
