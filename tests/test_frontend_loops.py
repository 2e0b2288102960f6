"""The annotated-loop form (`mdh_ir.frontend.loops`): loop nests of catalog computations
give the catalog's numpy results; loop nests outside the form are refused in its terms."""

from __future__ import annotations

from operator import add

import numpy as np
import pytest

from mdh_ir.builder import cast, i32, select
from mdh_ir.catalog import CATALOG
from mdh_ir.frontend import cc, combine_ops, pw
from mdh_ir.frontend.loops import LoopFormError
from tests.lowering_check import TEST_DEVICE
from tests.test_reference import assert_outputs


def matvec(*, i, k):
    @combine_ops(cc, pw(add))
    def matvec(M, v, w):
        for row in range(i):
            for col in range(k):
                w[row] += M[row, col] * v[col]

    return matvec


def matmul(*, i, j, k):
    @combine_ops(cc, cc, pw(add))
    def matmul(A, B, C):
        for i_ in range(i):
            for j_ in range(0, j):
                for k_ in range(k):
                    C[i_, j_] = A[i_, k_] * B[k_, j_]

    return matmul


def jacobi1d(*, i):
    @combine_ops(cc)
    def jacobi1d(x, y):
        """The padded form: y[i] reads x[i], x[i + 1], x[i + 2]."""
        for n in range(i):
            total = x[n] + x[n + 1] + x[n + 2]
            y[n] = total / 3.0

    return jacobi1d


def mcc(*, n, p, q, k, r, s, c, stride):
    @combine_ops(cc, cc, cc, cc, pw(add), pw(add), pw(add))
    def mcc(x, w, out):
        for n_ in range(n):
            for p_ in range(p):
                for q_ in range(q):
                    for k_ in range(k):
                        for r_ in range(r):
                            for s_ in range(s):
                                for c_ in range(c):
                                    out[n_, p_, q_, k_] += (
                                        x[n_, stride * p_ + r_, stride * q_ + s_, c_]
                                        * w[k_, r_, s_, c_]
                                    )

    return mcc


def reduce_max(*, i, j, k):
    @combine_ops(pw(max), cc, cc)
    def reduce_max(x, y):
        for a in range(i):
            for b in range(j):
                for c in range(k):
                    y[b, c] = x[a, b, c]

    return reduce_max


def histogram(*, e, b):
    @combine_ops(pw(add), cc)
    def histogram(x: i32, count: i32):
        for n in range(e):
            for bin in range(b):
                count[bin] += select(x[n].eq(cast(bin, i32)), 1, 0, i32)

    return histogram


LOOPS = {
    "matvec": matvec, "matmul": matmul, "jacobi1d": jacobi1d, "mcc": mcc,
    "reduce_max": reduce_max, "histogram": histogram,
}  # fmt: skip


@pytest.mark.parametrize("name", LOOPS)
def test_catalog_entry(name):
    entry = CATALOG[name]
    params = entry.params(**{**entry.small, **({"boundary": "none"} if name == "jacobi1d" else {})})
    inputs = entry.inputs(np.random.default_rng(0), **params)
    sizes = {k: v for k, v in params.items() if k != "boundary"}
    assert_outputs([LOOPS[name](**sizes).evaluate(*inputs)], entry.expected(inputs, **params))


def test_the_module_is_the_catalog_module():
    small = CATALOG["mcc"].small
    assert str(mcc(**small).module) == str(CATALOG["mcc"].build(**small))


def test_runs_on_opencl():
    m, v = (np.random.default_rng(1).uniform(-1, 1, s).astype(np.float32) for s in [(9, 5), (5,)])
    np.testing.assert_allclose(matvec(i=9, k=5)(m, v, device=TEST_DEVICE), m @ v, rtol=1e-5)


def imperfect(x, y):
    for i in range(4):
        y[i] = x[i]
        for j in range(2):
            y[i] = x[j]


def shifted(x, y):
    for i in range(1, 4):
        y[i] = x[i]


def reads_output(x, y):
    for i in range(4):
        y[i] = x[i] + y[i]


def unused(x, z, y):
    for i in range(4):
        y[i] = x[i]


def quadratic(x, y):
    for i in range(4):
        y[i] = x[i * i]


def add_into_max(x, y):
    for i in range(4):
        for j in range(3):
            y[i] += x[i, j]


ERRORS = [
    (imperfect, (cc,), "the loops must nest perfectly around the body"),
    (shifted, (cc,), r"a loop is `for i in range\(N\)` or `range\(0, N\)`"),
    (reads_output, (cc,), f"line {reads_output.__code__.co_firstlineno + 2}: y is an output"),
    (unused, (cc,), r"unused parameters \['z'\]"),
    (quadratic, (cc,), r"index x\[i \* i\] is not affine"),
    (add_into_max, (cc, pw(max)), "y is updated with \\+=, the loops reduce with max"),
    (add_into_max, (cc,), "2 loops but 1 combine operators"),
]


@pytest.mark.parametrize("fn, ops, message", ERRORS)
def test_errors_in_the_forms_terms(fn, ops, message):
    with pytest.raises(LoopFormError, match=message):
        combine_ops(*ops)(fn)
