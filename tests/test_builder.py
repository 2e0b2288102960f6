"""The Python builder (`mdh_ir.builder`).

Every module it builds prints as text that parses and verifies again, its traced
functions hold the expected arith/math ops, and the reference evaluator gives numpy's
results on it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, math
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp

from mdh_ir.builder import (
    Input,
    Output,
    absf,
    cast,
    cc,
    compute_module,
    exp,
    f32,
    f64,
    i32,
    i64,
    log,
    maximum,
    minimum,
    parse_view,
    ps,
    pw,
    select,
    sqrt,
    tanh,
)
from mdh_ir.dialects.mdh import MDH, Combine, ComputeOp
from mdh_ir.semantics.reference import evaluate, find_compute
from mdh_ir.semantics.scalar_eval import numpy_dtype
from mdh_ir.tools.diagnostics import load_module

index = IndexType()
rng = np.random.default_rng(0)


def assert_reparses(module: ModuleOp) -> ModuleOp:
    """`module` printed, parsed and verified again (what mdh-opt would read)."""
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, math.Math, MDH):
        ctx.load_dialect(dialect)
    parsed = load_module(ctx, str(module), "built.mlir")
    assert str(parsed) == str(module)
    return parsed


def compute(module: ModuleOp) -> ComputeOp:
    """The `mdh.compute` op of `module`, after a round trip through text."""
    return find_compute(assert_reparses(module))


def function(module: ModuleOp, name: str) -> func.FuncOp:
    return next(f for f in module.walk() if isinstance(f, func.FuncOp) and f.sym_name.data == name)


def body_ops(module: ModuleOp, name: str) -> list[str]:
    """The op names in the body of `func.func @name`, without the return."""
    return [op.name for op in function(module, name).body.block.ops][:-1]


def assert_evaluates(module: ModuleOp, inputs: list[np.ndarray], *want: np.ndarray) -> None:
    got = evaluate(module, inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if w.dtype.kind == "f":
            # `want` computed in float32 rounds each step: near a cancellation its
            # relative error exceeds 1e-6, never its error relative to the largest value
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6 * float(np.abs(w).max(initial=0)))
        else:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


# --- views ---------------------------------------------------------------------------


def test_stencil_reads_one_buffer_through_several_views():
    module = compute_module(
        "jacobi",
        sizes={"i": 6},
        inputs=[Input("x", f32, ["i", "i + 1", "i + 2"])],
        outputs=[Output("y", f32, "i")],
        scalar=lambda left, mid, right: (left + mid + right) / 3,
        combine=[cc],
    )
    op = compute(module)
    assert [str(m) for m in op.input_maps[0]] == [
        "(d0) -> (d0)",
        "(d0) -> ((d0 + 1))",
        "(d0) -> ((d0 + 2))",
    ]
    assert op.inputs[0].type == MemRefType(f32, [8])
    x = rng.uniform(-1, 1, 8).astype(np.float32)
    assert_evaluates(module, [x], (x[:-2] + x[1:-1] + x[2:]) / 3)


def test_stencil_over_two_dimensions():
    module = compute_module(
        "cross",
        sizes={"i": 3, "j": 4},
        inputs=[Input("x", f64, ["i+1, j", "i, j+1", "i+1, j+1", "i+2, j+1", "i+1, j+2"])],
        outputs=[Output("y", f64, "i, j")],
        scalar=lambda w, n, c, s, e: w + n + s + e - 4 * c,
        combine=[cc, cc],
    )
    assert compute(module).inputs[0].type == MemRefType(f64, [5, 6])
    x = rng.uniform(-1, 1, (5, 6))
    want = x[1:-1, :-2] + x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1]
    assert_evaluates(module, [x], want)


NUMPY_PAD = {"clamp": "edge", "zero": "constant", "wrap": "wrap", "mirror": "reflect"}


@pytest.mark.parametrize("mode", NUMPY_PAD)
def test_boundary_modes(mode):
    module = compute_module(
        "blur",
        sizes={"i": 5},
        inputs=[Input("x", f32, ["i - 2", "i", "i + 2"], boundary=mode, shape=[5])],
        outputs=[Output("y", f32, "i")],
        scalar=lambda left, mid, right: left + mid + right,
        combine=[cc],
    )
    op = compute(module)
    assert op.boundaries == [mode]
    assert op.inputs[0].type == MemRefType(f32, [5])
    x = rng.uniform(-1, 1, 5).astype(np.float32)
    p = np.pad(x, 2, mode=NUMPY_PAD[mode])
    assert_evaluates(module, [x], p[:-4] + p[2:-2] + p[4:])


def test_boundary_mode_needs_a_shape():
    with pytest.raises(ValueError, match="input x: give its shape when it has a boundary mode"):
        compute_module(
            "blur",
            sizes={"i": 5},
            inputs=[Input("x", f32, ["i - 1", "i + 1"], boundary="clamp")],
            outputs=[Output("y", f32, "i")],
            scalar=lambda left, right: left + right,
            combine=[cc],
        )


def test_strided_view():
    module = compute_module(
        "pool",
        sizes={"p": 4, "r": 3},
        inputs=[Input("x", f32, "2*p + r")],
        outputs=[Output("y", f32, "p")],
        scalar=lambda x: x,
        combine=[cc, pw("max")],
    )
    op = compute(module)
    assert str(op.input_maps[0][0]) == "(d0, d1) -> (((d0 * 2) + d1))"
    assert op.inputs[0].type == MemRefType(f32, [9])
    x = rng.uniform(-1, 1, 9).astype(np.float32)
    want = np.max([x[0:7:2], x[1:8:2], x[2:9:2]], axis=0)
    assert_evaluates(module, [x], want)


def test_several_outputs_of_different_types():
    module = compute_module(
        "sum_count",
        sizes={"i": 4, "k": 6},
        inputs=[Input("x", f64, "i, k")],
        outputs=[Output("sum", f64, "i"), Output("positive", i32, "i")],
        scalar=lambda x: (x, select(x > 0, 1, 0, i32)),
        combine=[cc, pw(lambda s1, n1, s2, n2: (s1 + s2, n1 + n2))],
    )
    op = compute(module)
    assert [r.type for r in op.outputs] == [MemRefType(f64, [4]), MemRefType(i32, [4])]
    assert body_ops(module, "sum_count_combine1") == ["arith.addf", "arith.addi"]
    x = rng.uniform(-1, 1, (4, 6))
    assert_evaluates(module, [x], x.sum(axis=1), (x > 0).sum(axis=1).astype(np.int32))


# --- traced functions ----------------------------------------------------------------

FLOAT_EXPRESSIONS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "radd": (lambda a, b: 2.0 + a, lambda a, b: 2.0 + a),
    "rsub": (lambda a, b: 1.0 - a, lambda a, b: 1.0 - a),
    "rmul": (lambda a, b: 3.0 * a, lambda a, b: 3.0 * a),
    "rdiv": (lambda a, b: 1.0 / b, lambda a, b: 1.0 / b),
    "neg": (lambda a, b: -a, lambda a, b: -a),
    "lt": (lambda a, b: select(a < b, a, 0.0), lambda a, b: np.where(a < b, a, 0.0)),
    "le": (lambda a, b: select(a <= 0.5, 1.0, b), lambda a, b: np.where(a <= 0.5, 1.0, b)),
    "gt": (lambda a, b: select(a > b, 1.0, 2.0, f64), lambda a, b: np.where(a > b, 1.0, 2.0)),
    "ge": (lambda a, b: select(a >= b, a, b), lambda a, b: np.where(a >= b, a, b)),
    "eq": (lambda a, b: select(a.eq(a), a, b), lambda a, b: a),
    "ne": (lambda a, b: select(a.ne(b), b, a), lambda a, b: b),
    "maximum": (lambda a, b: maximum(a, b), np.maximum),
    "minimum": (lambda a, b: minimum(a, 0.25), lambda a, b: np.minimum(a, 0.25)),
    "exp": (lambda a, b: exp(a), lambda a, b: np.exp(a)),
    "log": (lambda a, b: log(absf(b) + 1.0), lambda a, b: np.log(np.abs(b) + 1)),
    "sqrt": (lambda a, b: sqrt(absf(a)), lambda a, b: np.sqrt(np.abs(a))),
    "absf": (lambda a, b: absf(a), lambda a, b: np.abs(a)),
    "tanh": (lambda a, b: tanh(b), lambda a, b: np.tanh(b)),
}

INT_EXPRESSIONS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: 5 - a, lambda a, b: 5 - a),
    "mul": (lambda a, b: 3 * a * b, lambda a, b: 3 * a * b),
    "div": (lambda a, b: a / b, lambda a, b: np.fix(a / b).astype(a.dtype)),
    "rdiv": (lambda a, b: 100 / b, lambda a, b: np.fix(100 / b).astype(a.dtype)),
    "rem": (lambda a, b: a % b, np.fmod),
    "and": (lambda a, b: a & b, np.bitwise_and),
    "or": (lambda a, b: a | 6, lambda a, b: a | 6),
    "neg": (lambda a, b: -a, lambda a, b: -a),
    "lt": (lambda a, b: select(a < b, a, b), np.minimum),
    "le": (lambda a, b: select(a <= 0, 0, a), lambda a, b: np.maximum(a, 0)),
    "gt": (lambda a, b: select(a > b, 1, 0, i32), lambda a, b: (a > b).astype(a.dtype)),
    "ge": (lambda a, b: select(a >= 3, a, 3), lambda a, b: np.maximum(a, 3)),
    "eq": (
        lambda a, b: select(a.eq(b), 1, 2, i32),
        lambda a, b: np.where(a == b, 1, 2).astype(a.dtype),
    ),
    "ne": (lambda a, b: select(a.ne(0), a, 7), lambda a, b: np.where(a != 0, a, 7).astype(a.dtype)),
    "maximum": (lambda a, b: maximum(a, b), np.maximum),
    "minimum": (lambda a, b: minimum(a, -2), lambda a, b: np.minimum(a, -2)),
}


def elementwise(name: str, type, expressions: dict) -> ModuleOp:
    """One output per expression of the two inputs `a` and `b`."""
    return compute_module(
        name,
        sizes={"i": 64},
        inputs=[Input("a", type, "i"), Input("b", type, "i")],
        outputs=[Output(k, type, "i") for k in expressions],
        scalar=lambda a, b: tuple(traced(a, b) for traced, _ in expressions.values()),
        combine=[cc],
    )


def test_float_operators_and_helpers():
    module = elementwise("floats", f64, FLOAT_EXPRESSIONS)
    assert_reparses(module)
    ops = set(body_ops(module, "floats_f"))
    assert ops == {
        "arith.constant", "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
        "arith.cmpf", "arith.select", "arith.maximumf", "arith.minimumf",
        "math.exp", "math.log", "math.sqrt", "math.absf", "math.tanh",
    }  # fmt: skip
    a, b = rng.uniform(-1, 1, (2, 64))
    assert_evaluates(module, [a, b], *(f(a, b) for _, f in FLOAT_EXPRESSIONS.values()))


def test_integer_operators_and_helpers():
    module = elementwise("ints", i32, INT_EXPRESSIONS)
    assert_reparses(module)
    ops = set(body_ops(module, "ints_f"))
    assert ops == {
        "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.divsi",
        "arith.remsi", "arith.andi", "arith.ori", "arith.cmpi", "arith.select",
        "arith.maxsi", "arith.minsi",
    }  # fmt: skip
    a = rng.integers(-20, 20, 64).astype(np.int32)
    b = rng.choice([-7, -3, -1, 1, 2, 5], 64).astype(np.int32)
    assert_evaluates(module, [a, b], *(f(a, b) for _, f in INT_EXPRESSIONS.values()))


@pytest.mark.parametrize(
    "src, dst, ops",
    [
        (f32, f64, ["arith.extf"]),
        (f64, f32, ["arith.truncf"]),
        (i32, i64, ["arith.extsi"]),
        (i64, i32, ["arith.trunci"]),
        (f32, i32, ["arith.fptosi"]),
        (f64, i64, ["arith.fptosi"]),
        (i32, f64, ["arith.sitofp"]),
        (i64, f32, ["arith.sitofp"]),
        (i32, index, ["arith.extsi", "arith.index_cast"]),
        (f32, index, ["arith.fptosi", "arith.index_cast"]),
        (f64, f64, []),
    ],
)
def test_cast(src, dst, ops):
    back = {index: i64}.get(dst, dst)
    module = compute_module(
        "cast",
        sizes={"i": 6},
        inputs=[Input("x", src, "i")],
        outputs=[Output("y", back, "i")],
        scalar=lambda x: cast(cast(x, dst), back),
        combine=[cc],
    )
    assert_reparses(module)
    assert body_ops(module, "cast_f") == ops + (["arith.index_cast"] if dst == index else [])
    x = np.array([-2.75, -1, 0, 1.5, 3.25, 7]).astype(numpy_dtype(src))
    assert_evaluates(module, [x], x.astype(numpy_dtype(back)))


def test_cast_from_index():
    module = compute_module(
        "iota",
        sizes={"i": 5},
        inputs=[],
        outputs=[Output("f", f32, "i"), Output("n", i32, "i")],
        scalar=lambda i: (cast(i, f32) * 0.5, cast(i, i32)),
        combine=[cc],
        indices=True,
    )
    assert_reparses(module)
    assert body_ops(module, "iota_f") == [
        "arith.index_cast", "arith.sitofp", "arith.constant", "arith.mulf", "arith.index_cast",
    ]  # fmt: skip
    assert_evaluates(module, [], np.arange(5) * 0.5, np.arange(5, dtype=np.int32))


def test_index_arguments():
    module = compute_module(
        "ramp",
        sizes={"i": 3, "j": 4},
        inputs=[Input("x", f32, "i, j")],
        outputs=[Output("y", f32, "i, j")],
        scalar=lambda x, i, j: x + cast(i * 10 + j, f32),
        combine=[cc, cc],
        indices=True,
    )
    assert_reparses(module)
    assert list(function(module, "ramp_f").function_type.inputs) == [f32, index, index]
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    assert_evaluates(module, [x], x + np.add.outer(np.arange(3) * 10, np.arange(4)))


def test_user_combine_functions():
    module = compute_module(
        "scan_max",
        sizes={"i": 3, "j": 5, "k": 4},
        inputs=[Input("x", f64, "i, j, k")],
        outputs=[Output("y", f64, "i, j")],
        scalar=lambda x: x,
        combine=[cc, ps(lambda a, b: a + b), pw(lambda a, b: maximum(a, b))],
    )
    assert compute(module).combines == [
        Combine("cc"),
        Combine("ps", "scan_max_combine1"),
        Combine("pw", "scan_max_combine2"),
    ]
    assert body_ops(module, "scan_max_combine1") == ["arith.addf"]
    assert body_ops(module, "scan_max_combine2") == ["arith.maximumf"]
    x = rng.uniform(-1, 1, (3, 5, 4))
    assert_evaluates(module, [x], np.cumsum(x.max(axis=2), axis=1))


# --- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scalar, message",
    [
        (lambda x, n: x + n, "operands of different types f32 and i32; use cast()"),
        (lambda x, n: maximum(n, x), "operands of different types i32 and f32; use cast()"),
        (lambda x, n: x % 2.0, "operation not defined for f32"),
    ],
)
def test_operator_type_errors(scalar, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        compute_module(
            "bad",
            sizes={"i": 4},
            inputs=[Input("x", f32, "i"), Input("n", i32, "i")],
            outputs=[Output("y", f32, "i")],
            scalar=scalar,
            combine=[cc],
        )


def test_unknown_builtin_combine():
    with pytest.raises(ValueError, match="unknown builtin combine 'sum'"):
        compute_module(
            "bad",
            sizes={"k": 4},
            inputs=[Input("x", f32, "k")],
            outputs=[Output("y", f32, "")],
            scalar=lambda x: x,
            combine=[pw("sum")],
        )


def test_views_subtract_dimensions_from_numbers() -> None:
    """`n - 1 - i` reverses a dimension (xDSL's own `int - expr` gets the sign wrong)."""
    amap = parse_view("4 - i, 2*j - i + 1", ["i", "j"])
    assert [amap.results[r].eval([1, 3], []) for r in range(2)] == [3, 6]


EXPLOIT = (
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__=='_wrap_close'][0]"
    ".__init__.__globals__['system']('touch {path}')*0 + k"
)


