"""The benchmark catalog (BENCHMARKS.md) as `mdh.compute` builders with numpy twins.

    from mdh_ir.catalog import CATALOG

    entry = CATALOG["matmul"]
    module = entry.build(**entry.small)            # or entry.build() for the first paper size
    inputs = entry.inputs(np.random.default_rng(0), **entry.small)
    want = entry.expected(inputs, **entry.small)   # hand-written numpy, float64

Every entry takes its sizes as keyword arguments named after the dimensions of its
iteration space (plus `stride` for convolutions and `boundary` for stencils; the
contractions and `mcc` also take their inputs' element type `t` and `precision`, f32 and
"ieee" by default, as `sum_of_products` does). `paper` lists the sizes of the MDH
papers' evaluations, the first one being the default for omitted arguments; `small` is
a size whose reference evaluation takes milliseconds and is the size of the
hand-written `examples/<name>.mlir`.

| name | dims | combine ops | small | paper |
|---|---|---|---|---|
| dot | k | pw(add) | 100 | 2^24; 10^7 |
| matvec | i k | cc pw(add) | 128×64 | 4096²; 8192²; 2^18×2^10; 2^10×2^18 |
| matmul | i j k | cc cc pw(add) | 10×20×16 | 10×500×64; 1024³; 4096³ |
| matmul_t | i j k | cc cc pw(add) | 10×20×16 | 10×500×64 |
| bmatmul | b i j k | cc cc cc pw(add) | 3×4×5×6 | 16×10×500×64 |
| jacobi1d | i | cc | 37, clamp | 2^24 |
| jacobi3d | i j k | cc cc cc | 6×5×4 | 256³; 512³ |
| gaussian | h w r s | cc cc pw(add) pw(add) | 9×8, 5×5 | 224², 4096²; 5×5 |
| mcc | n p q k r s c | cc×4 pw(add)×3 | 2,3,4,3,3,2,2 σ2 | 1,7,7,512,3,3,512; ResNet-50 L1 |
| mcc_capsule | n p q k mi mj r s c mk | cc×6 pw(add)×4 | 1,2,3,2,2,3,2,2,2,2 σ2 | VGG-16, ResNet-50 L1 |
| tensor_contraction | a … g | cc×6 pw(add) | 3×2×2×3×2×2×4 | 24×16×16×24×16×16×24 |
| prl | i j | cc pw(best match) | 13×40 | 2^15 … 2^20 records each |
| histogram | e b | pw(add) cc | 1000, 16 bins | 2^24, 256 bins |
| reduce_sum, reduce_max | i j k | pw(add/max) cc cc | 7×5×3 | 1024×1024×16 |
| prefix_sum | n | ps(add) | 100 | 2^24 |
| bias_add, transpose, exp | n h w c | cc×4 | 2×5×4×3 | 16×112×112×64 |

σ is the stride. ResNet-50 L1: 230²×3 → 112²×64, 7×7, σ 2, N = 16 and 1 (the input buffer
is 229²: stride 2 never reads the last row and column); VGG-16 L1: 226²×3 → 224²×64, 3×3,
σ 1, N = 16 and 1; capsules use 4×4 matrices (mi = mj = mk = 4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.builder import (
    Input,
    Output,
    absf,
    cast,
    cc,
    compute_module,
    exp,
    f32,
    i32,
    ps,
    pw,
    select,
)
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.semantics.scalar_eval import dtype_kind

Arrays = list[np.ndarray]


@dataclass(frozen=True)
class Entry:
    """One computation: its builder, its numpy twin and its sizes."""

    builder: Callable[..., ModuleOp]
    numpy: Callable[..., Arrays]
    """`numpy(*inputs, **params)`: the outputs, computed directly with numpy."""
    small: dict[str, Any]
    paper: list[dict[str, Any]]
    make_inputs: Callable[..., Arrays] | None = None
    """`make_inputs(rng, **params)` where uniform random inputs do not fit."""

    def params(self, **given: Any) -> dict[str, Any]:
        """`given` completed with the first paper size."""
        return {**self.paper[0], **given}

    def build(self, **given: Any) -> ModuleOp:
        return self.builder(**self.params(**given))

    def expected(self, inputs: Arrays, **given: Any) -> Arrays:
        """The numpy twin's outputs, float inputs (bf16 ones too) widened to float64."""
        wide = [x.astype(np.float64) if dtype_kind(x.dtype) == "f" else x for x in inputs]
        return [np.asarray(y) for y in self.numpy(*wide, **self.params(**given))]

    def inputs(self, rng: np.random.Generator, **given: Any) -> Arrays:
        """Random inputs for these sizes."""
        if self.make_inputs is not None:
            return self.make_inputs(rng, **self.params(**given))
        return random_inputs(find_compute(self.build(**given)), rng)


