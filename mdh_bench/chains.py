"""Chains of computations as benchmark entries, written with the Python front end
(`@chain`): each builds one module of several `mdh.compute` ops.

- `mm_bias_relu` (i, j, k): relu(A @ B + b), the catalog's `matmul` then a point-wise
  bias and ReLU (what `mdh-fuse` makes the product's epilogue);
- `softmax` (i, j): the row softmax of an i×j matrix as three md_homs: the rows' max,
  the sum of exp(x - max), and exp(x - max) / sum;
- `jacobi3d_twice` (i, j, k): the catalog's `jacobi3d` applied twice, valid (without
  padding): at (i+2)×(j+2)×(k+2) on an (i+4)×(j+4)×(k+4) input, then at i×j×k.

`SINGLE` gives each chain's single op, the computation the chain adds to: the catalog
entry, its sizes and its position in the chain. The harness times the chain fused and
unfused against it (`mdh_bench.chain_variants`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import add
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.builder import exp, f32, maximum
from mdh_ir.catalog import CATALOG, Entry
from mdh_ir.frontend import Computation, cc, chain, inp_view, md_hom, mdh, out_view, pw
from mdh_ir.semantics.host import host_function, random_arguments


def bias_relu(i: int, j: int) -> Computation:
    """R[i, j] = max(C[i, j] + b[j], 0)."""

    @mdh()
    def bias_relu():
        def f(out, inp):
            out["R"] = maximum(inp["C"] + inp["b"], 0.0)

        return (
            out_view[f32](R=[lambda i, j: (i, j)]),
            md_hom[i, j](f, (cc, cc)),
            inp_view[f32, f32](C=[lambda i, j: (i, j)], b=[lambda i, j: (j)]),
        )

    return bias_relu


def mm_bias_relu(*, i: int, j: int, k: int) -> ModuleOp:
    matmul, epilogue = Computation(CATALOG["matmul"].build(i=i, j=j, k=k)), bias_relu(i, j)

    @chain()
    def mm_bias_relu(A, B, b):
        return epilogue(matmul(A, B), b)

    return mm_bias_relu.module


def _mm_bias_relu_np(a: np.ndarray, b: np.ndarray, bias: np.ndarray, /, **_: Any) -> list[np.ndarray]:
    return [np.maximum(a @ b + bias, 0)]


def softmax_steps(i: int, j: int) -> tuple[Computation, Computation, Computation]:
    """The rows' max m, the sums s of exp(x - m), and exp(x - m) / s."""

    @mdh()
    def row_max():
        def f(out, inp):
            out["m"] = inp["x"]

        return out_view[f32](m=[lambda i, j: (i)]), md_hom[i, j](f, (cc, pw(max))), inp_view[f32](x=[lambda i, j: (i, j)])

    @mdh()
    def exp_sum():
        def f(out, inp):
            out["s"] = exp(inp["x"] - inp["m"])

        return (
            out_view[f32](s=[lambda i, j: (i)]),
            md_hom[i, j](f, (cc, pw(add))),
            inp_view[f32, f32](x=[lambda i, j: (i, j)], m=[lambda i, j: (i)]),
        )

    @mdh()
    def divide():
        def f(out, inp):
            out["y"] = exp(inp["x"] - inp["m"]) / inp["s"]

        return (
            out_view[f32](y=[lambda i, j: (i, j)]),
            md_hom[i, j](f, (cc, cc)),
            inp_view[f32, f32, f32](x=[lambda i, j: (i, j)], m=[lambda i, j: (i)], s=[lambda i, j: (i)]),
        )

    return row_max, exp_sum, divide


def softmax(*, i: int, j: int) -> ModuleOp:
    row_max, exp_sum, divide = softmax_steps(i, j)

    @chain()
    def softmax(x):
        m = row_max(x)
        return divide(x, m, exp_sum(x, m))

    return softmax.module


def _softmax_np(x: np.ndarray, /, **_: Any) -> list[np.ndarray]:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return [e / e.sum(axis=1, keepdims=True)]


def jacobi3d_twice(*, i: int, j: int, k: int) -> ModuleOp:
    build = CATALOG["jacobi3d"].build
    outer, inner = Computation(build(i=i + 2, j=j + 2, k=k + 2)), Computation(build(i=i, j=j, k=k))

    @chain()
    def jacobi3d_twice(x):
        return inner(outer(x))

    return jacobi3d_twice.module


def _jacobi3d_twice_np(x: np.ndarray, /, **_: Any) -> list[np.ndarray]:
    twin = CATALOG["jacobi3d"].numpy
    return twin(twin(x)[0])


def _chain_inputs(build: Callable[..., ModuleOp]) -> Callable[..., list[np.ndarray]]:
    """Random arguments of the chain's host function."""
    return lambda rng, **sizes: random_arguments(host_function(build(**sizes)), rng)


_MATMUL_SIZES = [dict(i=10, j=500, k=64), dict(i=16, j=1000, k=2048), dict(i=1, j=1000, k=2048), dict(i=4096, j=4096, k=4096)]  # fmt: skip

CHAINS: dict[str, Entry] = {
    "mm_bias_relu": Entry(
        mm_bias_relu, _mm_bias_relu_np, dict(i=10, j=20, k=16), _MATMUL_SIZES, _chain_inputs(mm_bias_relu)
    ),
    "softmax": Entry(
        softmax, _softmax_np, dict(i=7, j=33), [dict(i=4096, j=4096), dict(i=64 * 128, j=128)], _chain_inputs(softmax)
    ),
    "jacobi3d_twice": Entry(
        jacobi3d_twice, _jacobi3d_twice_np, dict(i=6, j=5, k=4), [dict(i=n, j=n, k=n) for n in (256, 512)],
        _chain_inputs(jacobi3d_twice),
    ),
}  # fmt: skip
"""The chains by name, as catalog entries (builder, numpy twin, small and named sizes)."""


@dataclass(frozen=True)
class Single:
    """A chain's single op: a catalog entry at sizes of the chain's, the chain's op `index`."""

    entry: str
    sizes: Callable[[dict[str, Any]], dict[str, Any]]
    index: int


SINGLE: dict[str, Single] = {
    "mm_bias_relu": Single("matmul", lambda s: dict(i=s["i"], j=s["j"], k=s["k"]), 0),
    "jacobi3d_twice": Single("jacobi3d", lambda s: dict(i=s["i"], j=s["j"], k=s["k"]), 1),
}
"""Each chain's single op, where it has one (softmax has none: all three steps are its own)."""
