"""The reference semantics (`mdh_ir.semantics.reference`) against hand-written numpy.

Every catalog computation at its small size, at awkward sizes (all ones, primes) with the
evaluator forced to split the space, every boundary mode, every builtin combine, user
combine functions, a scan over two outputs, and the hand-written `examples/*.mlir`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, math
from xdsl.parser import Parser

from mdh_ir.builder import (
    Input,
    Output,
    cast,
    cc,
    compute_module,
    f32,
    f64,
    i32,
    i64,
    ps,
    pw,
    select,
)
from mdh_ir.catalog import CATALOG, PAD_MODES
from mdh_ir.dialects.mdh import MDH
from mdh_ir.semantics.reference import (
    ReferenceEvaluator,
    boundary_index,
    evaluate,
    find_compute,
    random_inputs,
)

EXAMPLES = Path(__file__).parent.parent / "examples"


def assert_outputs(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    """Same count, shapes and dtypes; floats to 1e-12, integers exactly."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g.shape, g.dtype) == (w.shape, w.dtype)
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(g, w)


class CountingEvaluator(ReferenceEvaluator):
    """Counts the pieces evaluated directly, to see the space really split."""

    pieces = 0

    def direct(self, ranges):
        self.pieces += 1
        return super().direct(ranges)


def check_entry(name: str, seed: int = 0, piece_elements: int | None = None, **sizes) -> None:
    entry = CATALOG[name]
    module = entry.build(**sizes)
    inputs = entry.inputs(np.random.default_rng(seed), **sizes)
    if piece_elements is None:
        got = evaluate(module, inputs)
    else:
        evaluator = CountingEvaluator(find_compute(module), piece_elements=piece_elements)
        got = evaluator(inputs)
        points, elements = int(np.prod(evaluator.sizes)), evaluator.elements(list(evaluator.sizes))
        assert evaluator.pieces >= min(points, -(-elements // piece_elements))  # a point is the smallest piece
    assert_outputs(got, entry.expected(inputs, **sizes))


# --- the catalog ---------------------------------------------------------------------


@pytest.mark.parametrize("name", CATALOG)
def test_small(name):
    check_entry(name, **CATALOG[name].small)


AWKWARD = {
    "dot": dict(k=97),
    "matvec": dict(i=7, k=13),
    "matmul": dict(i=3, j=5, k=7),
    "matmul_t": dict(i=5, j=3, k=11),
    "bmatmul": dict(b=2, i=3, j=1, k=5),
    "jacobi1d": dict(i=31, boundary="none"),
    "jacobi3d": dict(i=2, j=3, k=5),
    "gaussian": dict(h=3, w=5, r=3, s=2),
    "mcc": dict(n=1, p=2, q=3, k=2, r=2, s=3, c=3, stride=3),
    "mcc_capsule": dict(n=2, p=1, q=2, k=1, mi=3, mj=1, r=1, s=2, c=1, mk=3, stride=1),
    "tensor_contraction": dict(a=2, b=1, c=3, d=1, e=2, f=1, g=5),
    "prl": dict(i=5, j=17),
    "histogram": dict(e=31, b=5),
    "reduce_sum": dict(i=11, j=3, k=2),
    "reduce_max": dict(i=11, j=3, k=2),
    "prefix_sum": dict(n=37),
    "bias_add": dict(n=1, h=3, w=2, c=5),
    "transpose": dict(n=1, h=3, w=2, c=5),
    "exp": dict(n=1, h=3, w=2, c=5),
}


def test_awkward_sizes_cover_the_catalog():
    assert AWKWARD.keys() == CATALOG.keys()


@pytest.mark.parametrize("piece_elements", [1, 6])
@pytest.mark.parametrize("name", CATALOG)
def test_prime_sizes_split(name, piece_elements):
    check_entry(name, seed=1, piece_elements=piece_elements, **{**CATALOG[name].small, **AWKWARD[name]})


@pytest.mark.parametrize("name", CATALOG)
def test_all_sizes_one(name):
    small = CATALOG[name].small
    check_entry(name, seed=2, **{k: v if isinstance(v, str) else 1 for k, v in small.items()})


@pytest.mark.parametrize("name", CATALOG)
def test_paper_sizes_build(name):
    for sizes in CATALOG[name].paper:
        op = find_compute(CATALOG[name].build(**sizes))
        assert sorted(op.sizes) == sorted(v for k, v in sizes.items() if k != "stride")


# --- boundary modes ------------------------------------------------------------------

MODES = list(PAD_MODES)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_boundary_index_is_np_pad(mode, n):
    x = np.arange(1, n + 1)
    j = np.arange(-12, n + 12)
    index, inside = boundary_index(j, n, mode)
    read = x[index] if inside is None else np.where(inside, x[index], 0)
    np.testing.assert_array_equal(read, np.pad(x, 12, PAD_MODES[mode]))


STENCIL_SIZES = {
    "jacobi1d": [dict(i=1), dict(i=2), dict(i=37)],
    "jacobi3d": [dict(i=1, j=2, k=3), dict(i=6, j=5, k=4)],
    "gaussian": [dict(h=2, w=1, r=5, s=5), dict(h=3, w=4, r=3, s=4), dict(h=9, w=8, r=5, s=5)],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", STENCIL_SIZES)
def test_boundary_modes(name, mode):
    for sizes in STENCIL_SIZES[name]:
        check_entry(name, boundary=mode, **sizes)
    check_entry(name, piece_elements=16, boundary=mode, **STENCIL_SIZES[name][-1])


# --- combine operators ---------------------------------------------------------------


def user_max(a, b):
    return select(a > b, a, b)


COMBINES = [
    ("add", np.add, [f32, f64, i32, i64]),
    ("mul", np.multiply, [f32, i32, i64]),
    ("max", np.maximum, [f32, i32]),
    ("min", np.minimum, [f64, i64]),
    ("and", np.bitwise_and, [i32, i64]),
    ("or", np.bitwise_or, [i32, i64]),
    ("xor", np.bitwise_xor, [i32, i64]),
    (lambda a, b: a + b, np.add, [f32, i64]),
    (user_max, np.maximum, [f64, i32]),
]
COMBINE_CASES = [
    pytest.param(g, ufunc, t, id=f"{g if isinstance(g, str) else 'user-' + ufunc.__name__}-{t}")
    for g, ufunc, types in COMBINES
    for t in types
]


@pytest.mark.parametrize("kind", ["pw", "ps"])
@pytest.mark.parametrize("g, ufunc, t", COMBINE_CASES)
def test_combine(g, ufunc, t, kind):
    """Along the first of two dims: a reduction (pw) or an inclusive scan (ps)."""
    module = compute_module(
        "combine",
        {"r": 13, "x": 4},
        [Input("x", t, "r, x")],
        [Output("y", t, "x" if kind == "pw" else "r, x")],
        scalar=lambda v: v,
        combine=[(pw if kind == "pw" else ps)(g), cc],
    )
    op = find_compute(module)
    x = random_inputs(op, np.random.default_rng(3))[0]
    wide = x.astype(np.float64) if x.dtype.kind == "f" else x
    fold = ufunc.reduce if kind == "pw" else ufunc.accumulate
    want = fold(wide, axis=0, dtype=wide.dtype)
    for piece_elements in (1 << 21, 3):
        assert_outputs(ReferenceEvaluator(op, piece_elements=piece_elements)([x]), [want])


def running_best(w1, i1, w2, i2):
    """(max, index of its first occurrence) of two partial prefixes."""
    second = (w2 > w1) | (w2.eq(w1) & (i2 < i1))
    return select(second, w2, w1), select(second, i2, i1)


@pytest.mark.parametrize("piece_elements", [1 << 21, 5, 1])
def test_scan_of_two_outputs(piece_elements):
    """A ps scan with a user function over (value, index) pairs; the outputs use two views."""
    module = compute_module(
        "running_argmax",
        {"r": 11, "x": 3},
        [Input("x", i32, "r, x")],
        [Output("best", i32, "r, x"), Output("where", i64, "x, r")],
        scalar=lambda v, r, _: (v, cast(r, i64)),
        combine=[ps(running_best), cc],
        indices=True,
    )
    x = np.random.default_rng(4).integers(0, 4, (11, 3)).astype(np.int32)
    where = np.array([np.argmax(x[: r + 1], axis=0) for r in range(11)])
    want = [np.maximum.accumulate(x, axis=0), where.T.astype(np.int64)]
    assert_outputs(ReferenceEvaluator(find_compute(module), piece_elements=piece_elements)([x]), want)


# --- the example files ---------------------------------------------------------------


def parse_example(name: str) -> builtin.ModuleOp:
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, math.Math, MDH):
        ctx.load_dialect(dialect)
    path = EXAMPLES / f"{name}.mlir"
    module = Parser(ctx, path.read_text(), path.name).parse_module()
    module.verify()
    return module


def test_one_example_per_computation():
    assert sorted(p.stem for p in EXAMPLES.glob("*.mlir")) == sorted(CATALOG)


@pytest.mark.parametrize("name", CATALOG)
def test_example(name):
    """The example evaluates like the numpy twin and like the builder at the small size."""
    entry = CATALOG[name]
    example = find_compute(parse_example(name))
    built = find_compute(entry.build(**entry.small))
    assert example.inputs.types == built.inputs.types
    assert example.outputs.types == built.outputs.types
    assert [c.kind for c in example.combines] == [c.kind for c in built.combines]
    inputs = entry.inputs(np.random.default_rng(5), **entry.small)
    got = evaluate(example, inputs)
    assert_outputs(got, entry.expected(inputs, **entry.small))
    assert_outputs(got, evaluate(built, inputs))


# --- contractions through einsum -------------------------------------------------------

CONTRACTIONS = {
    "a dimension neither input reads": dict(sizes=dict(i=3, k=4, m=5), inputs=[("i, k", None), ("k", None)], out="i"),
    "zero-padded reads": dict(sizes=dict(p=4, r=3, c=2), inputs=[("p+r-1, c", (4, 2)), ("r, c", (3, 2))], out="p"),
    "size-1 dimensions": dict(sizes=dict(b=1, i=3, j=1, k=5), inputs=[("b, i, k", None), ("b, k, j", None)], out="b, i, j"),
    "f16 inputs": dict(sizes=dict(i=7, j=6, k=9), inputs=[("i, k", None), ("k, j", None)], out="i, j", t="f16"),
    "tf32 precision": dict(sizes=dict(i=7, j=6, k=9), inputs=[("i, k", None), ("k, j", None)], out="i, j",
                           precision="tf32"),
}


@pytest.mark.parametrize("case", CONTRACTIONS)
def test_a_contraction_through_einsum_equals_its_value_per_point(case: str) -> None:
    """A sum of products is evaluated with `np.einsum` over each piece's reads; it gives
    what the evaluation of every point gives (up to the order of float64 additions),
    also split into pieces, with zero-padded reads, f16 inputs and TF32 rounding."""
    from mdh_ir.builder import f16

    spec = CONTRACTIONS[case]
    t = f16 if spec.get("t") == "f16" else f32
    boundary = "zero" if case == "zero-padded reads" else "none"
    module = compute_module(
        "contraction", spec["sizes"],
        inputs=[Input(f"I{n}", t, views, boundary, shape) for n, (views, shape) in enumerate(spec["inputs"])],
        outputs=[Output("O", f32, spec["out"])],
        scalar=lambda x, y: x * y,
        combine=[cc if d in [o.strip() for o in spec["out"].split(",")] else pw("add") for d in spec["sizes"]],
        precision=spec.get("precision", "ieee"),
    )  # fmt: skip
    op = find_compute(module)
    inputs = random_inputs(op, np.random.default_rng(3))
    per_point = ReferenceEvaluator(op)
    per_point.contraction = False
    want = per_point(inputs)
    for piece_elements in (None, 4):
        einsum = ReferenceEvaluator(op, piece_elements=piece_elements)
        assert einsum.contraction
        np.testing.assert_allclose(einsum(inputs)[0], want[0], rtol=1e-12, atol=1e-12)


def test_only_a_sum_of_products_is_a_contraction() -> None:
    """A product with a max over a dimension, or a sum of a function other than the
    product, is evaluated at every point."""
    sizes = dict(i=3, k=4)
    for scalar, combine in ((lambda x, y: x * y, pw("max")), (lambda x, y: x + y, pw("add"))):
        module = compute_module("other", sizes, inputs=[Input("A", f32, "i, k"), Input("B", f32, "k")],
                                outputs=[Output("C", f32, "i")], scalar=scalar, combine=[cc, combine])  # fmt: skip
        assert not ReferenceEvaluator(find_compute(module)).contraction
