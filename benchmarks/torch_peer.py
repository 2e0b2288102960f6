"""The torch peer on the GPU: cuBLAS (matmul, bmm, mv, dot; TF32 off), cuDNN (conv2d;
TF32 off, `cudnn.benchmark` picks its fastest algorithm during the warm-up) and torch's
own kernels for reductions, stencils and point-wise ops, timed with CUDA events, each
run queued behind `torch.cuda._sleep` as ours queue behind the runtime's gate.
Torch allocates its outputs itself, so they cannot be poisoned: the checked output is
the one of the last warm-up run.

Layout changes the peer needs (NHWC/KRSC to NCHW/KCRS for conv2d) are made once,
outside the timing; its output is brought back to the catalog's layout for the check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.measure import Measurement, Sampler
from benchmarks.run import CaseData

WARMUP = 5
GATE_CYCLES = 1_000_000
"""Clock cycles the GPU spins (`torch.cuda._sleep`, about 0.5 ms on an H100) before
each timed run, so that the run's kernels are enqueued while the GPU is busy and its
events time the kernels, not the host's calls (see `mdh_ir.runtime`)."""

Formulation = Callable[..., tuple[Callable[[], Any], Callable[[Any], np.ndarray]]]
"""(torch, input tensors, sizes) -> (run: the timed call, to_catalog: its result in the
catalog's layout as numpy)."""


def _plain(f: Callable) -> Formulation:
    """A call on the inputs as they are, its result already in the catalog's layout."""
    return lambda torch, xs, sizes: (lambda: f(torch, *xs), lambda y: y.cpu().numpy())


def _conv(torch, xs, sizes: dict[str, Any]):
    x, w = xs
    x_nchw = x.permute(0, 3, 1, 2).contiguous()
    w_kcrs = w.permute(0, 3, 1, 2).contiguous()
    run = lambda: torch.nn.functional.conv2d(x_nchw, w_kcrs, stride=sizes["stride"])  # noqa: E731
    return run, lambda y: y.permute(0, 2, 3, 1).cpu().numpy()


def _gaussian(torch, xs, sizes: dict[str, Any]):
    x, f = xs
    run = lambda: torch.nn.functional.conv2d(x[None, None], f[None, None])  # noqa: E731
    return run, lambda y: y[0, 0].cpu().numpy()


def _jacobi3d(torch, x):
    c = x[1:-1, 1:-1, 1:-1]
    return (c + x[:-2, 1:-1, 1:-1] + x[2:, 1:-1, 1:-1] + x[1:-1, :-2, 1:-1] + x[1:-1, 2:, 1:-1]
            + x[1:-1, 1:-1, :-2] + x[1:-1, 1:-1, 2:])  # fmt: skip


FORMULATIONS: dict[str, tuple[str, Formulation]] = {
    "dot": ("torch.dot (cuBLAS)", _plain(lambda t, x, y: t.dot(x, y))),
    "matvec": ("torch.mv (cuBLAS)", _plain(lambda t, a, x: t.mv(a, x))),
    "matmul": ("torch.matmul (cuBLAS)", _plain(lambda t, a, b: t.matmul(a, b))),
    "matmul_t": ("torch.matmul(A.T, B.T) (cuBLAS)", _plain(lambda t, a, b: t.matmul(a.T, b.T))),
    "bmatmul": ("torch.bmm (cuBLAS)", _plain(lambda t, a, b: t.bmm(a, b))),
    "tensor_contraction": ("torch.einsum", _plain(lambda t, a, b: t.einsum("gdab,efgc->abcdef", a, b))),
    "mcc": ("torch.nn.functional.conv2d, NCHW/KCRS (cuDNN)", _conv),
    "gaussian": ("torch.nn.functional.conv2d, 1 channel (cuDNN)", _gaussian),
    "jacobi3d": ("sum of 7 shifted slices", _plain(lambda t, x: _jacobi3d(t, x))),
    "reduce_sum": ("torch.sum(x, 0)", _plain(lambda t, x: t.sum(x, 0))),
    "reduce_max": ("torch.amax(x, 0)", _plain(lambda t, x: t.amax(x, 0))),
    "bias_add": ("x + bias", _plain(lambda t, x, b: x + b)),
    "exp": ("torch.exp", _plain(lambda t, x: t.exp(x))),
    "transpose": ("x.permute(0, 3, 1, 2).contiguous()", _plain(lambda t, x: x.permute(0, 3, 1, 2).contiguous())),
    "prefix_sum": ("torch.cumsum", _plain(lambda t, x: t.cumsum(x, 0))),
}  # fmt: skip


def torch_peer(data: CaseData) -> Sampler | Measurement:
    """The torch formulation after warm-up and a checked run; a run's time is from CUDA
    events recorded around it, behind the gate (`GATE_CYCLES`)."""
    try:
        import torch
    except ImportError:
        return Measurement.missing("torch", "torch is not installed")
    if not torch.cuda.is_available():
        return Measurement.missing("torch", "torch sees no CUDA device")
    entry = data.case.entry
    if entry not in FORMULATIONS:
        return Measurement.missing("torch", f"no torch formulation of {entry}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    text, formulation = FORMULATIONS[entry]
    tensors = [torch.from_numpy(x).cuda() for x in data.inputs]
    run, to_catalog = formulation(torch, tensors, data.case.sizes)
    for _ in range(WARMUP):
        result = run()
    wrong = data.check([to_catalog(result)])
    if wrong is not None:
        return Measurement.missing("torch", f"wrong result: {wrong}")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def sample() -> dict[str, float]:
        torch.cuda._sleep(GATE_CYCLES)
        start.record()
        run()
        end.record()
        end.synchronize()
        return {"torch": start.elapsed_time(end) * 1e-3}

    note = f"{text}, torch {torch.__version__}, {torch.cuda.get_device_name()}"
    return Sampler(sample, {"torch": note})
