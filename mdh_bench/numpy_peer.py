"""The numpy peer: each computation as one writes it in numpy (OpenBLAS behind the
matrix products), on the float32 inputs, timed by the wall clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from mdh_bench.case_data import CaseData
from mdh_bench.entries import ENTRIES, REDUCTIONS
from mdh_bench.measure import Measurement, Sampler, host_sampler


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
    "mm_bias_relu": ("np.maximum(A @ B + b, 0)", lambda a, b, bias, /, **_: [np.maximum(a @ b + bias, 0)]),
    "softmax": ("e = np.exp(x - x.max(axis=1, keepdims=True)); e / e.sum(axis=1, keepdims=True)", ENTRIES["softmax"].numpy),
    "jacobi3d_twice": ("the jacobi3d formulation twice", ENTRIES["jacobi3d_twice"].numpy),
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
