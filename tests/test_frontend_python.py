"""The MDH Python interface (`mdh_ir.frontend.python`): every catalog computation written
in it gives the catalog's numpy results; OpenCL runs; errors in the interface's terms."""

from __future__ import annotations

from operator import add, mul

import numpy as np
import pytest

from mdh_ir.builder import absf, cast, exp, f32, i32, select
from mdh_ir.catalog import CATALOG, PRL_CLOSE, PRL_FIELDS
from mdh_ir.frontend import Buffer, cc, inp, inp_view, md_hom, mdh, out, out_view, ps, pw
from tests.lowering_check import TEST_DEVICE
from tests.test_reference import assert_outputs

T = f32


def product(out, inp):
    out["C"] = inp["A"] * inp["B"]


def plus(res, lhs, rhs):
    res["C"] = lhs["C"] + rhs["C"]


# --- sums of products ------------------------------------------------------------------


def dot(*, k):
    @mdh(out(C=Buffer[T]), inp(A=Buffer[T], B=Buffer[T]))
    def dot():
        return (
            out_view[T](C=[lambda k: ()]),
            md_hom[k](product, pw(add)),
            inp_view[T, T](A=[lambda k: (k)], B=[lambda k: (k)]),
        )

    return dot


def matvec(*, i, k):
    @mdh(out(w=Buffer[T]), inp(M=Buffer[T], v=Buffer[T]))
    def matvec():
        def mul(out, inp):
            out["w"] = inp["M"] * inp["v"]

        def scalar_plus(res, lhs, rhs):
            res["w"] = lhs["w"] + rhs["w"]

        return (
            out_view[T](w=[lambda i, k: (i)]),
            md_hom[i, k](mul, (cc, pw(scalar_plus))),
            inp_view[T, T](M=[lambda i, k: (i, k)], v=[lambda i, k: (k)]),
        )

    return matvec


def matmul(*, i, j, k):
    @mdh()
    def matmul():
        return (
            out_view[T](C=[lambda i, j, k: (i, j)]),
            md_hom[i, j, k](product, (cc, cc, pw(plus))),
            inp_view[T, T](A=[lambda i, j, k: (i, k)], B=[lambda i, j, k: (k, j)]),
        )

    return matmul


def matmul_t(*, i, j, k):
    @mdh()
    def matmul_t():
        return (
            out_view[T](C=[lambda i, j, k: (i, j)]),
            md_hom[i, j, k](product, (cc, cc, pw("add"))),
            inp_view[T, T](A=[lambda i, j, k: (k, i)], B=[lambda i, j, k: (j, k)]),
        )

    return matmul_t


def bmatmul(*, b, i, j, k):
    @mdh()
    def bmatmul():
        return (
            out_view[T](C=[lambda b, i, j, k: (b, i, j)]),
            md_hom[b, i, j, k](product, (cc, cc, cc, pw(add))),
            inp_view[T, T](A=[lambda b, i, j, k: (b, i, k)], B=[lambda b, i, j, k: (b, k, j)]),
        )

    return bmatmul


def tensor_contraction(*, a, b, c, d, e, f, g):
    @mdh()
    def tensor_contraction():
        return (
            out_view[T](C=[lambda a, b, c, d, e, f, g: (a, b, c, d, e, f)]),
            md_hom[a, b, c, d, e, f, g](product, (cc, cc, cc, cc, cc, cc, pw(add))),
            inp_view[T, T](
                A=[lambda a, b, c, d, e, f, g: (g, d, a, b)],
                B=[lambda a, b, c, d, e, f, g: (e, f, g, c)],
            ),
        )

    return tensor_contraction


def mcc(*, n, p, q, k, r, s, c, stride):
    @mdh(out(y=Buffer[T]), inp(x=Buffer[T], w=Buffer[T]))
    def mcc():
        def f(out, inp):
            out["y"] = inp["x"] * inp["w"]

        return (
            out_view[T](y=[lambda n, p, q, k, r, s, c: (n, p, q, k)]),
            md_hom[n, p, q, k, r, s, c](f, (cc, cc, cc, cc, pw(add), pw(add), pw(add))),
            inp_view[T, T](
                x=[lambda n, p, q, k, r, s, c: (n, stride * p + r, stride * q + s, c)],
                w=[lambda n, p, q, k, r, s, c: (k, r, s, c)],
            ),
        )

    return mcc


def mcc_capsule(*, n, p, q, k, mi, mj, r, s, c, mk, stride):
    @mdh()
    def mcc_capsule():
        return (
            out_view[T](C=[lambda n, p, q, k, mi, mj, r, s, c, mk: (n, p, q, k, mi, mj)]),
            md_hom[n, p, q, k, mi, mj, r, s, c, mk](product, (cc,) * 6 + (pw(add),) * 4),
            inp_view[T, T](
                A=[lambda n, p, q, k, mi, mj, r, s, c, mk:
                   (n, stride * p + r, stride * q + s, c, mi, mk)],
                B=[lambda n, p, q, k, mi, mj, r, s, c, mk: (k, r, s, c, mk, mj)],
            ),
        )  # fmt: skip

    return mcc_capsule


