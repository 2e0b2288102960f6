"""The computations the harness knows: the catalog's, reductions over the other
axes of its 3-D tensor (the catalog's `reduce_sum`/`reduce_max` reduce the first axis;
`reduce_sum_j` reduces the second, `reduce_sum_k` the third), so a sweep covers every
axis, matrix products in reduced precision (`matmul_tf32`: f32 inputs with precision
"tf32"; `matmul_f16`, `matmul_bf16`: 16-bit inputs; f32 results), and chains of
computations (`mdh_bench.chains`).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_bench.chains import CHAINS
from mdh_ir.builder import Input, Output, bf16, cc, compute_module, f16, f32, pw
from mdh_ir.catalog import CATALOG, Entry, sum_of_products

_AXES = "ijk"


def _reduction_over(name: str, g: str, ufunc: np.ufunc, axis: str) -> Entry:
    """Reduce axis `axis` (j or k) of an i×j×k tensor with the builtin combine `g`."""
    kept = ", ".join(d for d in _AXES if d != axis)

    def build(*, i: int, j: int, k: int) -> ModuleOp:
        return compute_module(
            name, dict(i=i, j=j, k=k), [Input("x", f32, "i, j, k")], [Output("y", f32, kept)],
            scalar=lambda x: x, combine=[pw(g) if d == axis else cc for d in _AXES],
        )  # fmt: skip

    def numpy(x: np.ndarray, /, **_: int) -> list[np.ndarray]:
        return [ufunc.reduce(x, axis=_AXES.index(axis))]

    return Entry(build, numpy, dict(i=7, j=5, k=3), [dict(i=1024, j=1024, k=16)])


def _reduced_matmul(t, precision: str) -> Entry:
    """C[i, j] = sum_k A[i, k] B[k, j] with inputs of type `t` read at `precision`."""

    def build(*, i: int, j: int, k: int) -> ModuleOp:
        return sum_of_products("matmul", dict(i=i, j=j, k=k), "i, k", "k, j", "i, j", t, precision)

    return Entry(build, lambda a, b, **_: [a @ b], dict(i=10, j=20, k=16), [dict(i=4096, j=4096, k=4096)])


ENTRIES: dict[str, Entry] = {
    **CATALOG,
    **{
        f"{name}_{axis}": _reduction_over(f"{name}_{axis}", g, ufunc, axis)
        for name, g, ufunc in (("reduce_sum", "add", np.add), ("reduce_max", "max", np.maximum))
        for axis in "jk"
    },
    "matmul_tf32": _reduced_matmul(f32, "tf32"),
    "matmul_f16": _reduced_matmul(f16, "ieee"),
    "matmul_bf16": _reduced_matmul(bf16, "ieee"),
    **CHAINS,
}
"""Every computation by name: the catalog's entries, then the harness's own."""

REDUCTIONS: dict[str, tuple[str, int]] = {
    name: (g, _AXES.index(axis))
    for g, base in (("sum", "reduce_sum"), ("max", "reduce_max"))
    for name, axis in ((base, "i"), (f"{base}_j", "j"), (f"{base}_k", "k"))
}
"""Each reduction's operation (sum or max) and the axis it reduces (for the peers)."""
