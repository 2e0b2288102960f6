"""The tuning database: every evaluation of every configuration, in SQLite.

An evaluation is keyed by the computation (`computation_key`: a hash of the canonical
IR of the op and the functions it calls, without its configuration; sizes are part of
the op), the device (`DeviceInfo.key`: platform, device name, driver version) and the
configuration (its `#mdh.config` text). Each evaluation is written in its own
transaction, so a process killed mid-write leaves the database consistent; several
processes may share one file (WAL journal, busy timeout, insert-or-ignore on the key).
A time measured in turns with the default when tuning ends is marked `confirmed`; the
best configuration is the fastest confirmed one (a single flattering time of a
candidate never timed again does not outrank it), else the fastest of all. Each
evaluation keeps where its cost went, in seconds per phase (JSON, `phases`).

The default file is `$MDH_TUNING_DB`, else `~/.cache/mdh_ir/tuning.sqlite`. The tuner
writes it (`mdh_ir.tuning`); the compile driver reads its best configurations
(`best_config`, `mdh_ir.driver.choose`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
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

from mdh_ir.schedule.config import Config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import MDH, ComputeOp

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
    phases TEXT NOT NULL DEFAULT '{}',
    UNIQUE (computation, device, config)
);
CREATE INDEX IF NOT EXISTS best ON evaluations (computation, device, status, seconds);
"""
ADDED_COLUMNS = {"confirmed": "INTEGER NOT NULL DEFAULT 0", "phases": "TEXT NOT NULL DEFAULT '{}'"}
"""Columns added to `evaluations` after its first version: an older database gets them."""

OK = "ok"
"""Status of a correct, timed evaluation; every other status is a failure:
`wrong` (result differs from the reference), `build` (OpenCL build error), `rule`
(refused by a constraint), `timeout`, `slow` (stopped: its runs took longer than a
candidate `evaluate.CUTOFF` times slower than the best could), `crash` (the evaluating
process died), `error`."""


def default_path() -> Path:
    env = os.environ.get("MDH_TUNING_DB")
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


_COLUMNS = "config, status, seconds, times, message, cost, technique, confirmed, phases"
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
    phases: dict[str, float] = field(default_factory=dict)
    """Where its `cost` went: wall seconds per phase (`mdh_ir.tuning.evaluate`)."""

    @property
    def ok(self) -> bool:
        return self.status == OK


class Database:
    def __init__(self, path: Path | str = ":memory:"):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(path), timeout=60, isolation_level=None)
        self.conn.execute("PRAGMA busy_timeout = 60000")
        if str(path) != ":memory:":
            self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(SCHEMA)
        columns = [row[1] for row in self.conn.execute("PRAGMA table_info(evaluations)")]
        for column, definition in ADDED_COLUMNS.items():
            if column not in columns:  # a database written before the column existed
                self.conn.execute(f"ALTER TABLE evaluations ADD COLUMN {column} {definition}")

    def add_computation(self, op: ComputeOp) -> str:
        key = computation_key(op)
        with self.conn:
            self.conn.execute(
                "INSERT OR IGNORE INTO computations VALUES (?, ?)", (key, canonical_ir(op))
            )
        return key

    def lookup(self, computation: str, device: str, config: str) -> Evaluation | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? AND config = ?",
            (computation, device, config),
        ).fetchone()
        return _evaluation(row) if row else None

    def record(self, computation: str, device: str, e: Evaluation) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR IGNORE INTO evaluations (computation, device, config, status,"
                " seconds, times, message, cost, technique, created, phases)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (computation, device, e.config, e.status, e.seconds, json.dumps(e.times),
                 e.message, e.cost, e.technique, time.time(), json.dumps(e.phases)),
            )  # fmt: skip

    def confirm(self, computation: str, device: str, config: str, seconds: float) -> None:
        """Replace a stored time by one measured in turns with the default."""
        with self.conn:
            self.conn.execute(
                "UPDATE evaluations SET seconds = ?, confirmed = 1"
                " WHERE computation = ? AND device = ? AND config = ?",
                (seconds, computation, device, config),
            )

    def best(self, computation: str, device: str) -> Evaluation | None:
        """The fastest confirmed correct evaluation, else the fastest correct one."""
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? AND status = ?"
            " ORDER BY confirmed DESC, seconds, id LIMIT 1",
            (computation, device, OK),
        ).fetchone()
        return _evaluation(row) if row else None

    def computations(self, device: str) -> list[tuple[str, str]]:
        """Every computation (key, `canonical_ir`) with a correct evaluation on `device`."""
        return self.conn.execute(
            "SELECT key, ir FROM computations WHERE EXISTS (SELECT 1 FROM evaluations"
            " WHERE computation = key AND device = ? AND status = ?) ORDER BY key",
            (device, OK),
        ).fetchall()

    def ir(self, computation: str) -> str | None:
        row = self.conn.execute("SELECT ir FROM computations WHERE key = ?", (computation,)).fetchone()
        return row[0] if row else None

    def tuned(self) -> list[tuple[str, str]]:
        """Every (computation, device) with an evaluation."""
        return self.conn.execute(
            "SELECT DISTINCT computation, device FROM evaluations ORDER BY computation, device"
        ).fetchall()

    def evaluations(self, computation: str, device: str) -> list[Evaluation]:
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM evaluations"
            " WHERE computation = ? AND device = ? ORDER BY id",
            (computation, device),
        ).fetchall()
        return [_evaluation(r) for r in rows]


def _evaluation(row) -> Evaluation:
    config, status, seconds, times, message, cost, technique, confirmed, phases = row
    return Evaluation(
        config, status, seconds, json.loads(times), message, cost, technique, bool(confirmed), json.loads(phases)
    )


def best_config(db: Database, op: ComputeOp, info: DeviceInfo) -> Config | None:
    """The fastest correct configuration known for `op` on the device, if any."""
    best = db.best(computation_key(op), info.key)
    return None if best is None else parse_config(best.config, op)


def parse_config(text: str, op: ComputeOp) -> Config:
    """The configuration of `op` stored as text (`#mdh.config<...>`)."""
    ctx = Context()
    ctx.load_dialect(MDH)
    attr = Parser(ctx, text).parse_attribute()
    return Config(**Config.from_attr(attr, op))  # type: ignore[arg-type]
