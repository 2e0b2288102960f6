"""The tuning database: every evaluation of every configuration, in an SQLite file or a
PostgreSQL database (`mdh_ir.database.backend`).

An evaluation is keyed by the computation (`computation_key`: a hash of the canonical
IR of the op and the functions it calls, without its configuration; sizes are part of
the op), the device (`DeviceInfo.key`: platform, device name, driver version) and the
configuration (its `#mdh.config` text). Each evaluation is written in its own
transaction, so a process killed mid-write leaves the database consistent; several
processes may share one file (WAL journal, busy timeout, insert-or-ignore on the key),
and the workers of several hosts one PostgreSQL database. Workers tuning one computation
together claim a configuration before they evaluate it (`Database.claim`: a `running` row
naming the worker), so no two evaluate it; a claim whose worker died expires.
A time measured in turns with the default when tuning ends is marked `confirmed`; the
best configuration is the fastest confirmed one (a single flattering time of a
candidate never timed again does not outrank it), else the fastest of all. Each
evaluation keeps where its cost went, in seconds per phase (JSON, `phases`).

A failure is stored with its cause (its status) and the run's options (time limit,
repeats). One whose cause is the configuration (`LASTING`: a wrong result, a build error,
a broken rule) is replayed by later runs; one whose cause was the run's options or the
machine's state (a timeout, a run stopped as slow, a crashed worker, an error) is
evaluated again by a later run, which replaces it.

The file is only a cache, and it is checked before it is used: a file that is not an
SQLite database, is damaged, holds other tables, or was written by a newer schema raises
`DatabaseError` naming the file, before anything is written to it. Its schema version is
SQLite's `user_version` (`SCHEMA_VERSION`); a file of an older version is migrated. A
PostgreSQL database is checked and migrated the same way (its tables in the schema
`mdh_tuning`, the version in that schema's comment).

The default file is `$MDH_TUNING_DB` (a path or a `postgresql://` URL), else
`~/.cache/mdh_ir/tuning.sqlite`. The tuner
writes it (`mdh_ir.tuning`); the compile driver reads its best configurations
(`best_config`, `mdh_ir.driver.choose`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable

from mdh_ir.database.backend import backend_for, is_url, shown
from mdh_ir.schedule.config import Config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import MDH, ComputeOp, ConfigAttr
from mdh_ir.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS computations (key TEXT PRIMARY KEY, ir TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations (
    id INTEGER PRIMARY KEY,
    computation TEXT NOT NULL,
    device TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    seconds REAL,
    times TEXT NOT NULL,
    message TEXT NOT NULL,
    cost REAL NOT NULL,
    technique TEXT NOT NULL,
    created REAL NOT NULL,
    confirmed INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT '{}',
    phases TEXT NOT NULL DEFAULT '{}',
    UNIQUE (computation, device, config)
);
CREATE INDEX IF NOT EXISTS best ON evaluations (computation, device, status, seconds);
"""
OK = "ok"
"""Status of a correct, timed evaluation; every other status is a failure:
`wrong` (result differs from the reference), `build` (OpenCL build error), `rule`
(refused by a constraint), `timeout`, `slow` (stopped: its runs took longer than a
candidate `evaluate.CUTOFF` times slower than the best could), `crash` (the evaluating
process died), `error`; `running` marks a configuration claimed by a worker
(`Database.claim`) until its result replaces it."""
RUNNING = "running"
LASTING = (OK, "wrong", "build", "rule")
"""Statuses caused by the configuration itself: later runs replay them. The others were
caused by the run's options or the machine's state: later runs evaluate again."""
_LASTING = ", ".join(f"'{s}'" for s in LASTING)
SCHEMA_VERSION = 2
"""Version 0: no version recorded (without the `confirmed` and `options` columns);
version 1: without `phases`."""
COLUMNS = {
    "computations": {"key", "ir"},
    "evaluations": {"id", "computation", "device", "config", "status", "seconds", "times",
                    "message", "cost", "technique", "created"},
}  # fmt: skip
"""The tables and the columns every version has."""
ADDED = {
    "confirmed": "INTEGER NOT NULL DEFAULT 0",
    "options": "TEXT NOT NULL DEFAULT '{}'",
    "phases": "TEXT NOT NULL DEFAULT '{}'",
}
"""Columns of `evaluations` added since version 0, migrated in place."""


class DatabaseError(Exception):
    """A tuning database file that cannot be used; the message names the file."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(f"{shown(path)}: {reason}")
        self.path, self.reason = shown(path), reason


def default_path() -> Path | str:
    """`$MDH_TUNING_DB` (a file, or a PostgreSQL URL), else the file in the user's cache."""
    env = os.environ.get("MDH_TUNING_DB")
    if env and is_url(env):
        return env
    return Path(env) if env else Path.home() / ".cache" / "mdh_ir" / "tuning.sqlite"


