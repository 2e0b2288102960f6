"""The computations the harness knows: the catalog's, reductions over the other
axes of its 3-D tensor (the catalog's `reduce_sum`/`reduce_max` reduce the first axis;
`reduce_sum_j` reduces the second, `reduce_sum_k` the third), so a sweep covers every
axis, matrix products, batched products and convolutions in reduced precision
(`matmul_tf32`, `bmatmul_tf32`, `mcc_tf32`: f32 inputs with precision "tf32";
`matmul_f16`, `mcc_bf16` and so on: 16-bit inputs; f32 results), and chains of
computations (`mdh_bench.chains`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_bench.chains import CHAINS
from mdh_ir.builder import Input, Output, bf16, cc, compute_module, f16, f32, pw
from mdh_ir.catalog import CATALOG, Entry

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


PRECISIONS = {"tf32": (f32, "tf32"), "f16": (f16, "ieee"), "bf16": (bf16, "ieee")}
"""Each reduced precision by its suffix: the inputs' element type and the precision they
are read at."""

_REDUCED_BASES = {
    "matmul": replace(
        CATALOG["matmul"], numpy=lambda a, b, **_: [a @ b], paper=[dict(i=4096, j=4096, k=4096)]
    ),
    "bmatmul": CATALOG["bmatmul"],
    "mcc": CATALOG["mcc"],
}
"""The catalog's entries with reduced-precision variants; the product's twin is BLAS's
(einsum's loops take 10x as long at 1024³), its first size 4096³, where tensor cores pay
off."""

REDUCED: dict[str, tuple[str, str]] = {
    f"{base}_{p}": (base, p) for base in _REDUCED_BASES for p in PRECISIONS
}
"""Each reduced-precision variant's computation and precision (`matmul_f16`: matmul, f16)."""


def _reduced(entry: Entry, t, precision: str) -> Entry:
    """`entry`, a sum of products whose builder takes the inputs' type `t` and their
    `precision`, with inputs of type `t` read at `precision` (numpy twin and sizes kept)."""
    return replace(entry, builder=partial(entry.builder, t=t, precision=precision))


ENTRIES: dict[str, Entry] = {
    **CATALOG,
    **{
        f"{name}_{axis}": _reduction_over(f"{name}_{axis}", g, ufunc, axis)
        for name, g, ufunc in (("reduce_sum", "add", np.add), ("reduce_max", "max", np.maximum))
        for axis in "jk"
    },
    **{name: _reduced(_REDUCED_BASES[base], *PRECISIONS[p]) for name, (base, p) in REDUCED.items()},
    **CHAINS,
}
"""Every computation by name: the catalog's entries, then the harness's own."""

REDUCTIONS: dict[str, tuple[str, int]] = {
    name: (g, _AXES.index(axis))
    for g, base in (("sum", "reduce_sum"), ("max", "reduce_max"))
    for name, axis in ((base, "i"), (f"{base}_j", "j"), (f"{base}_k", "k"))
}
"""Each reduction's operation (sum or max) and the axis it reduces (for the peers)."""