def _inputs_only(f: Callable[..., Arrays]) -> Callable[..., Arrays]:
    """A numpy twin that needs only the inputs (their shapes give the sizes)."""
    return lambda *inputs, **_: f(*inputs)


# ---------------------------------------------------------------------------------------
# Sums of products: BLAS, tensor contraction, convolutions
# ---------------------------------------------------------------------------------------


def sum_of_products(
    name: str, sizes: dict[str, int], a: str, b: str, out: str, t=f32, precision: str = "ieee"
) -> ModuleOp:
    """C[out] = sum over the dims missing from `out` of A[a] * B[b]: views over `sizes`
    of inputs of element type `t` read at `precision`, an f32 result."""
    kept = [d.strip() for d in out.split(",")]
    return compute_module(
        name,
        sizes,
        inputs=[Input("A", t, a), Input("B", t, b)],
        outputs=[Output("C", f32, out)],
        scalar=lambda x, y: x * y,
        combine=[cc if d in kept else pw("add") for d in sizes],
        precision=precision,
    )


def _contraction(name: str, spec: str, small: dict[str, int], paper: list[dict[str, int]]) -> Entry:
    """The einsum `spec` of two operands over one-letter dims ("ik,kj->ij").

    The dims are the output's, then the summed ones in order of appearance.
    """
    operands, out = spec.split("->")
    a, b = operands.split(",")
    dims = out + "".join(d for d in dict.fromkeys(a + b) if d not in out)

    def build(*, t=f32, precision: str = "ieee", **sizes: int) -> ModuleOp:
        if set(sizes) != set(dims):
            raise TypeError(f"{name} takes the sizes {', '.join(dims)}, got {', '.join(sizes)}")
        views = [", ".join(v) for v in (a, b, out)]
        return sum_of_products(name, {d: sizes[d] for d in dims}, *views, t, precision)

    return Entry(build, _inputs_only(lambda x, y: [np.einsum(spec, x, y)]), small, paper)


def _conv(
    name: str, sizes: dict[str, int], stride: int, capsule: bool, t=f32, precision: str = "ieee"
) -> ModuleOp:
    """NHWC input, KRSC filter, NPQK output, both inputs of type `t` read at `precision`;
    capsules multiply 2-D matrices per element."""
    x, w, out = "n, {s}*p + r, {s}*q + s, c".format(s=stride), "k, r, s, c", "n, p, q, k"
    if capsule:
        x, w, out = x + ", mi, mk", w + ", mk, mj", out + ", mi, mj"
    return sum_of_products(name, sizes, x, w, out, t, precision)


def mcc(
    *, n: int, p: int, q: int, k: int, r: int, s: int, c: int, stride: int, t=f32,
    precision: str = "ieee",
) -> ModuleOp:  # fmt: skip
    """Multi-channel convolution: out[n,p,q,k] = Σ_rsc x[n, σp+r, σq+s, c] · w[k,r,s,c]
    (x and w of type `t` read at `precision`, an f32 result)."""
    sizes = dict(n=n, p=p, q=q, k=k, r=r, s=s, c=c)
    return _conv("mcc", sizes, stride, capsule=False, t=t, precision=precision)


def mcc_capsule(
    *, n: int, p: int, q: int, k: int, mi: int, mj: int, r: int, s: int, c: int, mk: int,
    stride: int,
) -> ModuleOp:  # fmt: skip
    """MCC on matrices: out[n,p,q,k,mi,mj] = Σ x[n,σp+r,σq+s,c,mi,mk] · w[k,r,s,c,mk,mj]."""
    sizes = dict(n=n, p=p, q=q, k=k, mi=mi, mj=mj, r=r, s=s, c=c, mk=mk)
    return _conv("mcc_capsule", sizes, stride, capsule=True)


def _conv_np(x: np.ndarray, w: np.ndarray, *, stride: int, **_: Any) -> Arrays:
    windows = sliding_window_view(x, w.shape[1:3], axis=(1, 2))[:, ::stride, ::stride]
    xm, wm, om = ("IM", "MJ", "IJ") if x.ndim == 6 else ("", "", "")
    return [np.einsum(f"npqc{xm}rs,krsc{wm}->npqk{om}", windows, w)]


# ---------------------------------------------------------------------------------------
# Stencils: reads are written relative to the output point; without a boundary mode the
# input is the padded buffer (`pads` more elements before/after on each axis).
# ---------------------------------------------------------------------------------------

