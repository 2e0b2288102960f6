"""Several workers (processes, one per device, on one or several hosts) tuning one
computation together, on optuna's distributed optimization: they share one optuna study
in an RDB storage (a PostgreSQL server, or an SQLite file on one host) and one tuning
database (`mdh_ir.database.store`, in the same PostgreSQL database or an SQLite file).

The study is named after the computation, the device and the technique (`study_name`),
so every worker of every host that tunes them joins it (`load_if_exists`); each worker's
sampler has its own seed, and TPE's constant liar steers a worker away from the trials
others are evaluating. Before a worker evaluates a configuration it claims it in the
tuning database (`Database.claim`, one statement, one winner): a draw another worker
holds or has stored is a duplicate the worker skips, as a single tuner skips its own;
the default and the transferred configurations, which every worker needs, are waited
for (`Sharing.claim_or_wait`). Each evaluation is committed as it ends, so a killed
worker loses none; its claim expires after the evaluation time limit plus
`CLAIM_SLACK`, and the configuration is evaluated again by whoever draws it next.

`mdh-tune --workers N` starts N such workers and, once they have ended, runs the final
check (`Tuner.confirm`, the pick timed in turns with the default) once, itself.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from mdh_ir.database.backend import is_url, sqlalchemy_url
from mdh_ir.database.store import RUNNING, Database, Evaluation

CLAIM_SLACK = 60.0
"""Seconds a claim outlives its evaluation's time limit (starting an evaluation process,
storing the result) before it counts as a dead worker's."""
POLL_SECONDS = 0.5
"""How often a worker waiting for another's result looks again."""


@dataclass(frozen=True)
class Sharing:
    """How one worker shares a tuning: the optuna storage and study, its index among
    the workers of its command (its sampler's seed is the tuning's seed plus it), its
    name in claims, how long its claims last, and when its command started (failures
    stored before are an earlier run's, evaluated again; later ones are this tuning's)."""

    storage: str
    study: str
    index: int
    worker: str
    lifetime: float
    since: float

    def claim(self, db: Database, key: str, device: str, config: str) -> bool:
        """Whether this worker holds the claim on `config` (`Database.claim`)."""
        return db.claim(key, device, config, self.worker, self.lifetime, self.since)

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


def worker_name(index: int) -> str:
    """A worker's name in claims: host, process and index."""
    return f"{socket.gethostname()}:{os.getpid()}/{index}"


def study_name(computation: str, device: str, technique: str) -> str:
    """The study every worker tuning `computation` on a `device` (`DeviceInfo.key`)
    with `technique` joins."""
    return f"mdh-{computation}-{hashlib.sha256(device.encode()).hexdigest()[:12]}-{technique}"


def storage_url(db: Path | str, storage: str | None) -> str:
    """The optuna storage: `storage`, else the tuning database's PostgreSQL URL, else an
    SQLite file beside the tuning database's file (`<db>.studies`)."""
    if storage:
        return storage
    return str(db) if is_url(db) else f"sqlite:///{Path(db).resolve()}.studies"


def open_storage(url: str):
    """optuna's RDB storage at `url`. A SQLite file waits for its lock as the tuning
    database does. PostgreSQL commits the study's writes without waiting for its disk
    (`synchronous_commit=off`: optuna writes each drawn parameter on its own, and that
    halves the cost of a draw, 0.37 s to 0.2 s for a matrix product's 35 parameters on
    the test machine); a server crash can lose the last trials of the study, which only
    guides the search, never an evaluation, which the tuning database commits durably."""
    import optuna

    if url.startswith("sqlite"):
        return optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": 60}})
    engine = {"pool_pre_ping": True, "connect_args": {"options": "-c synchronous_commit=off"}}
    return optuna.storages.RDBStorage(sqlalchemy_url(url), engine_kwargs=engine)
