"""Evaluate candidate configurations in a worker process.

The worker uploads the inputs once (`KeptInputs`: per OpenCL context, read by every
candidate's runs; no run writes them, `mdh_ir.runtime.inputs`). For each configuration
it lowers and builds the program, runs it once on those inputs and compares the result
with the reference where it lies, on the device (`mdh_ir.tuning.device_check`: only a
failure's outputs are downloaded, for the host's comparison and its message; a wrong
result is a failure, never a time), then times `repeats` runs and reports the median
kernel time (their outputs stay on the device).
Before each timed run the worker reads `FLUSH_BYTES` of scratch memory, so no
candidate is timed on inputs that the previous run left in the caches (on an H100,
inputs up to its 50 MB L2 would stay resident and flatter candidates that a real
program, calling other code in between, would not see). A candidate whose checked run
is already `CUTOFF` times slower than the best so far is not timed further: its one
run is its time. Once a candidate is built, its runs get the time that a candidate
`CUTOFF` times slower than the best could need (plus `RUN_SLACK` seconds for transfers
and the check); a worker still running then is stopped and the candidate recorded as
`slow` (in a search's first draws, single runs of 100-600 times the best are common:
40 s of a 60 s budget for one useless candidate). `interleave` times finished
candidates against each other, one median of `repeats` runs of each in turn, `rounds`
times over, so they share the machine's conditions (the tuner's final check of its
pick; `prepare` compiles some of them ahead, while the worker would wait). The worker
is a separate process so that a candidate that hangs is stopped by the time limit and
one that crashes the OpenCL driver is recorded (`timeout`, `crash`)
while tuning goes on with a fresh worker. Inputs and the reference result are computed
once, by the parent. Each evaluation records where its cost went (`PHASES`).

A candidate built ahead by the build pool (`mdh_ir.tuning.pool`) comes with its lowered
IR, OpenCL source and device binaries: the worker loads the program from those (`load`)
instead of compiling it, and one that failed in the pool is recorded without the worker.
With a `gate` (`mdh_ir.tuning.gate`, on a CPU device) the worker holds it from the
checked run (the upload before it, where there is one) to the last timed run, so that
no build runs beside a timed run.

The worker is `python -m mdh_ir.tuning.evaluate FD`, talking over a socket pair, so it
never re-imports the caller's main module.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.database.store import OK, Evaluation
from mdh_ir.runtime.devices import open_device
from mdh_ir.runtime.inputs import DeviceInputs
from mdh_ir.runtime.timing import Stopwatch
from mdh_ir.schedule.config import Config
from mdh_ir.tuning.gate import Gate

READY_TIMEOUT = 600.0
CUTOFF = 3.0
RUN_SLACK = 5.0
FLUSH_BYTES = 256 << 20
PHASES = ("start", "lower", "print", "build", "load", "gate", "upload", "check", "flush", "timed", "stopped", "other")
"""Where an evaluation's cost goes (`Evaluation.phases`), in wall seconds: starting a
worker (the first evaluation's, and the next one's after a worker was stopped),
configuring and lowering, printing OpenCL, the OpenCL build, loading a program built in
the pool (parsing its lowered IR, loading its binaries), waiting for the builds under
way to finish before the runs (`gate`, on a CPU device), uploading the inputs (the
first evaluation's, and the next one's after a worker was stopped), the
checked run with the comparison against the reference, the cache flushes before each
run, the timed runs (without their flushes), the whole time of an evaluation whose worker
was stopped (`timeout`, `slow`) or died (`crash`), and the rest (messages between the
processes)."""


@dataclass(frozen=True)
class Built:
    """A candidate built in the pool: `status` OK with `artifact` (its lowered IR's host
    view, `runtime.program.host_view`, OpenCL source and device binaries), or the failure
    that ended its build; `phases`: the pool's seconds (`pool.POOL_PHASES`), not counted
    in the evaluation's cost."""

    status: str
    message: str = ""
    artifact: tuple[str, str, list[bytes]] | None = None
    phases: dict[str, float] = field(default_factory=dict)


