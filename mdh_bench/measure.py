"""Timing: variants prepared for measurement (`Sampler`), their interleaved timing, the
resulting `Measurement`s, and the device's roofline (copy bandwidth and FMA peak)
measured with OpenCL profiling events.

The variants of a case are timed round-robin: one run of each, `repeats` times over, so
that every variant sees the same conditions (other work on a shared machine, clocks) and
their ratios hold even when absolute times drift. Each round runs the variants in a
new (seeded) random order: on PoCL the first kernel run after a long host computation
is slow (measured: gaussian 4096² run right after numpy's 0.3 s einsum 21.2 ms, run
again 11.3 ms), so a fixed order would charge that to whichever variant follows the
slow peer, in every round. On CPUs, each run waits until the process's threads are
idle (`settle`): OpenBLAS's worker threads spin for about 110 ms after every call, and
on a 2-core machine a PoCL kernel timed in that window runs on one core (matvec 4096²:
2.0 ms alone, 2.6-3.0 ms within 110 ms after numpy's `A @ x`). Every variant thus
starts from sleeping threads, numpy's included. GPU runs do not wait: an idle GPU
clocks down (H100, dot 2^24 with a 5 ms pause before each run: the copy 49 -> 59 us).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

POISON = np.uint8(0x7F)
"""Byte pattern that output buffers are filled with before a run: 0x7F7F7F7F is a huge
finite float (3.4e38), so an output that is not written fails the check, and a BLAS
routine that scales C by beta = 0 still gets 0."""


@dataclass
class Measurement:
    """One variant of one case: its times (seconds), or why there are none."""

    variant: str
    times: list[float] = field(default_factory=list)
    note: str = ""
    """How it was measured, the check result, or why it is not available."""
    available: bool = True
    tuning: str = ""
    """The tuning (autotuning, compilation) the variant was given before it was timed."""

    @staticmethod
    def missing(variant: str, reason: str) -> Measurement:
        return Measurement(variant, [], reason, available=False)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def min(self) -> float | None:
        return min(self.times) if self.times else None

    @property
    def max(self) -> float | None:
        return max(self.times) if self.times else None


@dataclass
class Sampler:
    """A variant built, warmed up and checked against the reference: each call of
    `sample` runs it once and returns {variant: seconds} (one run may time several
    variants, e.g. a routine and its last kernel)."""

    sample: Callable[[], dict[str, float]]
    notes: dict[str, str]
    """The variants it times, each with its note."""
    tuning: dict[str, str] = field(default_factory=dict)
    """The tuning each variant was given (a peer's autotuning: configurations, seconds)."""


def host_sampler(variant: str, run: Callable[[], object], note: str) -> Sampler:
    """Wall-clock time of one call of `run`."""

    def sample() -> dict[str, float]:
        start = time.perf_counter()
        run()
        return {variant: time.perf_counter() - start}

    return Sampler(sample, {variant: note})


def settle(quiet: float = 0.1, probe: float = 0.005, calm: int = 3, limit: float = 1.0) -> None:
    """Wait until this process uses less than `quiet` of a core during each of `calm`
    successive `probe`-second sleeps (its other threads idle), at most `limit` seconds.
    Several probes: on a loaded machine a spinning thread can go a whole probe without
    being scheduled."""
    end = time.perf_counter() + limit
    still = 0
    while still < calm and time.perf_counter() < end:
        start = time.process_time()
        time.sleep(probe)
        still = still + 1 if time.process_time() - start < quiet * probe else 0


def interleave(
    prepared: list[Sampler | Measurement], repeats: int, idle: bool, before: Callable[[], None] | None = None
) -> list[Measurement]:
    """Time every sampler `repeats` times, round-robin (each round in a new random
    order, each run after `before()` if given, then after `settle` if `idle`), after one
    warm-up round; a sampler that raises is dropped and its variants marked unavailable.
    Measurements in `prepared` (unavailable, or timed elsewhere) are passed through in
    order."""
    failed: dict[int, str] = {}
    times: dict[str, list[float]] = {}
    samplers = [(i, p) for i, p in enumerate(prepared) if isinstance(p, Sampler)]
    order = random.Random(0)
    for round_ in range(repeats + 1):
        for i, sampler in order.sample(samplers, len(samplers)):
            if i in failed:
                continue
            if before is not None:
                before()
            if idle:
                settle()
            try:
                result = sampler.sample()
            except Exception as e:  # noqa: BLE001 - the other variants go on
                failed[i] = f"failed while timed ({type(e).__name__}: {str(e)[:300]})"
                continue
            if round_ > 0:
                for variant, seconds in result.items():
                    times.setdefault(variant, []).append(seconds)
    out: list[Measurement] = []
    for i, p in enumerate(prepared):
        if isinstance(p, Measurement):
            out.append(p)
        elif i in failed:
            out += [Measurement.missing(v, failed[i]) for v in p.notes]
        else:
            out += [Measurement(v, times[v], note, tuning=p.tuning.get(v, "")) for v, note in p.notes.items()]
    return out


def attempt(variant: str, prepare: Callable[[], Sampler | Measurement]) -> Sampler | Measurement:
    """`prepare()`, or an unavailable measurement naming the error it raised."""
    try:
        return prepare()
    except Exception as e:  # noqa: BLE001 - a failing variant must not stop the run
        reason = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        return Measurement.missing(variant, f"failed ({reason[:300]})")


def event_seconds(event) -> float:
    """Duration of a finished OpenCL command from its profiling information."""
    return (event.profile.end - event.profile.start) * 1e-9


@dataclass(frozen=True)
class Roofline:
    """The device's attainable rates, measured in the same run as the cases."""

    copy_bandwidth: float
    """Bytes per second, read + written, of the faster of clEnqueueCopyBuffer and a copy kernel."""
    fma_peak: float
    """FLOP per second (an FMA counts 2) of a kernel of long independent FMA chains."""
    empty_kernel: float | None = None
    """Seconds, median, that the profiling events give a kernel doing nothing: the
    floor under every kernel time (None in runs recorded before it was measured)."""

    def fraction(self, seconds: float, nbytes: int, flops: int) -> float:
        """Share of the roofline reached: the lower bound on the time (moving `nbytes`
        at copy bandwidth, or `flops` at the FMA peak, whichever takes longer) / time."""
        return max(nbytes / self.copy_bandwidth, flops / self.fma_peak) / seconds

    def bound(self, nbytes: int, flops: int) -> str:
        return "memory" if nbytes / self.copy_bandwidth >= flops / self.fma_peak else "compute"


_COPY_KERNEL = """
__kernel void copy(__global const float4 *src, __global float4 *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
"""

_STREAM_KERNEL = """
__kernel void stream(__global const float4 *src, __global float4 *dst, uint reads, uint writes) {
    uint i = get_global_id(0), n = get_global_size(0);
    float4 a = i < reads ? src[i] : (float4)(0.0f);
    float4 b = i + n < reads ? src[i + n] : (float4)(0.0f);
    if (i < writes) dst[i] = a;
    if (i + n < writes) dst[i + n] = b;
    if (a.x + b.x == -1.0f) dst[0] = a;
}
"""
"""Reads `reads` and writes `writes` float4s, two of each per work-item (the best of a
sweep of hand-written reading kernels on the H100: 2 loads in flight, float4), the
values read kept alive by a store that never happens (the source holds ones)."""

_EMPTY_KERNEL = "__kernel void empty(__global float *out) {}"

_FMA_CHAINS = 8
_FMA_KERNEL = """
__kernel void fma_peak(__global float *out, float a, float b, int iterations) {
    float8 x[CHAINS];
    for (int c = 0; c < CHAINS; ++c)
        x[c] = (float8)(get_global_id(0) * 1e-9f + c);
    for (int i = 0; i < iterations; ++i) {
        #pragma unroll
        for (int c = 0; c < CHAINS; ++c)
            x[c] = fma(x[c], (float8)(a), (float8)(b));
    }
    float8 s = x[0];
    for (int c = 1; c < CHAINS; ++c)
        s += x[c];
    out[get_global_id(0)] = s.s0 + s.s1 + s.s2 + s.s3 + s.s4 + s.s5 + s.s6 + s.s7;
}
"""


def measure_roofline(ctx, queue, device, nbytes: int = 512 << 20, repeats: int = 5) -> Roofline:
    """Copy bandwidth (copying `nbytes`) and FMA peak of the OpenCL device, best of
    `repeats` each, and the time of an empty kernel."""
    copy = _copy_bandwidth(ctx, queue, device, nbytes, repeats)
    return Roofline(copy, _fma_peak(ctx, queue, device, repeats), _empty_kernel(ctx, queue))


def _finished(event) -> float:
    event.wait()
    return event_seconds(event)


def _timed(queue, enqueue: Callable[[], object]) -> float:
    """Seconds of the command `enqueue()` enqueues, queued behind the runtime's gate
    (`mdh_ir.runtime.gated`), as our programs' kernels are."""
    from mdh_ir.runtime import gated

    return _finished(gated(queue, enqueue))


@cache
def _copy_kernel(ctx):
    """The copy kernel, built once per context (the roofline and every case use it)."""
    import pyopencl as cl

    return cl.Kernel(cl.Program(ctx, _COPY_KERNEL).build(), "copy")


def _copy_bandwidth(ctx, queue, device, nbytes: int, repeats: int) -> float:
    import pyopencl as cl

    nbytes = min(nbytes, device.max_mem_alloc_size // 2) // 64 * 64
    src = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
    dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, nbytes)
    _finished(cl.enqueue_fill_buffer(queue, src, np.float32(1), 0, nbytes))
    _finished(cl.enqueue_fill_buffer(queue, dst, np.float32(0), 0, nbytes))
    kernel = _copy_kernel(ctx)
    copies = [
        lambda: cl.enqueue_copy(queue, dst, src, byte_count=nbytes),
        lambda: kernel(queue, (nbytes // 16,), None, src, dst),
    ]
    best = min(min(_timed(queue, copy) for _ in range(repeats + 1)) for copy in copies)
    return 2 * nbytes / best


def copy_sampler(ctx, queue, nbytes: int) -> Sampler:
    """The roofline's copy kernel moving `nbytes` (half read, half written), timed by
    its profiling event: what moving a case's data once costs at that size."""
    import pyopencl as cl

    half = max(16, nbytes // 2 // 16 * 16)
    src = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, half)
    dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, half)
    _finished(cl.enqueue_fill_buffer(queue, src, np.float32(1), 0, half))
    kernel = _copy_kernel(ctx)
    return Sampler(
        lambda: {"copy": _timed(queue, lambda: kernel(queue, (half // 16,), None, src, dst))},
        {"copy": f"float4 copy kernel, {half} bytes read and written"},
    )


@cache
def stream_kernel(ctx):
    """The stream kernel (`_STREAM_KERNEL`), built once per context."""
    import pyopencl as cl

    return cl.Kernel(cl.Program(ctx, _STREAM_KERNEL).build(), "stream")


def stream_sampler(ctx, queue, reads: int, writes: int) -> Sampler:
    """A kernel reading `reads` bytes and writing `writes` bytes, each once, in float4s,
    timed by its profiling event: what a case's own traffic costs at its size, where a
    reduction reads far more than it writes (the copy moves half and half)."""
    import pyopencl as cl

    n_reads, n_writes = max(1, -(-reads // 16)), max(1, -(-writes // 16))
    src = cl.Buffer(ctx, cl.mem_flags.READ_ONLY, 16 * n_reads)
    dst = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16 * n_writes)
    _finished(cl.enqueue_fill_buffer(queue, src, np.float32(1), 0, 16 * n_reads))
    kernel = stream_kernel(ctx)
    items = -(-max(n_reads, n_writes) // 2)
    args = (src, dst, np.uint32(n_reads), np.uint32(n_writes))
    return Sampler(
        lambda: {"stream": _timed(queue, lambda: kernel(queue, (items,), None, *args))},
        {"stream": f"float4 stream kernel, {16 * n_reads} bytes read, {16 * n_writes} written"},
    )


def _empty_kernel(ctx, queue, repeats: int = 101) -> float:
    import pyopencl as cl

    kernel = cl.Kernel(cl.Program(ctx, _EMPTY_KERNEL).build(), "empty")
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4)
    return float(np.median([_timed(queue, lambda: kernel(queue, (1,), (1,), out)) for _ in range(repeats)]))


def _fma_peak(ctx, queue, device, repeats: int) -> float:
    import pyopencl as cl

    program = cl.Program(ctx, _FMA_KERNEL).build(options=[f"-DCHAINS={_FMA_CHAINS}"])
    kernel = cl.Kernel(program, "fma_peak")
    items = device.max_compute_units * (2048 if device.type & cl.device_type.GPU else 512)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, items * 4)

    def run(iterations: int) -> float:
        args = (out, np.float32(0.999), np.float32(1e-3), np.int32(iterations))
        return _timed(queue, lambda: kernel(queue, (items,), None, *args))

    iterations = 64
    while run(iterations) < 0.02 and iterations < 1 << 24:  # about 20 ms a run
        iterations *= 2
    best = min(run(iterations) for _ in range(repeats))
    return 2 * 8 * _FMA_CHAINS * iterations * items / best
