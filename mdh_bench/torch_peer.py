"""The torch peers on the GPU, timed with CUDA events, each run queued behind
`torch.cuda._sleep` as ours queue behind the runtime's gate:

- `torch`: cuBLAS (matmul, bmm, mv, dot; TF32 off, but on for the `_tf32` variants; f16
  and bf16 products as `_half` says), cuDNN (conv2d; TF32 off, but on for `mcc_tf32`; the
  reduced-precision convolutions in channels_last, the f16 and bf16 ones with results in
  their inputs' type, checked as `_check` says; `cudnn.benchmark` picks its fastest
  algorithm during the warm-up) and torch's own kernels for reductions, stencils, scans
  and point-wise ops;
- `inductor`: the same formulation through `torch.compile(mode="max-autotune-no-cudagraphs")`,
  Inductor's autotuning of its Triton templates (and the ATen kernels) as torch users
  meet it, compiled once per case; its compile and autotune seconds are its tuning.
  Not "max-autotune": that mode adds CUDA graphs, which copy every input that is not a
  parameter into the graph's own buffers before each replay (a 64 MB reduction would
  be timed with a 64 MB copy), and the gate already hides the launch cost they save.

Torch allocates its outputs itself, so they cannot be poisoned: the checked output is
the one of the last warm-up run.

Layout changes the peer needs (NHWC/KRSC to contiguous NCHW/KCRS for conv2d; none for
channels_last, the catalog's layout seen as NCHW/KCRS) are made once, outside the
timing; its output is brought back to the catalog's layout for the check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from mdh_bench.case_data import CaseData
from mdh_bench.entries import REDUCED, REDUCTIONS
from mdh_bench.measure import Measurement, Sampler

WARMUP = 5
GATE_CYCLES = 1_000_000
"""Clock cycles the GPU spins (`torch.cuda._sleep`, about 0.5 ms on an H100) before
each timed run, so that the run's kernels are enqueued while the GPU is busy and its
events time the kernels, not the host's calls (see `mdh_ir.runtime`)."""

Formulation = Callable[..., tuple[Callable[..., Any], list[Any], Callable[[Any], np.ndarray]]]
"""(torch, input tensors, sizes) -> (f, args: the timed call is `f(*args)`, to_catalog:
its result in the catalog's layout as numpy, of its type)."""


def _tf32(formulation: Formulation) -> Formulation:
    """`formulation` with TF32 allowed in cuBLAS and cuDNN (`_torch` turns it off again
    for the next case)."""

    def allowed(torch, xs, sizes: dict[str, Any]):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        return formulation(torch, xs, sizes)

    return allowed


def _half(op: str) -> Formulation:
    """torch.`op` (mm, bmm) of 16-bit inputs, accumulating in f32, with f32 results as
    ours where this torch's `op` takes `out_dtype` (else in the inputs' type, which it
    returns)."""

    def formulation(torch, xs, sizes: dict[str, Any]):
        f = getattr(torch, op)
        try:
            f(*(x[..., :16, :16] for x in xs), out_dtype=torch.float32)
            g = lambda a, b: f(a, b, out_dtype=torch.float32)  # noqa: E731
        except (TypeError, RuntimeError):
            g = f
        return g, xs, lambda y: host(torch, y)

    return formulation


def _plain(f: Callable) -> Formulation:
    """A call on the inputs as they are, its result already in the catalog's layout."""
    return lambda torch, xs, sizes: (lambda *a: f(torch, *a), xs, lambda y: y.cpu().numpy())


def _conv(memory_format: str) -> Formulation:
    """conv2d of the inputs as NCHW/KCRS in `memory_format` (`contiguous_format`, or
    `channels_last`: the catalog's NHWC/KRSC as they are, cuDNN's layout for tensor cores)."""

    def formulation(torch, xs, sizes: dict[str, Any]):
        layout = getattr(torch, memory_format)
        args = [x.permute(0, 3, 1, 2).contiguous(memory_format=layout) for x in xs]
        f = lambda x, w: torch.nn.functional.conv2d(x, w, stride=sizes["stride"])  # noqa: E731
        return f, args, lambda y: host(torch, y.permute(0, 2, 3, 1))

    return formulation


