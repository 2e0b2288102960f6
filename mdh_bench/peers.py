"""The peers: numpy (OpenBLAS), CLBlast, torch (cuBLAS/cuDNN), Triton (a hand-written
matrix product, FP32 and TF32) and Inductor (`torch.compile`, max-autotune), our naive
lowering, a copy of the case's bytes and (on GPUs) a stream of its reads and writes
(the memory-bound cases' own-size rooflines).

`prepare(peer, data, device, repeats, roofline)` builds the peer for one case, runs it
once and checks its output against the float64 reference: it returns `Sampler`s for the
interleaved timing, or `Measurement`s: unavailable ones (not installed, no routine for
the computation, failed, wrong result: the reason says which) and ones timed on their
own (numpy under another OpenBLAS core type runs in a subprocess).
"""

from __future__ import annotations

import numpy as np

from mdh_bench import ours
from mdh_bench.case_data import CaseData
from mdh_bench.clblast import CLBlast, library, tuned_parameters
from mdh_bench.measure import (
    POISON, Measurement, Roofline, Sampler, attempt, copy_sampler, stream_sampler,
)  # fmt: skip
from mdh_bench.numpy_peer import numpy_peer
from mdh_bench.openblas import AVX512_CORETYPE, avx512_problem, numpy_with_coretype, openblas_info
from mdh_bench.torch_peer import inductor_peer, torch_peer
from mdh_bench.triton_peer import triton_peer

PEERS = {
    "cpu": ["naive", "numpy", "numpy-skylakex", "clblast", "copy"],
    "gpu": ["torch", "triton", "inductor", "clblast", "copy", "stream"],
}
"""The peers measured on each device, in table order (the stream, for the GPU's bar of
85% of the copy bandwidth: what reading a reduction's bytes reaches at its size)."""

SHOWN = {"triton": ["triton", "triton tf32"], "clblast": ["clblast"]}
"""The variants of a peer that the table shows (others only in the CSV); a peer not
listed is one variant of its name."""

MAIN = {"cpu": "numpy", "gpu": "torch"}
"""The peer a user would reach for first on each device: the sweeps' reference."""


def columns(device: str) -> list[str]:
    """The peers' variants shown in the device's table, in order."""
    return [v for p in PEERS[device] for v in SHOWN.get(p, [p])]


def prepare(
    peer: str, data: CaseData, device: str, repeats: int, roofline: Roofline | None = None
) -> list[Sampler | Measurement]:
    if peer == "naive":
        return [attempt(peer, lambda: ours.sampler((peer,), data, device, ours.naive(data, device)))]
    if peer == "numpy":
        return [attempt(peer, lambda: numpy_peer(data))]
    if peer == "numpy-skylakex":
        return [attempt(peer, lambda: numpy_avx512_peer(data, repeats))]
    if peer == "clblast":
        return clblast_peer(data, device)
    if peer == "torch":
        return [attempt(peer, lambda: torch_peer(data))]
    if peer == "inductor":
        return [attempt(peer, lambda: inductor_peer(data))]
    if peer == "triton":
        return triton_peer(data)
    if peer == "copy":
        return [attempt(peer, lambda: copy_peer(data, device, roofline))]
    if peer == "stream":
        return [attempt(peer, lambda: stream_peer(data, device, roofline))]
    raise ValueError(f"unknown peer '{peer}'")


def numpy_avx512_peer(data: CaseData, repeats: int) -> Measurement:
    """The numpy peer with OpenBLAS's AVX-512 kernels forced, timed in a subprocess
    (not interleaved with the other variants)."""
    problem = avx512_problem(openblas_info())
    if problem is not None:
        return Measurement.missing("numpy-skylakex", problem)
    m = numpy_with_coretype(data.case, repeats, AVX512_CORETYPE)
    note = f"{m.note}; OPENBLAS_CORETYPE={AVX512_CORETYPE}, timed in a subprocess, not interleaved"
    return Measurement("numpy-skylakex", m.times, note, m.available)


def copy_peer(data: CaseData, device: str, roofline: Roofline | None) -> Sampler | Measurement:
    """A copy kernel moving as many bytes as the case reads and writes, on the same device,
    for memory-bound cases: the time attainable at the case's size, where a launch and
    the caches weigh more than in the roofline's 1 GB copy."""
    from mdh_ir.runtime import _context, select_device

    if roofline is None or roofline.bound(data.nbytes, data.flops) != "memory":
        return Measurement.missing("copy", "compute-bound case")
    return copy_sampler(*_context(select_device(device)), data.nbytes)


