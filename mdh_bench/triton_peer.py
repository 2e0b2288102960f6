"""The Triton peer on the GPU: `mdh_bench.triton_matmul`'s hand-written matrix product
for matmul, matmul_t (the transposed operands as views) and bmatmul, in float32
(`triton`: `input_precision="ieee"`) and TF32 (`triton tf32`), each autotuned over its
8 configurations on its first call (the seconds that takes are its tuning), checked
against the float64 reference (the TF32 one at TF32's tolerance), then timed as the
torch peer is (`torch_peer.cuda_sampler`). Without triton or torch, or on other
computations, both are unavailable with the reason.
"""

from __future__ import annotations

import time

import numpy as np

from mdh_bench.case_data import CaseData
from mdh_bench.measure import POISON, Measurement, Sampler, attempt
from mdh_bench.torch_peer import cuda_sampler

VARIANTS = {"ieee": "triton", "tf32": "triton tf32"}
"""The variant of each `tl.dot` input precision."""

TF32_TOLERANCE = 1e-2
"""Relative L2 error allowed to the TF32 product (10 mantissa bits: about 5e-4 per
product, which the harness's float32 bound of 1e-4 does not admit)."""


def operands(torch, data: CaseData):
    """(A, B) as the product's operands (views of the inputs on the GPU)."""
    a, b = (torch.from_numpy(x).cuda() for x in data.inputs)
    return (a.T, b.T) if data.case.entry == "matmul_t" else (a, b)


def triton_peer(data: CaseData) -> list[Sampler | Measurement]:
    """Both precisions' samplers, or why they are unavailable."""
    if data.case.entry not in ("matmul", "matmul_t", "bmatmul"):
        return [Measurement.missing(v, f"no Triton kernel for {data.case.entry}") for v in VARIANTS.values()]
    try:
        import torch

        from mdh_bench import triton_matmul
    except ImportError as e:
        return [Measurement.missing(v, f"not installed ({e})") for v in VARIANTS.values()]
    if not torch.cuda.is_available():
        return [Measurement.missing(v, "torch sees no CUDA device") for v in VARIANTS.values()]
    return [attempt(v, lambda p=p: _precision_peer(torch, triton_matmul, data, p)) for p, v in VARIANTS.items()]


def _precision_peer(torch, triton_matmul, data: CaseData, precision: str) -> Sampler | Measurement:
    """One precision: autotuned by its first call (timed), its output poisoned, then
    warmed up, checked and timed by `cuda_sampler`."""
    variant = VARIANTS[precision]
    a, b = operands(torch, data)
    c = torch.empty(data.reference[0].shape, dtype=torch.float32, device="cuda")
    run = triton_matmul.launcher(a, b, c, precision)
    start = time.perf_counter()
    run()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    c.view(torch.uint8).fill_(int(POISON))
    if precision == "tf32":
        check = lambda y: _tf32_check(y, data.reference[0])  # noqa: E731
    else:
        check = lambda y: data.check([y])  # noqa: E731
    note = (
        f"Triton {triton_matmul.triton.__version__}, tl.dot input_precision={precision!r},"
        f" picked {triton_matmul.best_config(precision)}"
    )
    configs = len(triton_matmul.CONFIGS)
    tuning = f"autotune over {configs} configurations {seconds:.1f} s (compiled kernels shared between cases)"
    return cuda_sampler(variant, run, lambda _: c.cpu().numpy(), check, note, tuning)


def _tf32_check(got: np.ndarray, want: np.ndarray) -> str | None:
    """None if `got` is within `TF32_TOLERANCE` of `want` (relative L2 error)."""
    error = float(np.linalg.norm(got.astype(np.float64) - want) / np.linalg.norm(want))
    return None if error < TF32_TOLERANCE else f"relative L2 error {error:.3g} (TF32 bound {TF32_TOLERANCE})"