PAD_MODES = {"clamp": "edge", "zero": "constant", "wrap": "wrap", "mirror": "reflect"}
"""Our boundary modes as `np.pad` modes."""


def _plus(expr: str, k: int) -> str:
    """`expr` shifted by the constant k, as view text."""
    return expr if k == 0 else f"{expr} {'+' if k > 0 else '-'} {abs(k)}"


def _stencil_input(
    accesses: list[list[tuple[str, int]]], pads: list[tuple[int, int]], shape: list[int],
    boundary: str,
) -> Input:  # fmt: skip
    """f32 input `x` read at each access, an access being (expression, offset) per axis."""
    shift = [0 if boundary != "none" else lo for lo, _ in pads]
    views = [", ".join(_plus(e, k + sh) for (e, k), sh in zip(acc, shift)) for acc in accesses]
    return Input("x", f32, views, boundary, None if boundary == "none" else shape)


def _padded(x: np.ndarray, pads: list[tuple[int, int]], boundary: str) -> np.ndarray:
    return x if boundary == "none" else np.pad(x, pads, PAD_MODES[boundary])


def jacobi1d(*, i: int, boundary: str = "none") -> ModuleOp:
    """3-point average: y[i] = (x[i-1] + x[i] + x[i+1]) / 3."""
    x = _stencil_input([[("i", o)] for o in (-1, 0, 1)], [(1, 1)], [i], boundary)
    return compute_module(
        "jacobi1d", {"i": i}, [x], [Output("y", f32, "i")],
        scalar=lambda a, b, c: (a + b + c) / 3.0, combine=[cc],
    )  # fmt: skip


def _jacobi1d_np(x: np.ndarray, boundary: str = "none", **_: Any) -> Arrays:
    y = _padded(x, [(1, 1)], boundary)
    return [(y[:-2] + y[1:-1] + y[2:]) / 3.0]


_JACOBI3D_OFFSETS = [(0, 0, 0)] + [
    tuple(o if a == axis else 0 for a in range(3)) for axis in range(3) for o in (-1, 1)
]
"""The centre, then the two neighbours along each axis."""


def jacobi3d(*, i: int, j: int, k: int, boundary: str = "none") -> ModuleOp:
    """7-point sum: the centre plus its six face neighbours."""
    accesses = [list(zip("ijk", off)) for off in _JACOBI3D_OFFSETS]
    x = _stencil_input(accesses, [(1, 1)] * 3, [i, j, k], boundary)
    return compute_module(
        "jacobi3d", dict(i=i, j=j, k=k), [x], [Output("y", f32, "i, j, k")],
        scalar=lambda *p: sum(p[1:], p[0]), combine=[cc, cc, cc],
    )  # fmt: skip


def _jacobi3d_np(x: np.ndarray, boundary: str = "none", **_: Any) -> Arrays:
    y = _padded(x, [(1, 1)] * 3, boundary)
    inner = [n - 2 for n in y.shape]
    parts = [
        y[tuple(slice(1 + o, 1 + o + m) for o, m in zip(off, inner))] for off in _JACOBI3D_OFFSETS
    ]
    return [sum(parts[1:], parts[0])]


