"""The annotated-loop form (`mdh_ir.frontend.loops`): loop nests of catalog computations
give the catalog's numpy results, loop nests give what Python gives running them, and loop
nests outside the form, or that Python would compute differently, are refused in its
terms."""

from __future__ import annotations

from operator import add

import numpy as np
import pytest

from mdh_ir.builder import cast, exp, i32, select
from mdh_ir.catalog import CATALOG
from mdh_ir.frontend import cc, combine_ops, ps, pw
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
                    C[i_, j_] += A[i_, k_] * B[k_, j_]

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
                    y[b, c] = max(y[b, c], x[a, b, c])

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
    (quadratic, (cc,), r"index x\[i \* i\]: an index may only be multiplied by an integer"),
    (add_into_max, (cc, pw(max)), "y is updated with \\+=, the loops reduce with max"),
    (add_into_max, (cc,), "2 loops but 1 combine operators"),
]


@pytest.mark.parametrize("fn, ops, message", ERRORS)
def test_errors_in_the_forms_terms(fn, ops, message):
    with pytest.raises(LoopFormError, match=message):
        combine_ops(*ops)(fn)


def last_write(X, y):
    for i in range(4):
        for k in range(3):
            y[i] = X[i, k]


def custom_reduction(x, y):
    for i in range(4):
        for j in range(3):
            y[i] = x[i, j]


def max_into_add(x, y):
    for i in range(4):
        for j in range(3):
            y[i] = max(y[i], x[i, j])


def reads_other_index(x, y):
    for i in range(4):
        for j in range(3):
            y[i] = max(y[j], x[i, j])


def drops_kept(x, y):
    for i in range(4):
        for j in range(3):
            y[i] = x[i, j]


def keeps_reduced(x, y):
    for i in range(4):
        for j in range(3):
            y[i, j] += x[i, j]


def prefix(x, y):
    for i in range(4):
        y[i] = x[i]


def int_true_division(x: i32, y: i32):
    for i in range(4):
        y[i] = x[i] / 2


def float_constant(x: i32, y: i32):
    for i in range(4):
        y[i] = x[i] * 0.5


def exp_of_int(x: i32, y: i32):
    for i in range(4):
        y[i] = exp(x[i])


def comparison_stored(x: i32, y: i32):
    for i in range(4):
        y[i] = x[i] == 2


def and_of_values(x, y):
    for i in range(4):
        y[i] = x[i] if x[i] > 0 and x[i] < 1 else 0.0


def power(x, y):
    for i in range(4):
        y[i] = x[i] ** 2


def mixed_types(x: i32, z, y):
    for i in range(4):
        y[i] = x[i] + z[i]


def unknown_name(x, y):
    for i in range(4):
        y[i] = undefined_function(x[i])  # noqa: F821


def bad_annotation(x: int, y):
    for i in range(4):
        y[i] = x[i]


def line(fn, offset):
    return f"line {fn.__code__.co_firstlineno + offset}: "


ERRORS += [
    (last_write, (cc, pw(add)), r"y is assigned with `=` under loops that reduce with add: "
     r"Python keeps the last value; write `y\[...\] \+=`"),
    (max_into_add, (cc, pw(add)), r"y is updated with = max\(...\), the loops reduce with add"),
    (custom_reduction, (cc, pw(lambda res, lhs, rhs: res.update(y=lhs["y"]))),
     "the loop form has no update for this; use the Python interface"),
    (reads_other_index, (cc, pw(max)), "y is an output: the body may not read it"),
    (drops_kept, (cc, cc), r"y\[i\]: an output is indexed by the loop variables that no loop "
     r"reduces, each once \(i, j\)"),
    (keeps_reduced, (cc, pw(add)), r"y\[i, j\]: an output is indexed .* \(i\)"),
    (prefix, (ps(add),), "ps: a prefix sum reads earlier outputs"),
    (int_true_division, (cc,), line(int_true_division, 2) + "`/` of i32 is a float; use `//`"),
    (float_constant, (cc,), line(float_constant, 2) + "the float 0.5 with a value of type i32"),
    (exp_of_int, (cc,), line(exp_of_int, 2) + "exp takes a float value, not i32"),
    (comparison_stored, (cc,), line(comparison_stored, 2) + "y holds i32, the value is i1"),
    (and_of_values, (cc,), line(and_of_values, 2) + "`and`/`or` of values; use `&`/`|`"),
    (power, (cc,), line(power, 2) + r"x\[i\] \*\* 2: the loop form has no Pow operator"),
    (mixed_types, (cc,), line(mixed_types, 2) + "operands of types i32 and f32; use cast()"),
    (unknown_name, (cc,), line(unknown_name, 2) + "name 'undefined_function' is not defined"),
    (bad_annotation, (cc,), "bad_annotation: x: <class 'int'> is not f32, f64, i32 or i64"),
]  # fmt: skip


def integer_ops(x: i32, y: i32):
    for i in range(12):
        y[i] = abs(x[i]) + x[i] // 3 - x[i] % 4 * max(x[i], -2) + min(7, x[i]) + (-x[i] ^ ~x[i])


def float_ops(x, y):
    for i in range(12):
        t = x[i] // 0.75 + x[i] % 0.5 + abs(x[i]) - max(0.25, x[i], -x[i])
        y[i] = t if x[i] >= 0 else min(x[i], 1.0) / 2


def comparisons(x: i32, y: i32):
    for i in range(12):
        y[i] = x[i] if x[i] == 2 else (x[i] * 2 if x[i] != -3 else (x[i] if 0 < x[i] else 5))


def numbers(fn):
    """Twelve inputs of `fn`'s type, negative and positive."""
    if fn is float_ops:
        return np.linspace(-3.1, 3.3, 12).astype(np.float32)
    return np.arange(-6, 6, dtype=np.int32)


@pytest.mark.parametrize("fn", [integer_ops, float_ops, comparisons])
def test_operators_mean_what_python_means(fn):
    """The module's values are those of running `fn` itself in Python on the numbers."""
    x = numbers(fn)
    want = np.zeros_like(x)
    fn([v.item() for v in x], want)
    np.testing.assert_allclose(combine_ops(cc)(fn).evaluate(x), want, rtol=1e-6)


def test_abs_of_an_integer_is_absi():
    assert "math.absi" in str(combine_ops(cc)(integer_ops).module)


@pytest.mark.parametrize("fn", [float_ops, comparisons])
def test_operators_run_on_opencl(fn):
    x = numbers(fn)
    computation = combine_ops(cc)(fn)
    np.testing.assert_allclose(computation(x, device=TEST_DEVICE), computation.evaluate(x))


def row_sums(X, y):
    for i in range(4):
        for k in range(3):
            y[i] += X[i, k]


def row_maxima(X, y):
    for i in range(4):
        for k in range(3):
            y[i] = max(y[i], X[i, k])


@pytest.mark.parametrize("fn, op, identity", [(row_sums, add, 0), (row_maxima, max, -np.inf)])
def test_updates_mean_what_python_means(fn, op, identity):
    """`+=` and `= max(y, ...)` give what Python gives from outputs at the identity."""
    X = np.random.default_rng(2).permutation(12).reshape(4, 3).astype(np.float32)
    want = np.full(4, identity, np.float32)
    fn(X, want)
    np.testing.assert_array_equal(combine_ops(cc, pw(op))(fn).evaluate(X), want)