def test_a_view_is_parsed_not_run(tmp_path) -> None:
    """The index expression that ran a shell command through `eval` is refused, unrun."""
    marker = tmp_path / "ran"
    text = EXPLOIT.format(path=marker)
    with pytest.raises(ValueError, match=r"is not an affine expression of the dimensions \(i, k\)"):
        compute_module(
            "m", {"i": 4, "k": 4}, [Input("x", f32, ["i", text])], [Output("y", f32, "i")],
            scalar=lambda a, b: a + b, combine=[cc, pw("add")],
        )  # fmt: skip
    assert not marker.exists()


@pytest.mark.parametrize(
    "text, values",
    [("-3 + i", [-2]), ("2*i + k - 1", [4]), ("(i + k) * -2, +k", [-8, 3]), ("", []),
     ("i,", [1]), ("(k - (1 - i)) * 3", [9])],
)  # fmt: skip
def test_views_are_affine_expressions(text, values) -> None:
    amap = parse_view(text, ["i", "k"])
    assert [r.eval([1, 3], []) for r in amap.results] == values


@pytest.mark.parametrize(
    "text, part",
    [("i.real", "i.real"), ("abs(i)", "abs(i)"), ("x[i]", "x[i]"), ("i + 1.5", "1.5"),
     ("i / 2", "i / 2"), ("i ** 2", "i ** 2"), ("i // 2", "i // 2"), ("j + 1", "j"),
     ("True + i", "True"), ("'i'", "'i'"), ("lambda: 0", "lambda: 0")],
)  # fmt: skip
def test_views_refuse_anything_else_naming_it(text, part) -> None:
    with pytest.raises(ValueError, match=re.escape(f"view {text!r}: {part} is not an affine")):
        parse_view(text, ["i", "k"])


@pytest.mark.parametrize(
    "text, message", [("i * k", "i \\* k multiplies two dimensions"), ("i +", "invalid syntax")]
)
def test_views_refuse_products_and_syntax_errors(text, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse_view(text, ["i", "k"])