def stream_peer(data: CaseData, device: str, roofline: Roofline | None) -> Sampler | Measurement:
    """A kernel reading as many bytes as the case reads and writing as many as it writes,
    for memory-bound cases (a reduction's traffic, which the copy splits half and half)."""
    from mdh_ir.runtime import _context, select_device

    if roofline is None or roofline.bound(data.nbytes, data.flops) != "memory":
        return Measurement.missing("stream", "compute-bound case")
    return stream_sampler(*_context(select_device(device)), data.input_bytes, data.output_bytes)


# --- CLBlast --------------------------------------------------------------------------


def clblast_peer(data: CaseData, device: str) -> list[Sampler | Measurement]:
    """CLBlast's routine for the computation: its device time, and its last kernel's."""
    variants = ("clblast", "clblast last kernel")
    entry = data.case.entry
    if entry not in CLBLAST_KERNELS:
        return [Measurement.missing(v, f"no routine for {entry}") for v in variants]
    try:
        library()
    except OSError as e:
        return [Measurement.missing(v, f"not available: {e}") for v in variants]
    try:
        routine, run, output = _clblast_setup(data, device)
        run()  # CLBlast compiles its kernels on the first call
        wrong = data.check([output()])
        if wrong is not None:
            return [Measurement.missing(v, f"wrong result: {wrong}") for v in variants]
        run()  # finds out whether the routine can be gated (see clblast.Call)
    except Exception as e:  # noqa: BLE001 - a failing peer must not stop the run
        return [Measurement.missing(v, f"failed ({type(e).__name__}: {str(e)[:300]})") for v in variants]

    def sample() -> dict[str, float]:
        span, last = run()
        return {variants[0]: span, variants[1]: last}

    notes = [f"{routine.note}; {_clblast_parameters(entry, device)}", "duration of the last kernel only"]
    return [Sampler(sample, dict(zip(variants, notes)))]


CLBLAST_KERNELS = {
    "matmul": ["Xgemm", "XgemmDirect"], "matmul_t": ["Xgemm", "XgemmDirect"],
    "bmatmul": ["Xgemm", "XgemmDirect"], "matvec": ["Xgemv"], "dot": ["Xdot"],
}  # fmt: skip
"""The computations CLBlast has a routine for, and the kernels that routine may use."""


def _clblast_parameters(entry: str, device: str) -> str:
    from mdh_ir.runtime import select_device

    found = select_device(device)
    return "; ".join(f"{k} parameters: {tuned_parameters(found, k)}" for k in CLBLAST_KERNELS[entry])


def _clblast_setup(data: CaseData, device: str):
    """(the routine, run: poison the output and run the routine once -> (seconds on the
    device, seconds of its last kernel), output: read the result)."""
    import pyopencl as cl

    from mdh_ir.runtime import _context, select_device

    ctx, queue = _context(select_device(device))
    blas = CLBlast(ctx, queue)
    sizes, (a, b) = data.case.sizes, data.inputs
    shape = data.reference[0].shape
    A, B, C = blas.buffer(a), blas.buffer(b), blas.output(shape)
    entry = data.case.entry
    if entry == "matmul":
        routine = blas.gemm(A, B, C, sizes["i"], sizes["j"], sizes["k"])
    elif entry == "matmul_t":
        routine = blas.gemm(A, B, C, sizes["i"], sizes["j"], sizes["k"], trans_a=True, trans_b=True)
    elif entry == "matvec":
        routine = blas.gemv(A, B, C, sizes["i"], sizes["k"])
    elif entry == "dot":
        routine = blas.dot(A, B, C, sizes["k"])
    else:
        routine = blas.gemm_batched(A, B, C, sizes["b"], sizes["i"], sizes["j"], sizes["k"])
    nbytes = max(4, int(np.prod(shape)) * 4)

    def run() -> tuple[float, float]:
        cl.enqueue_fill_buffer(queue, C, POISON, 0, nbytes).wait()
        return routine()

    def output() -> np.ndarray:
        out = np.empty(shape, np.float32)
        cl.enqueue_copy(queue, out, C)
        return out

    return routine, run, output