def _gaussian_pads(r: int, s: int) -> list[tuple[int, int]]:
    return [(r // 2, (r - 1) - r // 2), (s // 2, (s - 1) - s // 2)]


def gaussian(*, h: int, w: int, r: int, s: int, boundary: str = "none") -> ModuleOp:
    """2-D convolution with an r×s filter centred on each output pixel (Gaussian blur)."""
    pads = _gaussian_pads(r, s)
    centred = [("h + r", -pads[0][0]), ("w + s", -pads[1][0])]
    image = _stencil_input([centred], pads, [h, w], boundary)
    return compute_module(
        "gaussian", dict(h=h, w=w, r=r, s=s), [image, Input("filter", f32, "r, s")],
        [Output("y", f32, "h, w")],
        scalar=lambda a, b: a * b, combine=[cc, cc, pw("add"), pw("add")],
    )  # fmt: skip


def _gaussian_np(x: np.ndarray, filt: np.ndarray, boundary: str = "none", **_: Any) -> Arrays:
    y = _padded(x, _gaussian_pads(*filt.shape), boundary)
    return [np.einsum("hwrs,rs->hw", sliding_window_view(y, filt.shape), filt)]


# ---------------------------------------------------------------------------------------
# Probabilistic record linkage: for each record of A, its best match in B
# ---------------------------------------------------------------------------------------

PRL_FIELDS = ((4.0, -2.0), (3.0, -1.5), (2.0, -1.0))
"""(agree, disagree) weight of each integer field (e.g. coded name, surname, birth year)."""
PRL_CLOSE = (0.25, 2.5, -0.5)
"""The float field (e.g. a date): tolerance, weight when within it, weight otherwise."""


def _prl_weight(*args):
    """Weight of the pair (a, b) of records, and b's index.

    Arguments: a's integer fields, b's, a's date, b's date, the indices i and j.
    """
    n = len(PRL_FIELDS)
    a, b, (x, y, _, j) = args[:n], args[n : 2 * n], args[2 * n :]
    tol, close, far = PRL_CLOSE
    w = select(absf(x - y) <= tol, close, far, f32)
    for u, v, (agree, disagree) in zip(a, b, PRL_FIELDS):
        w = w + select(u.eq(v), agree, disagree, f32)
    return w, cast(j, i32)


def _prl_better(w1, j1, w2, j2):
    """The heavier (weight, index) pair; equal weights keep the smaller index."""
    second = (w2 > w1) | (w2.eq(w1) & (j2 < j1))
    return select(second, w2, w1), select(second, j2, j1)


def prl(*, i: int, j: int) -> ModuleOp:
    """Best match in B (its weight and index) of each record of A."""
    fields = range(len(PRL_FIELDS))
    return compute_module(
        "prl",
        dict(i=i, j=j),
        inputs=[
            Input("A", i32, [f"i, {f}" for f in fields]),
            Input("B", i32, [f"j, {f}" for f in fields]),
            Input("A_date", f32, "i"),
            Input("B_date", f32, "j"),
        ],
        outputs=[Output("weight", f32, "i"), Output("match", i32, "i")],
        scalar=_prl_weight,
        combine=[cc, pw(_prl_better)],
        indices=True,
    )


def _prl_np(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray, **_: Any) -> Arrays:
    tol, close, far = PRL_CLOSE
    w = np.where(np.abs(x[:, None] - y[None, :]) <= tol, close, far)
    for f, (agree, disagree) in enumerate(PRL_FIELDS):
        w = w + np.where(a[:, None, f] == b[None, :, f], agree, disagree)
    return [w.max(axis=1), w.argmax(axis=1).astype(np.int32)]


def _prl_inputs(rng: np.random.Generator, *, i: int, j: int) -> Arrays:
    """Synthetic records: integer fields with few values (many ties), dates in [0, 2)."""

    def records(n: int) -> np.ndarray:
        return rng.integers(0, 3, (n, len(PRL_FIELDS)), dtype=np.int32)

    return [records(i), records(j), *(rng.uniform(0, 2, n).astype(np.float32) for n in (i, j))]


# ---------------------------------------------------------------------------------------
# Histogram, reductions, scan, DL point-wise and re-shaping ops
# ---------------------------------------------------------------------------------------


def histogram(*, e: int, b: int) -> ModuleOp:
    """Count, for each bin b, the elements equal to b."""
    return compute_module(
        "histogram", dict(e=e, b=b), [Input("x", i32, "e")], [Output("count", i32, "b")],
        scalar=lambda x, _, k: select(x.eq(cast(k, i32)), 1, 0, i32),
        combine=[pw("add"), cc], indices=True,
    )  # fmt: skip


def _histogram_np(x: np.ndarray, *, b: int, **_: Any) -> Arrays:
    return [np.bincount(x[(x >= 0) & (x < b)], minlength=b).astype(np.int32)]


def _histogram_inputs(rng: np.random.Generator, *, e: int, b: int) -> Arrays:
    return [rng.integers(0, b, e, dtype=np.int32)]


def _reduction(name: str, g: str, ufunc: np.ufunc) -> Entry:
    """Reduce the first axis of a 3-D tensor with the builtin combine `g`."""

    def build(*, i: int, j: int, k: int) -> ModuleOp:
        return compute_module(
            name, dict(i=i, j=j, k=k), [Input("x", f32, "i, j, k")], [Output("y", f32, "j, k")],
            scalar=lambda x: x, combine=[pw(g), cc, cc],
        )  # fmt: skip

    numpy = _inputs_only(lambda x: [ufunc.reduce(x, axis=0)])
    return Entry(build, numpy, dict(i=7, j=5, k=3), [dict(i=1024, j=1024, k=16)])


def prefix_sum(*, n: int) -> ModuleOp:
    """Inclusive prefix sum."""
    return compute_module(
        "prefix_sum", {"n": n}, [Input("x", f32, "n")], [Output("y", f32, "n")],
        scalar=lambda x: x, combine=[ps("add")],
    )  # fmt: skip


def _nhwc(
    name: str, scalar: Callable, numpy: Callable[..., Arrays], extra: tuple[Input, ...] = (),
    out: str = "n, h, w, c",
) -> Entry:  # fmt: skip
    """A point-wise op on an NHWC tensor (and `extra` inputs), written through view `out`."""

    def build(*, n: int, h: int, w: int, c: int) -> ModuleOp:
        return compute_module(
            name, dict(n=n, h=h, w=w, c=c), [Input("x", f32, "n, h, w, c"), *extra],
            [Output("y", f32, out)], scalar=scalar, combine=[cc] * 4,
        )  # fmt: skip

    small, paper = dict(n=2, h=5, w=4, c=3), [dict(n=16, h=112, w=112, c=64)]
    return Entry(build, _inputs_only(numpy), small, paper)


# ---------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------

_MATMUL_PAPER = [dict(i=10, j=500, k=64), *(dict(i=n, j=n, k=n) for n in (1024, 4096))]
_RESNET50_1 = dict(p=112, q=112, k=64, r=7, s=7, c=3, stride=2)
_VGG16_1 = dict(p=224, q=224, k=64, r=3, s=3, c=3, stride=1)

CATALOG: dict[str, Entry] = {
    "dot": _contraction("dot", "k,k->", dict(k=100), [dict(k=2**24), dict(k=10**7)]),
    "matvec": _contraction(
        "matvec", "ik,k->i", dict(i=128, k=64),
        [*(dict(i=n, k=n) for n in (4096, 8192)), dict(i=2**18, k=2**10), dict(i=2**10, k=2**18)],
    ),
    "matmul": _contraction("matmul", "ik,kj->ij", dict(i=10, j=20, k=16), _MATMUL_PAPER),
    "matmul_t": _contraction("matmul_t", "ki,jk->ij", dict(i=10, j=20, k=16), _MATMUL_PAPER[:1]),
    "bmatmul": _contraction(
        "bmatmul", "bik,bkj->bij", dict(b=3, i=4, j=5, k=6), [dict(b=16, i=10, j=500, k=64)]
    ),
    "jacobi1d": Entry(jacobi1d, _jacobi1d_np, dict(i=37, boundary="clamp"), [dict(i=2**24)]),
    "jacobi3d": Entry(
        jacobi3d, _jacobi3d_np, dict(i=6, j=5, k=4), [dict(i=n, j=n, k=n) for n in (256, 512)]
    ),
    "gaussian": Entry(
        gaussian, _gaussian_np, dict(h=9, w=8, r=5, s=5),
        [dict(h=n, w=n, r=5, s=5) for n in (224, 4096)],
    ),
    "mcc": Entry(
        mcc, _conv_np, dict(n=2, p=3, q=4, k=3, r=3, s=2, c=2, stride=2),
        [dict(n=1, p=7, q=7, k=512, r=3, s=3, c=512, stride=1),
         dict(n=16, **_RESNET50_1), dict(n=1, **_RESNET50_1)],
    ),
    "mcc_capsule": Entry(
        mcc_capsule, _conv_np, dict(n=1, p=2, q=3, k=2, mi=2, mj=3, r=2, s=2, c=2, mk=2, stride=2),
        [dict(n=n, mi=4, mj=4, mk=4, **net) for net in (_VGG16_1, _RESNET50_1) for n in (16, 1)],
    ),
    "tensor_contraction": _contraction(
        "tensor_contraction", "gdab,efgc->abcdef", dict(a=3, b=2, c=2, d=3, e=2, f=2, g=4),
        [dict(a=24, b=16, c=16, d=24, e=16, f=16, g=24)],
    ),
    "prl": Entry(
        prl, _prl_np, dict(i=13, j=40), [dict(i=2**n, j=2**n) for n in range(15, 21)], _prl_inputs
    ),
    "histogram": Entry(
        histogram, _histogram_np, dict(e=1000, b=16), [dict(e=2**24, b=256)], _histogram_inputs
    ),
    "reduce_sum": _reduction("reduce_sum", "add", np.add),
    "reduce_max": _reduction("reduce_max", "max", np.maximum),
    "prefix_sum": Entry(
        prefix_sum, _inputs_only(lambda x: [np.cumsum(x)]), dict(n=100), [dict(n=2**24)]
    ),
    "bias_add": _nhwc(
        "bias_add", lambda x, bias: x + bias, lambda x, bias: [x + bias], (Input("bias", f32, "c"),)
    ),
    "transpose": _nhwc(
        "transpose", lambda x: x, lambda x: [x.transpose(0, 3, 1, 2)], out="n, c, h, w"
    ),
    "exp": _nhwc("exp", exp, lambda x: [np.exp(x)]),
}  # fmt: skip