def canonical_ir(op: ComputeOp, sized: bool = True) -> str:
    """The op (without configuration) and the functions it calls, printed generically;
    with `sized=False` without its sizes (dimension sizes, buffer shapes): the same text
    for every size of one computation."""
    names = [op.scalar_func] + [c.func for c in op.combines if c.func and not c.builtin]
    funcs = []
    for name in dict.fromkeys(names):
        f = SymbolTable.lookup_symbol(op, name)
        assert isinstance(f, func.FuncOp)
        funcs.append(f.clone())
    inputs, outputs = op.inputs.types, op.outputs.types
    props = {k: v for k, v in op.properties.items() if k not in ("comp_name", "config")}
    if not sized:
        inputs, outputs = _unsized(inputs), _unsized(outputs)
        props["mda_size"] = ArrayAttr([])
    block = Block(arg_types=inputs)
    clone = ComputeOp(op.comp_name.data, block.args, props, outputs)
    block.add_ops([clone, func.ReturnOp(*clone.results)])
    host = func.FuncOp("computation", (inputs, outputs), Region(block))
    out = StringIO()
    Printer(out, print_generic_format=True).print_op(ModuleOp([*funcs, host]))
    return out.getvalue()


def _unsized(types) -> list[MemRefType]:
    return [MemRefType(t.element_type, [DYNAMIC_INDEX] * len(t.get_shape())) for t in types]


def computation_key(op: ComputeOp) -> str:
    return hashlib.sha256(canonical_ir(op).encode()).hexdigest()[:24]


def family_key(op: ComputeOp) -> str:
    """The key of the computation at every size (same views, functions and combine
    operators): `computation_key` without the sizes."""
    return hashlib.sha256(canonical_ir(op, sized=False).encode()).hexdigest()[:24]


def shape_key(op: ComputeOp) -> str:
    """What a configuration's shape and per-dimension meaning depend on: the combine
    operator kind of each dimension, the rank of each input buffer, the number of
    outputs (`cc.cc.pw/2.2/1` for a matrix product). Computations with one shape key
    take each other's configurations."""
    kinds = ".".join(c.kind for c in op.combines)
    ranks = ".".join(str(len(v.type.get_shape())) for v in op.inputs)  # type: ignore[attr-defined]
    return f"{kinds}/{ranks}/{len(op.outputs)}"


def describe(op: ComputeOp) -> dict:
    """The keys and sizes under which a configuration of `op` is found for other sizes
    and similar computations (`mdh_ir.tuning.transfer`)."""
    return dict(family=family_key(op), shape=shape_key(op), sizes=list(op.sizes))


def parse_computation(ir: str) -> ComputeOp:
    """The op of a computation stored as `canonical_ir`."""
    from mdh_ir.tools.context import make_context

    module = Parser(make_context(), ir).parse_module()
    return next(op for op in module.walk() if isinstance(op, ComputeOp))


_COLUMNS = "config, status, seconds, times, message, cost, technique, confirmed, options, phases"
"""The columns of an `Evaluation`, in its fields' order."""


@dataclass(frozen=True)
class Evaluation:
    config: str
    status: str
    seconds: float | None
    times: list[float] = field(default_factory=list)
    message: str = ""
    cost: float = 0.0
    """Wall seconds the evaluation took (build, check and timing)."""
    technique: str = ""
    confirmed: bool = False
    """Its time was measured in turns with the default (`Database.confirm`)."""
    options: dict = field(default_factory=dict)
    """The run's options it was evaluated under (`timeout`, `repeats`)."""
    phases: dict[str, float] = field(default_factory=dict)
    """Where its `cost` went: wall seconds per phase (`mdh_ir.tuning.evaluate`)."""

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def lasting(self) -> bool:
        """Whether later runs replay it (`LASTING`) instead of evaluating again."""
        return self.status in LASTING


