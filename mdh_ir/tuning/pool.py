"""Build candidates ahead, in a pool of processes, while one process times on the device.

A tuning spends most of an evaluation compiling: lowering, printing OpenCL and the
OpenCL build (NVIDIA's compiler and PoCL's run on the host's cores). The pool's
builders (`python -m mdh_ir.tuning.pool FD`, one per worker) lower, print and build the
candidates the search has asked for, and hand back each one's lowered IR (its host view,
`runtime.program.host_view`: parsing all of it took most of an evaluation), source and
device binaries (`evaluate.Built`); the evaluation worker, the only process that runs
candidates, loads the program from those binaries and times it. On a CPU device a
builder also runs each program once and checks it: PoCL compiles a kernel's work-group
function at its first launch into its kernel cache, which the evaluation worker then
finds (its first run 250 -> 40 ms, matmul 256^3), and a wrong result is recorded without
the worker. There, builders and timed runs share the cores, so the builders hold the
gate (`mdh_ir.tuning.gate`) shared and the worker's runs hold it exclusive. On a GPU a
builder never runs anything (its runs would share the device with the timed ones).

A build that fails is a result like a time (`build`, `rule`, `wrong`, `error`); one that
takes longer than the time limit is stopped (`timeout`); a builder that dies is replaced
and its candidate built again by the new one, and recorded as `crash` if that dies too.
With no workers the pool builds nothing: it hands candidates back in the order they came
(`Built` None), to be compiled by the evaluation worker as before.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections import deque
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.database.store import OK
from mdh_ir.runtime.timing import Stopwatch
from mdh_ir.schedule.config import Config
from mdh_ir.tuning.evaluate import Built, failure
from mdh_ir.tuning.gate import Gate

ATTEMPTS = 2
"""Builders a candidate may go through (one dying is replaced, its candidate rebuilt)."""
POOL_PHASES = ("pool_lower", "pool_print", "pool_build", "pool_check")
"""An evaluation's phases spent in the pool: its lowering, printing, OpenCL build (with
getting its binaries) and, on a CPU device, first run and check; they overlap the
evaluation worker's time, so they are not part of its cost."""


def _serve(conn: Connection) -> None:
    """Builder loop: receive the computation, then configurations; send `Built`s back."""
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module

    from mdh_ir.semantics.compare import Expected

    module_text, device, inputs, reference, gate = conn.recv()
    module = load_module(make_context(), module_text, "<tuning>")
    expected = Expected(module, reference) if reference is not None else None
    gate = Gate(gate) if gate else None
    while (values := conn.recv()) is not None:
        watch = Stopwatch()
        if gate is None:
            built = _built(module, device, Config(**values), inputs, expected, watch)
        else:
            with gate.shared():
                built = _built(module, device, Config(**values), inputs, expected, watch)
        conn.send((built.status, built.message, built.artifact, {f"pool_{k}": v for k, v in watch.seconds.items()}))


def _built(module, device, cfg: Config, inputs, expected, watch: Stopwatch) -> Built:
    """`cfg` compiled, its binaries taken, and with `inputs` run once and checked
    against `expected` (`compare.Expected`)."""
    from mdh_ir.driver import compile_module
    from mdh_ir.runtime.program import host_view

    try:
        compiled = compile_module(module, device, cfg, stopwatch=watch)
        with watch.phase("build"):
            binaries = compiled.program.binaries()
        if inputs is not None:
            with watch.phase("check"):
                outputs, _ = compiled.run(inputs)
                check = expected.compare(outputs)
            if not check.ok:
                return Built("wrong", check.message)
        return Built(OK, "", (str(host_view(compiled.lowered)), compiled.source, binaries))
    except Exception as e:  # noqa: BLE001 - recorded, tuning goes on
        return Built(*failure(e))


class _Builder:
    """One builder process and the candidate it is building."""

    def __init__(self, worker: str, init: tuple):
        mine, theirs = socket.socketpair()
        self.process = subprocess.Popen([sys.executable, "-m", worker, str(theirs.fileno())], pass_fds=[theirs.fileno()])
        theirs.close()
        self.conn = Connection(mine.detach())
        self.conn.send(init)
        self.job: str | None = None
        self.started = 0.0

    def give(self, key: str, values: dict) -> None:
        self.job, self.started = key, time.perf_counter()
        self.conn.send(values)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.conn.close()