def _serve(conn: Connection) -> None:
    """Worker loop: receive the computation, then configurations; send results back."""
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module

    from mdh_ir.semantics.compare import Expected
    from mdh_ir.tuning.device_check import DeviceCheck

    module_text, device, repeats, gate = conn.recv()
    ctx = make_context()
    module = load_module(ctx, module_text, "<tuning>")
    open_device(device)
    inputs, reference = conn.recv()  # the caller may send them later (`Evaluator.supply`)
    check = DeviceCheck(Expected(module, reference))
    kept = KeptInputs(inputs)
    gate = Gate(gate) if gate else None
    prepared: dict[str, Any] = {}
    conn.send("ready")
    while (request := conn.recv()) is not None:
        kind, payload = request
        if kind == "prepare":
            _prepare(module, device, payload, prepared)
            continue
        if kind == "interleave":
            try:
                conn.send((OK, _interleaved(module, device, kept, repeats, prepared, *payload)))
            except Exception as e:  # noqa: BLE001 - the caller keeps its earlier times
                conn.send(("error", "".join(traceback.format_exception_only(e)).strip()))
            continue
        values, best, built = payload
        watch = Stopwatch()
        cfg = Config(**values)
        program = (lambda: _loaded(ctx, device, built, watch)) if built else (lambda: _compiled(module, device, cfg, watch))
        result = _evaluated(conn, program, kept, check, repeats, best, watch, gate)
        conn.send((*result, watch.seconds))


class KeptInputs:
    """The computation's inputs, uploaded once per OpenCL context (`Program.upload`) for
    the runs of every candidate there: uploading them for each candidate cost an H100
    41 ms of an evaluation's 240 (matmul 3000^3, two 36 MB inputs)."""

    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = arrays
        self.uploaded: dict[object, DeviceInputs] = {}

    def of(self, program) -> DeviceInputs:
        """The inputs on `program`'s context, uploaded by `program` if not yet there."""
        if program.ctx not in self.uploaded:
            self.uploaded[program.ctx] = program.upload(self.arrays)
        return self.uploaded[program.ctx]


def _compiled(module, device, cfg: Config, watch: Stopwatch):
    """`cfg`'s program, compiled here (`watch`: lower, print, build)."""
    from mdh_ir.driver import compile_module

    return compile_module(module, device, cfg, stopwatch=watch).program


def _loaded(ctx, device, built: tuple[str, str, list[bytes]], watch: Stopwatch):
    """The program the pool built (`built`: the lowered IR's host view, the OpenCL
    source, the device binaries; `runtime.program.host_view`)."""
    from xdsl.parser import Parser

    from mdh_ir.runtime import Program

    lowered, source, binaries = built
    with watch.phase("load"):
        return Program(Parser(ctx, lowered).parse_module(), source, device, binaries)


def _evaluated(conn, program_of, kept: KeptInputs, check, repeats: int, best, watch, gate) -> tuple:
    """(status, seconds, times, message) of the program `program_of()` makes, run on
    `kept`'s inputs and checked by `check` (`device_check.DeviceCheck`); sends "built"
    once it is built. `watch` counts the phases (`PHASES`); the runs hold `gate`, if
    any (its waiting counted as `gate`)."""
    try:
        program = program_of()
        conn.send("built")
        with gate.exclusive() if gate is not None else nullcontext():
            if gate is not None:
                watch.add("gate", gate.waited)
            with watch.phase("upload"):
                resident = kept.of(program)
            with watch.phase("check"):
                outputs, first = program.run(resident, 1, FLUSH_BYTES, watch, download=False)
                checked = check.compare(program, outputs)
            if not checked.ok:
                return "wrong", None, [], checked.message
            if best is not None and first[0] > CUTOFF * best:
                return OK, first[0], first, f"{checked.message}; one run: > {CUTOFF:g}x best"
            with watch.phase("timed"):
                _, times = program.run(resident, repeats, FLUSH_BYTES, watch, download=False)
        return OK, statistics.median(times), times, checked.message
    except Exception as e:  # noqa: BLE001 - recorded, tuning goes on
        status, message = failure(e)
        return status, None, [], message


