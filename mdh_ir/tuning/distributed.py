"""Several workers (processes, one per device, on one or several hosts) tuning one
computation together through one tuning database (`mdh_ir.database.store`: an SQLite
file on one host, or a PostgreSQL database for workers of several hosts).

Each worker searches with its own technique, in memory, seeded with the tuning's seed
plus its index; the workers share only the database. Before a worker asks its technique
for new draws it reads what the others stored since it last looked and tells its
technique (`Technique.learn`), so its model knows their results without a shared study
(an optuna RDB study wrote each drawn parameter in a transaction of its own: 0.36 s a
draw of 35 parameters on SQLite, most of a worker's time). Before a worker evaluates a
configuration it claims it in the tuning database (`Database.claim`, one statement, one
winner): a draw another worker holds or has stored is a duplicate the worker skips, as
a single tuner skips its own; a transferred configuration another worker holds is left
to it (its result reaches the technique with the others'), and the default, which every
worker starts from, is waited for (`Sharing.claim_or_wait`; a worker finding it claimed
evaluates its seeds first). Each evaluation is committed as it ends, so a killed worker
loses none; its claim expires after the evaluation time limit plus `CLAIM_SLACK`, and
the configuration is evaluated again by whoever draws it next.

A budget of evaluations is the whole tuning's (`Sharing.budget`): a worker claims
configurations until the workers' claims and results of this run reach it, so a faster
worker evaluates more, and the run never evaluates more than the budget (the count and
the claim are one transaction, `Database.claim`).

`mdh-tune --workers N` starts N such workers and, once they have ended, runs the final
check (`Tuner.confirm`, the pick timed in turns with the default) once, itself. It
computes the reference result once, for its final check, and hands it to its workers
in a file (`publish`, `awaited`): each computing its own, three processes multiplied
every BLAS thread of the host by three (matmul 4096³ on 2 x H100: 64 s before the
workers' first evaluation, against 10 s alone).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mdh_ir.database.store import RUNNING, Database, Evaluation

CLAIM_SLACK = 60.0
"""Seconds a claim outlives its evaluation's time limit (starting an evaluation process,
storing the result) before it counts as a dead worker's."""
POLL_SECONDS = 0.1
"""How often a worker waiting for another's result looks again."""


@dataclass(frozen=True)
class Sharing:
    """How one worker shares a tuning: its index among the workers of its command (its
    technique's seed is the tuning's seed plus it), its name in claims, how long its
    claims last, when its command started (failures stored before are an earlier
    run's, evaluated again; later ones are this tuning's), the evaluations of the
    whole tuning, every worker's (None: no such budget), and the workers of its command,
    which share this host's cores (`tuner.default_build_workers`)."""

    index: int
    worker: str
    lifetime: float
    since: float
    budget: int | None = None
    local: int = 1

    def claim(self, db: Database, key: str, device: str, config: str) -> bool:
        """Whether this worker holds the claim on `config` (`Database.claim`; refused
        once the tuning's `budget` is claimed)."""
        return db.claim(key, device, config, self.worker, self.lifetime, self.since, self.budget)

    def spent(self, db: Database, key: str, device: str) -> bool:
        """Whether the workers' claims and results of this run reached `budget`."""
        return self.budget is not None and db.counted(key, device, self.since) >= self.budget

    def release(self, db: Database, key: str, device: str) -> None:
        """Drop this worker's claims that it did not evaluate (`Database.release`)."""
        db.release(key, device, self.worker)

    def claim_or_wait(self, db: Database, key: str, device: str, config: str) -> Evaluation | None:
        """None once this worker holds the claim on `config`; else the result that is
        stored for it (waiting while another worker evaluates it)."""
        while not self.claim(db, key, device, config):
            stored = db.lookup(key, device, config)
            if stored is not None and stored.status != RUNNING:
                return stored
            time.sleep(POLL_SECONDS)
        return None

    def news(self, db: Database, key: str, device: str, known: set[str]) -> list[Evaluation]:
        """The results stored for `key` on `device` (by the other workers, by earlier
        runs) whose configurations are not in `known`; claims under way are not results.
        Only the new ones are read whole (all of them took 4.3 ms for 320 rows, a light
        query of the configurations 0.17 ms)."""
        found = (db.lookup(key, device, c) for c in db.results(key, device) if c not in known)
        return [e for e in found if e is not None and e.status != RUNNING]


def worker_name(index: int) -> str:
    """A worker's name in claims: host, process and index."""
    return f"{socket.gethostname()}:{os.getpid()}/{index}"


def publish(path: Path, arrays: list[np.ndarray]) -> None:
    """Write `arrays` to `path` (an `.npz` file) for the workers that wait for it
    (`awaited`): whole, or not at all (written aside, then renamed into place)."""
    part = path.with_name(path.stem + ".part.npz")
    np.savez(part, *arrays)
    os.replace(part, path)


def awaited(path: Path) -> Callable[[], list[np.ndarray]]:
    """A function returning the arrays `publish` writes to `path`, waiting for them
    while the process that started this one lives (`RuntimeError` once it is gone)."""
    parent = os.getppid()

    def load() -> list[np.ndarray]:
        while not path.exists():
            if os.getppid() != parent:
                raise RuntimeError(f"the command that started this worker ended before writing {path}")
            time.sleep(POLL_SECONDS)
        with np.load(path) as arrays:
            return [arrays[f"arr_{i}"] for i in range(len(arrays.files))]

    return load
