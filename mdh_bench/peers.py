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

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mdh_bench.measure import (
    POISON, Measurement, Roofline, Sampler, copy_sampler, host_sampler, stream_sampler,
)  # fmt: skip
from mdh_bench.entries import ENTRIES, REDUCTIONS
from mdh_bench.run import CaseData, attempt

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
        from mdh_bench import ours

        return [attempt(peer, lambda: ours.sampler((peer,), data, device, ours.naive(data, device)))]
    if peer == "numpy":
        return [attempt(peer, lambda: numpy_peer(data))]
    if peer == "numpy-skylakex":
        return [attempt(peer, lambda: numpy_avx512_peer(data, repeats))]
    if peer == "clblast":
        return clblast_peer(data, device)
    if peer == "torch":
        from mdh_bench.torch_peer import torch_peer

        return [attempt(peer, lambda: torch_peer(data))]
    if peer == "inductor":
        from mdh_bench.torch_peer import inductor_peer

        return [attempt(peer, lambda: inductor_peer(data))]
    if peer == "triton":
        from mdh_bench.triton_peer import triton_peer

        return triton_peer(data)
    if peer == "copy":
        return [attempt(peer, lambda: copy_peer(data, device, roofline))]
    if peer == "stream":
        return [attempt(peer, lambda: stream_peer(data, device, roofline))]
    raise ValueError(f"unknown peer '{peer}'")


# --- numpy ----------------------------------------------------------------------------


def _mcc(x: np.ndarray, w: np.ndarray, /, *, stride: int, **_: Any) -> list[np.ndarray]:
    windows = sliding_window_view(x, w.shape[1:3], axis=(1, 2))[:, ::stride, ::stride]
    return [np.einsum("npqcrs,krsc->npqk", windows, w, optimize=True)]


def _reduction(op: str, axis: int) -> tuple[str, Callable[..., list[np.ndarray]]]:
    return f"x.{op}(axis={axis})", lambda x, /, **_: [getattr(x, op)(axis=axis)]


NUMPY: dict[str, tuple[str, Callable[..., list[np.ndarray]]]] = {
    "dot": ("np.dot(x, y)", lambda x, y, /, **_: [np.dot(x, y)]),
    "matvec": ("A @ x", lambda a, x, /, **_: [a @ x]),
    "matmul": ("A @ B", lambda a, b, /, **_: [a @ b]),
    "matmul_t": ("A.T @ B.T", lambda a, b, /, **_: [a.T @ b.T]),
    "bmatmul": ("np.matmul(A, B) (batched)", lambda a, b, /, **_: [np.matmul(a, b)]),
    "prefix_sum": ("np.cumsum(x)", lambda x, /, **_: [np.cumsum(x)]),
    "tensor_contraction": (
        "np.einsum('gdab,efgc->abcdef', A, B, optimize=True)",
        lambda a, b, /, **_: [np.einsum("gdab,efgc->abcdef", a, b, optimize=True)],
    ),
    "gaussian": (
        "np.einsum('hwrs,rs->hw', sliding_window_view(x, f.shape), f, optimize=True)",
        lambda x, f, /, **_: [np.einsum("hwrs,rs->hw", sliding_window_view(x, f.shape), f, optimize=True)],
    ),
    "jacobi3d": ("sum of the 7 shifted slices of the padded input", ENTRIES["jacobi3d"].numpy),
    "bias_add": ("x + bias", lambda x, bias, /, **_: [x + bias]),
    "exp": ("np.exp(x)", lambda x, /, **_: [np.exp(x)]),
    "mcc": ("np.einsum over sliding windows, optimize=True", _mcc),
    **{name: _reduction(op, axis) for name, (op, axis) in REDUCTIONS.items()},
    "transpose": ("np.ascontiguousarray(x.transpose(0, 3, 1, 2))",
                  lambda x, /, **_: [np.ascontiguousarray(x.transpose(0, 3, 1, 2))]),
}  # fmt: skip
"""How one writes each computation in numpy (with its description); computations not
listed run the catalog's twin. Called as `f(*inputs, **sizes)` on the float32 inputs:
inputs are positional-only, as sizes may share their names."""


def numpy_peer(data: CaseData) -> Sampler | Measurement:
    """Wall-clock time of the numpy formulation on the float32 inputs."""
    text, f = NUMPY.get(data.case.entry, ("the catalog's numpy twin", ENTRIES[data.case.entry].numpy))
    run = lambda: [np.asarray(y) for y in f(*data.inputs, **data.case.sizes)]  # noqa: E731
    wrong = data.check(run())
    if wrong is not None:
        return Measurement.missing("numpy", f"wrong result: {wrong}")
    return host_sampler("numpy", run, text)


def numpy_avx512_peer(data: CaseData, repeats: int) -> Measurement:
    """The numpy peer with OpenBLAS's AVX-512 kernels forced, timed in a subprocess
    (not interleaved with the other variants)."""
    from mdh_bench.openblas import AVX512_CORETYPE, avx512_problem, numpy_with_coretype, openblas_info

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
    from mdh_bench.clblast import library

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
    from mdh_bench.clblast import tuned_parameters
    from mdh_ir.runtime import select_device

    found = select_device(device)
    return "; ".join(f"{k} parameters: {tuned_parameters(found, k)}" for k in CLBLAST_KERNELS[entry])


def _clblast_setup(data: CaseData, device: str):
    """(the routine, run: poison the output and run the routine once -> (seconds on the
    device, seconds of its last kernel), output: read the result)."""
    import pyopencl as cl

    from mdh_bench.clblast import CLBlast
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