def failure(e: Exception) -> tuple[str, str]:
    """The status and message of a candidate whose compilation or run raised `e`: a
    broken rule, an OpenCL build error (its log's end), or another error."""
    from mdh_ir.errors import MDHError
    from mdh_ir.runtime import BuildError

    if isinstance(e, MDHError):
        return "rule", str(e)
    if isinstance(e, BuildError):
        return "build", e.log[-2000:]
    return "error", "".join(traceback.format_exception_only(e)).strip()


def _prepare(module, device, configs: list[dict], prepared: dict[str, Any]) -> None:
    """Compile `configs` for a later `_interleaved`, into `prepared` (configuration text
    -> program); one that fails is left to fail there."""
    from mdh_ir.driver import compile_module

    for values in configs:
        cfg = Config(**values)
        try:
            prepared[str(cfg.to_attr())] = compile_module(module, device, cfg).program
        except Exception:  # noqa: BLE001 - compiled again, and its error reported, by the timing
            pass


def _interleaved(module, device, kept: KeptInputs, repeats: int, prepared: dict[str, Any], configs: list[dict],
                 rounds: int) -> list[float]:  # fmt: skip
    """Median kernel time of each configuration, timed in turns on `kept`'s inputs (the
    `prepared` programs where there are)."""
    from mdh_ir.driver import compile_module

    cfgs = [Config(**values) for values in configs]
    programs = [prepared.get(str(c.to_attr())) or compile_module(module, device, c).program for c in cfgs]
    times: list[list[float]] = [[] for _ in programs]
    for _ in range(rounds):
        for program, t in zip(programs, times):
            t.append(statistics.median(program.run(kept.of(program), repeats, FLUSH_BYTES, download=False)[1]))
    return [statistics.median(t) for t in times]


