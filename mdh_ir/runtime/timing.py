"""Timing on OpenCL devices: the gate that timed commands queue behind, the cache flush
between runs, and a program's span by its profiling events; and a `Stopwatch` of the
wall time that compiling and running spend in each phase.

Each timed repeat's commands are queued behind a gate, a kernel that keeps the device
busy while the host enqueues them, so that their profiling events time the kernels and
not the host's submission of each one: a kernel enqueued onto an idle H100 is timed
longer than the same kernel found waiting in the queue (measured, one process, in
turns: an empty kernel 6.8 us and 3.2 us; MatMul 10x500x64 8.0 us and 4.7 us; a 64 MB
reduction 29.8 us and 26.5 us). Queued back to back is how a program's kernels run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np

from mdh_ir.runtime.devices import _context, select_device


FLUSH_SOURCE = """
__kernel void read_through(__global const uint4* scratch, __global uint* sink, uint n) {
    uint4 x = (uint4)(0);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) x ^= scratch[i];
    if (x.x == 0x9E3779B9u && x.y == 0x7F4A7C15u) sink[0] = x.z;
}
"""


@cache
def _flush_kernel(ctx):
    """The flush kernel (`FLUSH_SOURCE`), built once per context."""
    import pyopencl as cl

    return cl.Kernel(cl.Program(ctx, FLUSH_SOURCE).build(), "read_through")


GATE_SOURCE = """
__kernel void gate(__global float* cell, int n) {
    float x = cell[0];
    for (int i = 0; i < n; ++i) x = fma(x, 0.999f, 0.001f);
    if (x == -1.0f) cell[0] = x;
}
"""
GATE_STEPS = 100_000
"""Dependent FMAs of one work-item: about 230 us on an H100, 140 us on PoCL, longer than
the host takes to enqueue a program's commands behind it."""


@cache
def _gate(queue):
    """A function enqueueing the gate (`GATE_SOURCE`) on `queue`, built once per queue."""
    import pyopencl as cl

    ctx = queue.context
    kernel = cl.Kernel(cl.Program(ctx, GATE_SOURCE).build(), "gate")
    cell = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ones(1, np.float32))
    return lambda: kernel(queue, (1,), (1,), cell, np.int32(GATE_STEPS))


def gated(queue, enqueue: Callable[[], object]):
    """`enqueue()`'s result, its commands queued behind the gate (module docstring)."""
    _gate(queue)()
    return enqueue()


@cache
def _flusher(ctx, nbytes: int):
    """A function enqueueing a read of `nbytes` of scratch memory, which evicts other
    data from the caches. Reading, not writing: written lines would be written back
    while the next kernel runs (on an H100 a 256 MB fill added 7 us to every 64 MB
    read timed after it; the read adds nothing)."""
    import pyopencl as cl

    scratch = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=nbytes)
    sink = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=4)
    words, kernel = np.uint32(nbytes // 16), _flush_kernel(ctx)
    return lambda queue: kernel(queue, (1 << 16,), None, scratch, sink, words)


def flush(device: str | None, nbytes: int) -> None:
    """Read `nbytes` of scratch memory on `device` (`select_device`) and wait for it:
    afterwards no earlier command's data is cache-resident, and no line it wrote is still
    waiting to be written back."""
    ctx, queue = _context(select_device(device))
    _flusher(ctx, nbytes)(queue).wait()


def span(events) -> float:
    """Seconds from the start of the first of `events` to the end of the last, by their
    profiling: what a program's commands take together, the gaps between them included
    (summing each one's duration would leave the gaps out)."""
    return (max(e.profile.end for e in events) - min(e.profile.start for e in events)) * 1e-9


class Stopwatch:
    """Seconds spent in named phases (`phase`, `add`). A phase inside another is not
    counted in the outer one too, so the phases add up to the time they took together:
    the timed runs' phase holds their cache flushes' time as a phase of its own."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._inner: list[float] = []
        """Per open phase, the seconds of the phases inside it."""

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Count the wall time of the `with` block to `name`."""
        start = time.perf_counter()
        self._inner.append(0.0)
        try:
            yield
        finally:
            spent = time.perf_counter() - start
            self._count(name, spent - self._inner.pop(), spent)

    def add(self, name: str, seconds: float) -> None:
        """Count `seconds` measured otherwise (by profiling events) to `name`."""
        self._count(name, seconds, seconds)

    def _count(self, name: str, own: float, total: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + own
        if self._inner:
            self._inner[-1] += total