def _gaussian(torch, xs, sizes: dict[str, Any]):
    f = lambda x, f: torch.nn.functional.conv2d(x[None, None], f[None, None])  # noqa: E731
    return f, xs, lambda y: y[0, 0].cpu().numpy()


def _reduction(op: str, axis: int) -> tuple[str, Formulation]:
    call = {"sum": "sum", "max": "amax"}[op]
    return f"torch.{call}(x, {axis})", _plain(lambda t, x: getattr(t, call)(x, axis))


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
    "mcc": ("torch.nn.functional.conv2d, NCHW/KCRS (cuDNN)", _conv("contiguous_format")),
    "gaussian": ("torch.nn.functional.conv2d, 1 channel (cuDNN)", _gaussian),
    "jacobi3d": ("sum of 7 shifted slices", _plain(lambda t, x: _jacobi3d(t, x))),
    **{name: _reduction(op, axis) for name, (op, axis) in REDUCTIONS.items()},
    "bias_add": ("x + bias", _plain(lambda t, x, b: x + b)),
    "exp": ("torch.exp", _plain(lambda t, x: t.exp(x))),
    "transpose": ("x.permute(0, 3, 1, 2).contiguous()", _plain(lambda t, x: x.permute(0, 3, 1, 2).contiguous())),
    "prefix_sum": ("torch.cumsum", _plain(lambda t, x: t.cumsum(x, 0))),
    "mm_bias_relu": ("torch.relu(A @ B + b) (cuBLAS)", _plain(lambda t, a, b, bias: t.relu(a @ b + bias))),
    "softmax": ("torch.softmax(x, 1)", _plain(lambda t, x: t.softmax(x, 1))),
    "jacobi3d_twice": ("sum of 7 shifted slices, twice", _plain(lambda t, x: _jacobi3d(t, _jacobi3d(t, x)))),
}  # fmt: skip


def _reduced(base: str, p: str) -> tuple[str, Formulation]:
    """The formulation of `base` (matmul, bmatmul, mcc) in the reduced precision `p`;
    convolutions in channels_last (on the H100, cuDNN took 1.7-5.8x as long on ResNet-50's
    layers in contiguous NCHW with TF32, 1.8-8.7x in f16 and bf16)."""
    if base == "mcc":
        conv = _conv("channels_last")
        if p == "tf32":
            return "torch.nn.functional.conv2d, channels_last, TF32 allowed (cuDNN)", _tf32(conv)
        return f"torch.nn.functional.conv2d in {p}, channels_last (cuDNN; {p} results)", conv
    if p == "tf32":
        text, formulation = FORMULATIONS[base]
        return f"{text}, TF32 allowed", _tf32(formulation)
    op = {"matmul": "mm", "bmatmul": "bmm"}[base]
    return f"torch.{op} in {p} (cuBLAS; f32 results where it takes out_dtype)", _half(op)


FORMULATIONS.update({name: _reduced(base, p) for name, (base, p) in REDUCED.items()})


def _check(data: CaseData, y: np.ndarray) -> str | None:
    """`data.check([y])`; a 16-bit `y` (cuDNN's 16-bit convolutions give their inputs'
    type) as f32, its rounding to that type allowed on top (half its epsilon, relative;
    an f16 result of 256 terms is off by 2e-4, a bf16 one by 2e-3, where the f32 bound is
    1.3e-4)."""
    if y.dtype.name not in ("float16", "bfloat16"):
        return data.check([y])
    return data.check([y.astype(np.float32)], float(ml_dtypes.finfo(y.dtype).eps) / 2)