class Database:
    def __init__(self, path: Path | str = ":memory:"):
        """Open (or create) the database at `path` (a file, `:memory:` or a PostgreSQL
        URL); `DatabaseError` if it is not one this schema can use (module docstring),
        before anything is written."""
        self.path = shown(path)
        kind = backend_for(path)
        try:
            self.backend = kind(path)
            self.conn = self.backend.conn
            with self.backend.initializing():
                version = self._check()
                self.backend.create(SCHEMA)
                if version < SCHEMA_VERSION:
                    self._migrate()
        except (*kind.errors(), OSError) as e:
            raise DatabaseError(path, f"unusable {kind.kind} ({' '.join(str(e).split())})") from None

    def _check(self) -> int:
        """The database's schema version; `DatabaseError` for one of another kind or
        schema, or a damaged one."""
        tables = self.backend.tables()
        version = self.backend.version()
        foreign = sorted(tables - set(COLUMNS))
        if foreign:
            raise DatabaseError(self.path, f"not a tuning database (it holds tables {', '.join(foreign)})")
        for table, needed in COLUMNS.items():
            columns = self.backend.columns(table)
            if table in tables and not needed <= columns:
                missing = ", ".join(sorted(needed - columns))
                raise DatabaseError(self.path, f"not a tuning database (table {table} lacks {missing})")
        if version > SCHEMA_VERSION:
            raise DatabaseError(
                self.path, f"written by a newer mdh_ir (schema {version}; this one reads up to {SCHEMA_VERSION})"
            )
        damage = self.backend.damage()
        if damage is not None:
            raise DatabaseError(self.path, f"the database is damaged ({damage})")
        return version

    def _migrate(self) -> None:
        """Bring a database of an older schema version to `SCHEMA_VERSION`."""
        with self.backend.transaction():
            columns = self.backend.columns("evaluations")
            for name, declaration in ADDED.items():
                if name not in columns:
                    self.backend.execute(f"ALTER TABLE evaluations ADD COLUMN {name} {declaration}")
            self.backend.set_version(SCHEMA_VERSION)

    def _execute(self, sql: str, params: tuple = ()):
        return self.backend.execute(sql, params)

    def add_computation(self, op: ComputeOp) -> str:
        key = computation_key(op)
        self._execute(
            "INSERT INTO computations VALUES (?, ?) ON CONFLICT DO NOTHING", (key, canonical_ir(op))
        )
        return key

    def lookup(self, computation: str, device: str, config: str) -> Evaluation | None:
        row = self._execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? AND config = ?",
            (computation, device, config),
        ).fetchone()
        return _evaluation(row) if row else None

    def results(self, computation: str, device: str) -> list[str]:
        """The configurations with a result stored (claims under way are none), in the
        order stored: one light query, for workers that look for others' results often."""
        rows = self._execute(
            "SELECT config FROM evaluations WHERE computation = ? AND device = ? AND status != ? ORDER BY id",
            (computation, device, RUNNING),
        ).fetchall()
        return [r[0] for r in rows]

    def record(self, computation: str, device: str, e: Evaluation) -> None:
        """Store `e`, replacing a stored failure that is not `lasting` (or a claim); a
        lasting evaluation already stored (by a concurrent run) is kept."""
        self._execute(
            "INSERT INTO evaluations (computation, device, config, status,"
            " seconds, times, message, cost, technique, created, options, phases)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (computation, device, config) DO UPDATE SET"
            " status = excluded.status, seconds = excluded.seconds, times = excluded.times,"
            " message = excluded.message, cost = excluded.cost, technique = excluded.technique,"
            " created = excluded.created, options = excluded.options, phases = excluded.phases, confirmed = 0"
            f" WHERE evaluations.status NOT IN ({_LASTING})",
            (computation, device, e.config, e.status, e.seconds, json.dumps(e.times),
             e.message, e.cost, e.technique, time.time(), json.dumps(e.options), json.dumps(e.phases)),
        )  # fmt: skip

    def claim(
        self,
        computation: str,
        device: str,
        config: str,
        worker: str,
        lifetime: float,
        since: float,
        budget: int | None = None,
    ) -> bool:
        """Claim `config` for `worker` to evaluate (a `running` row naming it, which
        `record` replaces). True where nothing is stored for it, or a failure that is not
        `lasting` stored before `since` (by an earlier run), or a claim of this worker or
        one older than `lifetime` seconds (its worker died). One statement, so of
        concurrent claims exactly one wins. With a `budget`, False where `budget` rows
        of other configurations were written since `since` (`counted`: this run's
        results and claims): the count and the claim form one transaction that no other
        claim with a budget overlaps, so a run never claims more than its budget."""
        if budget is None:
            return self._claim(computation, device, config, worker, lifetime, since)
        with self.backend.exclusive():
            if self.counted(computation, device, since, config) >= budget:
                return False
            return self._claim(computation, device, config, worker, lifetime, since)

    def _claim(self, computation: str, device: str, config: str, worker: str, lifetime: float, since: float) -> bool:
        now = time.time()
        claimed = self._execute(
            "INSERT INTO evaluations (computation, device, config, status, seconds, times,"
            " message, cost, technique, created) VALUES (?, ?, ?, ?, NULL, '[]', ?, 0, '', ?)"
            " ON CONFLICT (computation, device, config) DO UPDATE SET"
            " status = excluded.status, seconds = NULL, times = '[]', message = excluded.message,"
            " cost = 0, technique = '', created = excluded.created, options = '{}', phases = '{}', confirmed = 0"
            f" WHERE evaluations.status NOT IN ({_LASTING}) AND CASE WHEN evaluations.status = ?"
            " THEN evaluations.message = excluded.message OR evaluations.created < ?"
            " ELSE evaluations.created < ? END",
            (computation, device, config, RUNNING, worker, now, RUNNING, now - lifetime, since),
        )  # fmt: skip
        return claimed.rowcount == 1

    def counted(self, computation: str, device: str, since: float, besides: str | None = None) -> int:
        """The rows for `computation` on `device` written since `since` (results and
        claims under way), but `besides`'s: a run's evaluations, claimed or done."""
        return self._execute(
            "SELECT COUNT(*) FROM evaluations WHERE computation = ? AND device = ? AND created >= ? AND config != ?",
            (computation, device, since, besides or ""),
        ).fetchone()[0]

    def release(self, computation: str, device: str, worker: str) -> None:
        """Drop the claims `worker` still holds (configurations it drew but did not
        evaluate before its budget ran out), so that nothing waits for them to expire."""
        self._execute(
            "DELETE FROM evaluations WHERE computation = ? AND device = ? AND status = ? AND message = ?",
            (computation, device, RUNNING, worker),
        )

    def confirm(self, computation: str, device: str, config: str, seconds: float) -> None:
        """Replace a stored time by one measured in turns with the default."""
        self._execute(
            "UPDATE evaluations SET seconds = ?, confirmed = 1"
            " WHERE computation = ? AND device = ? AND config = ?",
            (seconds, computation, device, config),
        )

    def best(self, computation: str, device: str) -> Evaluation | None:
        """The fastest confirmed correct evaluation, else the fastest correct one."""
        row = self._execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? AND status = ?"
            " ORDER BY confirmed DESC, seconds, id LIMIT 1",
            (computation, device, OK),
        ).fetchone()
        return _evaluation(row) if row else None

    def computations(self, device: str) -> list[tuple[str, str]]:
        """Every computation (key, `canonical_ir`) with a correct evaluation on `device`."""
        return self._execute(
            "SELECT key, ir FROM computations WHERE EXISTS (SELECT 1 FROM evaluations"
            " WHERE computation = key AND device = ? AND status = ?) ORDER BY key",
            (device, OK),
        ).fetchall()

    def ir(self, computation: str) -> str | None:
        row = self._execute("SELECT ir FROM computations WHERE key = ?", (computation,)).fetchone()
        return row[0] if row else None

    def tuned(self) -> list[tuple[str, str]]:
        """Every (computation, device) with an evaluation."""
        return self._execute(
            "SELECT DISTINCT computation, device FROM evaluations ORDER BY computation, device"
        ).fetchall()

    def evaluations(self, computation: str, device: str) -> list[Evaluation]:
        rows = self._execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? ORDER BY id",
            (computation, device),
        ).fetchall()
        return [_evaluation(r) for r in rows]


