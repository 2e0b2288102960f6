"""Chains in the Python front end (`@chain`, `mdh_ir.frontend.chain`): a computation
called on another's result builds one module of several `mdh.compute` ops whose
reference semantics and OpenCL runs (fused and unfused) give the chain's numpy result
at awkward sizes; misuses raise `MDHError` naming the input and the value."""

from __future__ import annotations

from operator import add

import numpy as np
import pytest

from mdh_ir.builder import cast, exp, f32, i32, maximum
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError
from mdh_ir.frontend import Buffer, cc, chain, inp, inp_view, md_hom, mdh, out, out_view, pw
from mdh_bench.chains import softmax_steps
from tests.lowering_check import TEST_DEVICE

AWKWARD = [(1, 1, 1), (7, 9, 13), (17, 2, 33)]
"""(I, J, K): ones, primes, one more than a power of two."""


def matmul(i: int, j: int, k: int):
    @mdh(out(C=Buffer[f32]), inp(A=Buffer[f32], B=Buffer[f32]))
    def matmul():
        def mul(out, inp):
            out["C"] = inp["A"] * inp["B"]

        return (
            out_view[f32](C=[lambda i, j, k: (i, j)]),
            md_hom[i, j, k](mul, (cc, cc, pw(add))),
            inp_view[f32, f32](A=[lambda i, j, k: (i, k)], B=[lambda i, j, k: (k, j)]),
        )

    return matmul


def bias_relu(i: int, j: int):
    @mdh(out(R=Buffer[f32]), inp(b=Buffer[f32], C=Buffer[f32]))
    def bias_relu():
        def f(out, inp):
            out["R"] = maximum(inp["C"] + inp["b"], 0.0)

        return (
            out_view[f32](R=[lambda i, j: (i, j)]),
            md_hom[i, j](f, (cc, cc)),
            inp_view[f32, f32](b=[lambda i, j: (j)], C=[lambda i, j: (i, j)]),
        )

    return bias_relu


def jacobi1d(n: int, name: str = "jacobi1d"):
    def average(out, inp):
        out["y"] = (inp["x", 0] + inp["x", 1] + inp["x", 2]) / 3.0

    def define():
        return (
            out_view[f32](y=[lambda i: (i)]),
            md_hom[n](average, cc),
            inp_view[f32](x=[lambda i: (i - 1), lambda i: (i), lambda i: (i + 1)]),
        )

    define.__name__ = name
    return mdh(out(y=Buffer[f32]), inp(x=Buffer(f32, "clamp", shape=(n,))))(define)


def scaled(n: int, factor: float):
    """y = factor * x, a computation named `scale` whatever the factor."""

    @mdh()
    def scale():
        def f(out, inp):
            out["y"] = inp["x"] * factor

        return out_view[f32](y=[lambda i: (i)]), md_hom[n](f, cc), inp_view[f32](x=[lambda i: (i)])

    return scale