class Evaluator:
    """Evaluates configurations of one computation on one device."""

    def __init__(
        self,
        module: ModuleOp,
        inputs: list[np.ndarray] | None,
        reference: list[np.ndarray] | None,
        device: str | None,
        repeats: int = 10,
        timeout: float = 60.0,
        worker: str = __name__,
        gate: str | None = None,
    ):
        """`inputs` and `reference` None: given later (`supply`), before the first
        request; `worker`: the module run as the worker (`python -m worker FD`); `gate`:
        the path of the gate (`mdh_ir.tuning.gate`) its runs hold, if any."""
        self.head = (str(module), device, repeats, gate)
        self.data = None if inputs is None or reference is None else (inputs, reference)
        self.repeats = repeats
        self.worker = worker
        self.timeout = timeout
        self.process: Any = None
        self.conn: Any = None
        self.ready = False

    def start(self) -> None:
        """Start the worker now, without waiting for it to be ready (the first request
        waits; else the first evaluation starts it): its imports, parse, opening the
        device and, once supplied, prepared reference overlap the caller's work."""
        if self.process is None or self.process.poll() is not None:
            self._stop()
            mine, theirs = socket.socketpair()
            self.process = subprocess.Popen(
                [sys.executable, "-m", self.worker, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
            )
            theirs.close()
            self.conn = Connection(mine.detach())
            self.conn.send(self.head)
            if self.data is not None:
                self.conn.send(self.data)
            self.ready = False

    def supply(self, inputs: list[np.ndarray], reference: list[np.ndarray]) -> None:
        """The inputs and the reference result, for a worker started without them (while
        the caller computed them): sent now if it runs, else when it starts."""
        self.data = (inputs, reference)
        if self.process is not None and self.process.poll() is None:
            try:
                self.conn.send(self.data)
            except OSError:  # it died starting: the next request starts another
                self._stop()

    def _ensure_running(self) -> None:
        assert self.data is not None, "the evaluator's inputs and reference come first (`supply`)"
        self.start()
        if not self.ready:
            if not self.conn.poll(READY_TIMEOUT) or self.conn.recv() != "ready":
                raise RuntimeError("the evaluation worker did not start")
            self.ready = True

    def prepare(self, cfgs: list[Config]) -> None:
        """Have the worker compile `cfgs` now, for a later `interleave` of them (a shared
        tuning's final check prepares the default while its workers tune)."""
        assert self.data is not None, "the evaluator's inputs and reference come first (`supply`)"
        self.start()
        self.conn.send(("prepare", [dict(c.__dict__) for c in cfgs]))

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        if self.conn is not None:
            self.conn.close()
        self.process = self.conn = None

    def evaluate(
        self,
        cfg: Config,
        technique: str = "",
        best: float | None = None,
        built: Built | None = None,
        meanwhile: Callable[[], None] | None = None,
    ) -> Evaluation:
        """Evaluate `cfg`; `best` (seconds) lets a clearly slower candidate stop early.
        `built`: the pool's build of `cfg` (else the worker compiles it); a failed one is
        recorded as it failed, with the pool's phases and no cost. `meanwhile` is called
        once the worker has the candidate, before waiting for its result; its time is
        not the evaluation's cost (the worker's phases are, where they overlapped it)."""
        text = str(cfg.to_attr())
        options = {"timeout": self.timeout, "repeats": self.repeats}
        pooled = built.phases if built is not None else {}
        if built is not None and built.status != OK:
            return Evaluation(text, built.status, None, [], built.message, 0.0, technique, options=options, phases=pooled)
        start = time.perf_counter()
        self._ensure_running()
        sent = time.perf_counter()
        phases = {"start": sent - start}
        self.conn.send(("evaluate", (dict(cfg.__dict__), best, built.artifact if built is not None else None)))
        overlapped = 0.0
        if meanwhile is not None:
            meanwhile()
            overlapped = time.perf_counter() - sent
        try:
            status, seconds, times, message, *measured = self._reply(sent, best)
        except (EOFError, ConnectionError):
            code = self.process.wait() if self.process is not None else None
            self._stop()
            status, seconds, times, message, measured = "crash", None, [], f"worker exited with {code}", []
        cost = time.perf_counter() - start - overlapped
        phases.update(*measured or [{"stopped": cost - phases["start"]}])
        cost = max(cost, sum(phases.values()))
        phases["other"] = max(0.0, cost - sum(phases.values()))
        phases.update(pooled)
        return Evaluation(text, status, seconds, times, message, cost, technique, options=options, phases=phases)

    def _reply(self, start: float, best: float | None) -> tuple:
        """The worker's result and its phases, or a `timeout` or `slow` failure once it
        is stopped."""
        if not self.conn.poll(self.timeout):
            return self._stopped("timeout", f"exceeded {self.timeout:g} s")
        reply = self.conn.recv()
        if reply != "built":
            return reply
        left = self.timeout - (time.perf_counter() - start)
        limit = left if best is None else RUN_SLACK + CUTOFF * best * (1 + self.repeats)
        if self.conn.poll(min(left, limit)):
            return self.conn.recv()
        if limit < left:
            return self._stopped("slow", f"runs exceeded {limit:.3g} s")
        return self._stopped("timeout", f"exceeded {self.timeout:g} s")

    def _stopped(self, status: str, message: str) -> tuple:
        self._stop()
        return status, None, [], message

    def interleave(self, cfgs: list[Config], rounds: int) -> list[float] | None:
        """Median times of `cfgs` timed in turns, or None if that failed."""
        self._ensure_running()
        self.conn.send(("interleave", ([dict(c.__dict__) for c in cfgs], rounds)))
        try:
            if self.conn.poll(self.timeout * len(cfgs)):
                status, result = self.conn.recv()
                return result if status == OK else None
        except (EOFError, ConnectionError):
            pass
        self._stop()
        return None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