def _evaluation(row) -> Evaluation:
    config, status, seconds, times, message, cost, technique, confirmed, options, phases = row
    return Evaluation(
        config, status, seconds, json.loads(times), message, cost, technique, bool(confirmed),
        json.loads(options), json.loads(phases),
    )


def best_config(db: Database, op: ComputeOp, info: DeviceInfo) -> Config | None:
    """The fastest correct configuration known for `op` on the device, if any;
    `DatabaseError` if the database cannot be read or its pick does not parse."""
    try:
        best = db.best(computation_key(op), info.key)
    except (*db.backend.errors(), ValueError) as e:
        raise DatabaseError(db.path, f"unreadable ({e})") from None
    if best is None:
        return None
    try:
        return parse_config(best.config, op)
    except Exception as e:  # noqa: BLE001 - any text can be stored
        reason = " ".join(str(e).split()) or type(e).__name__
        raise DatabaseError(db.path, f"stored configuration '{best.config[:80]}' does not parse: {reason}") from None


def parse_config(text: str, op: ComputeOp) -> Config:
    """The configuration of `op` stored as text (`#mdh.config<...>`)."""
    ctx = Context()
    ctx.load_dialect(MDH)
    attr = Parser(ctx, text).parse_attribute()
    if not isinstance(attr, ConfigAttr):
        raise ConfigError(f"not an #mdh.config: {text[:80]}")
    return Config.complete(Config.from_attr(attr, op))