def inputs(*shapes: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def ops(module) -> list[ComputeOp]:
    return [op for op in module.walk() if isinstance(op, ComputeOp)]


@pytest.mark.parametrize("fuse", [False, True], ids=["unfused", "fused"])
@pytest.mark.parametrize("i, j, k", AWKWARD)
def test_matmul_bias_relu(i, j, k, fuse):
    mm, br = matmul(i, j, k), bias_relu(i, j)

    @chain(fuse=fuse)
    def mm_bias_relu(A, B, b):
        return br(b, mm(A, B))

    A, B, b = inputs((i, k), (k, j), (j,))
    want = np.maximum(A.astype(np.float64) @ B + b, 0)
    assert [op.comp_name.data for op in ops(mm_bias_relu.module)] == ["matmul", "bias_relu"]
    compiled = mm_bias_relu.compile(TEST_DEVICE)
    assert len(compiled.ops) == (1 if fuse else 2)
    np.testing.assert_allclose(mm_bias_relu.evaluate(A, B, b), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mm_bias_relu(A, B, b, device=TEST_DEVICE), want, rtol=1e-5, atol=1e-5)


def clamped_average(x: np.ndarray) -> np.ndarray:
    p = np.pad(x, 1, "edge")
    return (p[:-2] + p[1:-1] + p[2:]) / 3


@pytest.mark.parametrize("n", [1, 2, 17])
def test_one_computation_twice_copies_its_functions_once(n):
    smooth = jacobi1d(n)

    @chain()
    def twice(x):
        return smooth(smooth(x))

    text = str(twice.module)
    assert text.count("func.func @jacobi1d_f(") == 1 and len(ops(twice.module)) == 2
    (x,) = inputs((n,))
    want = clamped_average(clamped_average(x.astype(np.float64)))
    np.testing.assert_allclose(twice.evaluate(x), want, rtol=1e-6)
    np.testing.assert_allclose(twice(x, device=TEST_DEVICE), want, rtol=1e-6)


def test_equal_computations_share_their_functions():
    """Two computations built alike (two modules) use one copy of their functions."""
    first, second = jacobi1d(6), jacobi1d(6)

    @chain()
    def twice(x):
        return second(first(x))

    assert str(twice.module).count("func.func @jacobi1d_f") == 1
    (x,) = inputs((6,))
    np.testing.assert_allclose(twice(x, device=TEST_DEVICE), clamped_average(clamped_average(x)), rtol=1e-6)


def test_colliding_function_names_are_renamed():
    """Two computations named `scale` with different scalar functions: the second's is
    copied as `scale_f_1` and its op calls it."""
    double, halve = scaled(5, 2.0), scaled(5, 0.5)

    @chain()
    def both(x):
        return halve(double(x)), double(x)

    text = str(both.module)
    assert "@scale_f_1(" in text and "scalar_func = @scale_f_1" in text
    (x,) = inputs((5,))
    for got in (both.evaluate(x), both(x, device=TEST_DEVICE)):
        np.testing.assert_allclose(got[0], x, rtol=1e-6)
        np.testing.assert_allclose(got[1], 2 * x, rtol=1e-6)


def test_softmax_of_three_md_homs_with_shared_values():
    """An argument read by three computations, a result by two (row max, exp-sum, divide)."""
    R, C = 5, 9
    row_max, exp_sum, divide = softmax_steps(R, C)

    @chain(fuse=True)
    def softmax(x):
        m = row_max(x)
        return divide(x, m, exp_sum(x, m))

    (x,) = inputs((R, C))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(softmax.evaluate(x), want, rtol=1e-5)
    np.testing.assert_allclose(softmax(x, device=TEST_DEVICE), want, rtol=1e-5)


def test_several_outputs_and_nested_chains():
    """A computation of two outputs unpacked in a chain; a chain called in another."""
    R, C = 4, 7

    @mdh()
    def min_max():
        def f(out, inp):
            out["lo"], out["hi"] = inp["x"], inp["x"]

        def both(res, lhs, rhs):
            res["lo"] = -maximum(-lhs["lo"], -rhs["lo"])
            res["hi"] = maximum(lhs["hi"], rhs["hi"])

        return (
            out_view[f32, f32](lo=[lambda i, j: (i)], hi=[lambda i, j: (i)]),
            md_hom[R, C](f, (cc, pw(both))),
            inp_view[f32](x=[lambda i, j: (i, j)]),
        )

    @mdh()
    def spread():
        def f(out, inp):
            out["d"] = inp["hi"] - inp["lo"]

        return out_view[f32](d=[lambda i: (i)]), md_hom[R](f, cc), inp_view[f32, f32](lo=[lambda i: (i)], hi=[lambda i: (i)])

    @chain()
    def row_spread(x):
        return spread(*min_max(x))

    @chain()
    def outer(x):
        lo, hi = min_max(x)
        return row_spread(x), hi

    (x,) = inputs((R, C))
    want = (x.max(axis=1) - x.min(axis=1), x.max(axis=1))
    assert len(ops(outer.module)) == 3
    for got in (outer.evaluate(x), outer(x, device=TEST_DEVICE)):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


# --- misuse ------------------------------------------------------------------------------


def test_shape_mismatch_names_the_input_and_the_value():
    mm, br = matmul(4, 5, 6), bias_relu(4, 7)
    with pytest.raises(
        MDHError,
        match=r"bias_relu: input 1 \(C\): expected shape \(4, 7\) and dtype float32, "
        r"got result 0 \(C\) of matmul of shape \(4, 5\) and dtype float32",
    ):

        @chain()
        def wrong(A, B, b):
            return br(b, mm(A, B))


def test_dtype_mismatch_names_the_input_and_the_value():
    @mdh()
    def to_int():
        def f(out, inp):
            out["n"] = cast(inp["x"], i32)

        return out_view[i32](n=[lambda i: (i)]), md_hom[5](f, cc), inp_view[f32](x=[lambda i: (i)])

    with pytest.raises(MDHError, match=r"scale: input 0 \(x\): expected shape \(5,\) and dtype float32, got result 0 \(n\) of to_int of shape \(5,\) and dtype int32"):

        @chain()
        def wrong(x):
            return scaled(5, 2.0)(to_int(x))


def test_an_argument_used_with_two_types():
    with pytest.raises(
        MDHError,
        match=r"scale: input 0 \(x\): expected shape \(6,\) .*, got argument x of chain wrong of shape \(5,\) "
        r"and dtype float32 \(as scale: input 0 \(x\)\)",
    ):

        @chain()
        def wrong(x):
            return scaled(5, 2.0)(x), scaled(6, 2.0)(x)


@pytest.mark.parametrize(
    "body, message",
    [
        (
            lambda f, x: bias_relu(1, 5)(x, np.zeros((1, 5), np.float32)),
            r"bias_relu: input 1 \(C\): expected a value of chain wrong .*got ndarray; pass an array as an argument",
        ),
        (lambda f, x: f(x, x), r"scale: 2 inputs for 1 input buffers"),
        (lambda f, x: x, r"chain wrong: returns argument x of chain wrong as result 0"),
        (lambda f, x: (f(x), 3.0), r"chain wrong: returns float as result 1"),
    ],
    ids=["array", "count", "returns-argument", "returns-number"],
)
def test_misuse(body, message):
    f = scaled(5, 2.0)
    with pytest.raises(MDHError, match=message):

        @chain()
        def wrong(x):
            return body(f, x)


def test_unused_argument_and_foreign_value():
    f = scaled(5, 2.0)
    with pytest.raises(MDHError, match=r"chain wrong: argument unused of chain wrong is passed to no computation"):

        @chain()
        def wrong(x, unused):
            return f(x)

    leaked = []

    @chain()
    def first(x):
        leaked.append(f(x))
        return leaked[0]

    with pytest.raises(MDHError, match=r"scale: input 0 \(x\): result 0 \(y\) of scale belongs to another chain, built already"):

        @chain()
        def second(x):
            return f(leaked[0])