class BuildPool:
    """`workers` builder processes building candidates of `module` for `device`, keyed by
    the caller (`submit`), handed back as they finish (`ready`, `take`)."""

    def __init__(
        self,
        module: ModuleOp,
        device: str | None,
        workers: int,
        timeout: float = 60.0,
        inputs: list[np.ndarray] | None = None,
        reference: list[np.ndarray] | None = None,
        gate: str | None = None,
        worker: str = __name__,
    ):
        """`inputs` and `reference`: run and check each build (on a CPU device);
        `gate`: the gate's path; `worker`: the builders' module (`python -m worker FD`)."""
        self.workers, self.timeout, self.worker = workers, timeout, worker
        self.init = (str(module), device, inputs, reference, gate)
        self.builders = [_Builder(worker, self.init) for _ in range(workers)]
        self.queue: deque[str] = deque()
        self.configs: dict[str, Config] = {}
        self.attempts: dict[str, int] = {}
        self.done: dict[str, Built | None] = {}
        """Finished candidates, in the order they finished."""

    @property
    def ahead(self) -> int:
        """Candidates to keep submitted: enough for every builder and one finished in
        reserve, so the evaluation worker never waits while builders are idle."""
        return self.workers + 2 if self.workers else 1

    def submit(self, key: str, cfg: Config) -> None:
        """Build `cfg` (under `key`), unless it is already submitted."""
        if key in self.configs:
            return
        self.configs[key], self.attempts[key] = cfg, 0
        if self.workers:
            self.queue.append(key)
            self._dispatch()
        else:
            self.done[key] = None

    def ready(self) -> str:
        """The key of a finished candidate (the first to finish), waiting for one."""
        while not self.done:
            self._collect(None)
        return next(iter(self.done))

    def take(self, key: str, cfg: Config) -> Built | None:
        """`cfg`'s build under `key` (submitted now if it is not), waiting for it; None
        from a pool without workers (the evaluation worker compiles it)."""
        self.submit(key, cfg)
        while key not in self.done:
            self._collect(key)
        del self.configs[key], self.attempts[key]
        return self.done.pop(key)

    def discard(self) -> None:
        """Forget every submitted candidate not taken; those being built are dropped."""
        self.queue.clear()
        self.done.clear()
        self.configs.clear()
        self.attempts.clear()

    def _dispatch(self) -> None:
        for builder in list(self.builders):
            if builder.job is None and self.queue:
                if builder.process.poll() is not None:  # died while idle
                    builder = self._replace(builder)
                key = self.queue.popleft()
                self.attempts[key] += 1
                builder.give(key, dict(self.configs[key].__dict__))

    def _collect(self, key: str | None) -> None:
        """Wait for the next builder to answer (or its time limit); `key`: the candidate
        waited for, queued first if it is not being built."""
        if key is not None and key in self.queue:
            self.queue.remove(key)
            self.queue.appendleft(key)
            self._dispatch()
        busy = [b for b in self.builders if b.job is not None]
        if not busy:
            raise RuntimeError("no candidate is being built")
        now = time.perf_counter()
        left = min(b.started + self.timeout - now for b in busy)
        answered = wait([b.conn for b in busy], timeout=max(0.0, left))
        for builder in busy:
            if builder.conn in answered:
                self._answer(builder)
            elif time.perf_counter() - builder.started > self.timeout:
                self._finish(builder, Built("timeout", f"build exceeded {self.timeout:g} s"), replace=True)
        self._dispatch()

    def _answer(self, builder: _Builder) -> None:
        try:
            status, message, artifact, phases = builder.conn.recv()
        except (EOFError, ConnectionError):
            key = builder.job
            code = builder.process.wait()
            if key in self.configs and self.attempts[key] < ATTEMPTS:
                self.queue.appendleft(key)
                self._replace(builder)
            else:
                self._finish(builder, Built("crash", f"builder exited with {code}"), replace=True)
            return
        self._finish(builder, Built(status, message, artifact, phases))

    def _finish(self, builder: _Builder, built: Built, replace: bool = False) -> None:
        if builder.job in self.configs:
            self.done[builder.job] = built
        builder.job = None
        if replace:
            self._replace(builder)

    def _replace(self, builder: _Builder) -> _Builder:
        builder.kill()
        fresh = _Builder(self.worker, self.init)
        self.builders[self.builders.index(builder)] = fresh
        return fresh

    def close(self) -> None:
        for builder in self.builders:
            builder.kill()
        self.builders = []

    def __enter__(self) -> BuildPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