# --- stencils: relative reads; without a boundary mode the input is the padded buffer ---


def jacobi1d(*, i, boundary="none"):
    shift = 1 if boundary == "none" else 0

    @mdh(out(y=Buffer[T]), inp(x=Buffer(T, boundary, None if shift else (i,))))
    def jacobi1d():
        def f_j1d(out, inp):
            out["y"] = (inp["x", 0] + inp["x", 1] + inp["x", 2]) / 3.0

        return (
            out_view[T](y=[lambda i: (i)]),
            md_hom[i](f_j1d, cc),
            inp_view[T](x=[lambda i, o=o: (i + o + shift) for o in (-1, 0, 1)]),
        )

    return jacobi1d


def jacobi3d(*, i, j, k):
    @mdh()
    def jacobi3d():
        def f(out, inp):
            out["y"] = sum((inp["x", n] for n in range(1, 7)), inp["x", 0])

        offsets = [(0, 0, 0), (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]
        return (
            out_view[T](y=[lambda i, j, k: (i, j, k)]),
            md_hom[i, j, k](f, (cc, cc, cc)),
            inp_view[T](
                x=[lambda i, j, k, o=o: (i + 1 + o[0], j + 1 + o[1], k + 1 + o[2]) for o in offsets]
            ),
        )

    return jacobi3d


def gaussian(*, h, w, r, s):
    @mdh()
    def gaussian():
        return (
            out_view[T](C=[lambda h, w, r, s: (h, w)]),
            md_hom[h, w, r, s](product, (cc, cc, pw(add), pw(add))),
            inp_view[T, T](A=[lambda h, w, r, s: (h + r, w + s)], B=[lambda h, w, r, s: (r, s)]),
        )

    return gaussian


# --- record linkage, histogram, reductions, scan, point-wise and re-shaping ops ---------


def prl(*, i, j):
    fields = range(len(PRL_FIELDS))

    @mdh(out(weight=Buffer[f32], match=Buffer[i32]))
    def prl():
        def weight(out, inp, i, j):
            tol, close, far = PRL_CLOSE
            w = select(absf(inp["A_date"] - inp["B_date"]) <= tol, close, far, f32)
            for f, (agree, disagree) in enumerate(PRL_FIELDS):
                w = w + select(inp["A", f].eq(inp["B", f]), agree, disagree, f32)
            out["weight"], out["match"] = w, cast(j, i32)

        def better(res, lhs, rhs):
            second = (rhs["weight"] > lhs["weight"]) | (
                rhs["weight"].eq(lhs["weight"]) & (rhs["match"] < lhs["match"])
            )
            res["weight"] = select(second, rhs["weight"], lhs["weight"])
            res["match"] = select(second, rhs["match"], lhs["match"])

        return (
            out_view[f32, i32](weight=[lambda i, j: (i)], match=[lambda i, j: (i)]),
            md_hom[i, j](weight, (cc, pw(better))),
            inp_view[i32, i32, f32, f32](
                A=[lambda i, j, f=f: (i, f) for f in fields],
                B=[lambda i, j, f=f: (j, f) for f in fields],
                A_date=[lambda i, j: (i)],
                B_date=[lambda i, j: (j)],
            ),
        )

    return prl


def histogram(*, e, b):
    @mdh()
    def histogram():
        def count(out, inp, e, b):
            out["count"] = select(inp["x"].eq(cast(b, i32)), 1, 0, i32)

        return (
            out_view[i32](count=[lambda e, b: (b)]),
            md_hom[e, b](count, (pw(add), cc)),
            inp_view[i32](x=[lambda e, b: (e)]),
        )

    return histogram


def copy(out, inp):
    out["y"] = inp["x"]


def reduction(g):
    def build(*, i, j, k):
        @mdh()
        def reduce():
            return (
                out_view[T](y=[lambda i, j, k: (j, k)]),
                md_hom[i, j, k](copy, (pw(g), cc, cc)),
                inp_view[T](x=[lambda i, j, k: (i, j, k)]),
            )

        return reduce

    return build


def prefix_sum(*, n):
    @mdh()
    def prefix_sum():
        return out_view[T](y=lambda n: n), md_hom[n](copy, ps(add)), inp_view[T](x=lambda n: n)

    return prefix_sum


def nhwc(f, out_lambda=lambda n, h, w, c: (n, h, w, c), bias=False):
    def build(*, n, h, w, c):
        extra = dict(bias=[lambda n, h, w, c: (c)]) if bias else {}

        @mdh()
        def nhwc():
            return (
                out_view[T](y=[out_lambda]),
                md_hom[n, h, w, c](f, (cc, cc, cc, cc)),
                inp_view[(T,) * (1 + bias)](x=[lambda n, h, w, c: (n, h, w, c)], **extra),
            )

        return nhwc

    return build


def bias_add(out, inp):
    out["y"] = inp["x"] + inp["bias"]


def exponential(out, inp):
    out["y"] = exp(inp["x"])


PYTHON = {
    "dot": dot, "matvec": matvec, "matmul": matmul, "matmul_t": matmul_t, "bmatmul": bmatmul,
    "jacobi1d": jacobi1d, "jacobi3d": jacobi3d, "gaussian": gaussian, "mcc": mcc,
    "mcc_capsule": mcc_capsule, "tensor_contraction": tensor_contraction, "prl": prl,
    "histogram": histogram, "reduce_sum": reduction(add), "reduce_max": reduction(max),
    "prefix_sum": prefix_sum, "bias_add": nhwc(bias_add, bias=True),
    "transpose": nhwc(copy, lambda n, h, w, c: (n, c, h, w)), "exp": nhwc(exponential),
}  # fmt: skip
"""The catalog in the Python interface, each taking the catalog entry's sizes."""


def test_the_whole_catalog_is_written():
    assert PYTHON.keys() == CATALOG.keys()


@pytest.mark.parametrize("name", CATALOG)
def test_catalog_entry(name):
    entry = CATALOG[name]
    params = entry.params(**entry.small)
    inputs = entry.inputs(np.random.default_rng(0), **params)
    got = PYTHON[name](**params).evaluate(*inputs)
    assert_outputs(list(got) if isinstance(got, tuple) else [got], entry.expected(inputs, **params))


@pytest.mark.parametrize("boundary", ["none", "clamp", "wrap"])
def test_stencil_boundary_modes(boundary):
    entry = CATALOG["jacobi1d"]
    inputs = entry.inputs(np.random.default_rng(1), i=11, boundary=boundary)
    got = jacobi1d(i=11, boundary=boundary).evaluate(*inputs)
    assert_outputs([got], entry.expected(inputs, i=11, boundary=boundary))


def test_runs_on_opencl():
    """`computation(*arrays)` lowers, builds and runs; several outputs come as a tuple."""
    entry = CATALOG["prl"]
    inputs = entry.inputs(np.random.default_rng(2), i=13, j=40)
    weight, match = prl(i=13, j=40)(*inputs, device=TEST_DEVICE)
    want = entry.expected(inputs, i=13, j=40)
    np.testing.assert_allclose(weight, want[0], rtol=1e-6)
    np.testing.assert_array_equal(match, want[1])
    m, v = (np.random.default_rng(3).uniform(-1, 1, s).astype(np.float32) for s in [(9, 5), (5,)])
    np.testing.assert_allclose(matvec(i=9, k=5)(m, v, device=TEST_DEVICE), m @ v, rtol=1e-5)


def test_views_are_affine_in_every_spelling():
    """`n - 1 - i` reverses (xDSL's own `int - AffineExpr` is wrong: `1 - d0` = `d0 - 1`)."""

    @mdh()
    def reverse():
        return (
            out_view[T](y=[lambda i: (i)]),
            md_hom[6](copy, cc),
            inp_view[T](x=[lambda i: (6 - 1 - i)]),
        )

    x = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(reverse.evaluate(x), x[::-1])
    assert "(d0 * -1) + 5" in str(reverse.module)


def test_the_module_is_the_catalog_module():
    """Written alike, the interface builds the very IR of `mdh_ir.builder`."""
    assert str(bmatmul(b=2, i=3, j=4, k=5)) == str(CATALOG["bmatmul"].build(b=2, i=3, j=4, k=5))


def define(outs, hom, ins, decls=(None, None)):
    return mdh(*decls)(lambda: (outs, hom, ins))


Y, X, COPY = out_view[T](y=lambda i: i), inp_view[T](x=lambda i: i), md_hom[4](copy, cc)

ERRORS = [
    (lambda: define(Y, COPY, inp_view[T](x=lambda i, j: i)),
     TypeError, "a view lambda takes 1 indices"),
    (lambda: define(Y, COPY, inp_view[T](x=lambda i: i * i)),
     TypeError, "an index may only be multiplied by an integer"),
    (lambda: define(out_view[T](z=lambda i: i), COPY, X),
     ValueError, r"scalar function copy must write exactly the outputs \['z'\], wrote \['y'\]"),
    (lambda: md_hom[4](copy, (cc, cc)), TypeError, "1 dimensions but 2 combine operators"),
    (lambda: define(Y, COPY, X, (out(y=Buffer[i32]), None)),
     TypeError, "buffer y: declared i32, viewed as f32"),
]  # fmt: skip


@pytest.mark.parametrize("make, error, message", ERRORS)
def test_errors_in_the_interfaces_terms(make, error, message):
    with pytest.raises(error, match=message):
        make()