def torch_peer(data: CaseData) -> Sampler | Measurement:
    """The torch formulation, timed as `cuda_sampler` times."""
    torch, problem = _torch(data, "torch")
    if problem is not None:
        return problem
    text, formulation = FORMULATIONS[data.case.entry]
    f, args, to_catalog = formulation(torch, [tensor(torch, x) for x in data.inputs], data.case.sizes)
    note = f"{text}, torch {torch.__version__}, {torch.cuda.get_device_name()}"
    return cuda_sampler("torch", lambda: f(*args), to_catalog, lambda y: _check(data, y), note)


INDUCTOR_MODE = "max-autotune-no-cudagraphs"


def inductor_peer(data: CaseData) -> Sampler | Measurement:
    """The torch formulation compiled by `torch.compile(mode=INDUCTOR_MODE)`, shapes
    static, Dynamo's caches reset first (a function compiled for several shapes would be
    recompiled with dynamic shapes, and fall back to eager after 8); the first call
    compiles and autotunes (timed: the peer's tuning), then it is timed as
    `cuda_sampler` times."""
    torch, problem = _torch(data, "inductor")
    if problem is not None:
        return problem
    import time

    text, formulation = FORMULATIONS[data.case.entry]
    f, args, to_catalog = formulation(torch, [tensor(torch, x) for x in data.inputs], data.case.sizes)
    torch._dynamo.reset()
    compiled = torch.compile(f, mode=INDUCTOR_MODE, dynamic=False)
    start = time.perf_counter()
    compiled(*args)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    note = f"torch.compile({text}, mode={INDUCTOR_MODE!r}), torch {torch.__version__}"
    tuning = f"compile and autotune {seconds:.1f} s"
    check = lambda y: _check(data, y)  # noqa: E731
    return cuda_sampler("inductor", lambda: compiled(*args), to_catalog, check, note, tuning)


def tensor(torch, x: np.ndarray):
    """`x` on the GPU (an ml_dtypes bfloat16 array as torch.bfloat16)."""
    if x.dtype.name == "bfloat16":
        return torch.from_numpy(x.view(np.int16)).cuda().view(torch.bfloat16)
    return torch.from_numpy(x).cuda()


def host(torch, y) -> np.ndarray:
    """`y` on the host, of its type (a torch.bfloat16 tensor as an ml_dtypes bfloat16 array)."""
    if y.dtype == torch.bfloat16:
        return y.view(torch.int16).cpu().numpy().view(ml_dtypes.bfloat16)
    return y.cpu().numpy()


def _torch(data: CaseData, variant: str):
    """(torch with TF32 off, None), or (None, why `variant` is not available)."""
    try:
        import torch
    except ImportError:
        return None, Measurement.missing(variant, "torch is not installed")
    if not torch.cuda.is_available():
        return None, Measurement.missing(variant, "torch sees no CUDA device")
    if data.case.entry not in FORMULATIONS:
        return None, Measurement.missing(variant, f"no torch formulation of {data.case.entry}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    return torch, None


def cuda_sampler(
    variant: str, run: Callable[[], Any], to_catalog: Callable[[Any], np.ndarray],
    check: Callable[[np.ndarray], str | None], note: str, tuning: str = "",
) -> Sampler | Measurement:  # fmt: skip
    """`run` after warm-up and a `check` of its result (`to_catalog(what run returned)`):
    None, or what is wrong; a run's time is from CUDA events recorded around it, behind
    the gate (`GATE_CYCLES`)."""
    import torch

    for _ in range(WARMUP):
        result = run()
    wrong = check(to_catalog(result))
    if wrong is not None:
        return Measurement.missing(variant, f"wrong result: {wrong}")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def sample() -> dict[str, float]:
        torch.cuda._sleep(GATE_CYCLES)
        start.record()
        run()
        end.record()
        end.synchronize()
        return {variant: start.elapsed_time(end) * 1e-3}

    return Sampler(sample, {variant: note}, {variant: tuning} if tuning else {})
