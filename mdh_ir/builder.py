"""Build `mdh.compute` modules from Python.

    from mdh_ir.builder import Input, Output, cc, pw, compute_module, f32

    module = compute_module(
        "matvec",
        sizes={"i": 128, "k": 64},
        inputs=[Input("M", f32, "i, k"), Input("v", f32, "k")],
        outputs=[Output("w", f32, "i")],
        scalar=lambda M, v: M * v,
        combine=[cc, pw("add")],
    )

Views are written as affine expressions over the dimension names ("2*p + r, c": names,
integers, `+ - *` and parentheses, parsed, never evaluated); an input with a list of
views is read at several places (a stencil); one of type `f16` or `bf16` is read as
f32. Scalar and combine functions are Python
functions over traced `Scalar`s: `+ - * /`, comparisons, and the helpers `select`,
`maximum`, `minimum`, `exp`, `log`, `sqrt`, `absf`, `absi`, `floor`, `tanh`, `cast`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    bf16,
    f16,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from mdh_ir.affine import linear_results
from mdh_ir.schedule.config import Config
from mdh_ir.dialects.mdh import Combine, ComputeOp, make_view
from mdh_ir.dialects.mdh_attrs import BUILTIN_COMBINES, read_type

__all__ = [
    "Input", "Output", "Scalar", "cc", "pw", "ps", "compute_module", "select", "const", "maximum",
    "minimum", "exp", "log", "sqrt", "absf", "absi", "floor", "tanh", "cast", "f32", "f64", "i32",
    "i64", "f16", "bf16",
]  # fmt: skip

index = IndexType()


@dataclass(frozen=True)
class Input:
    """An input buffer read through one or more views ("i, k" or ["i", "i+1"])."""

    name: str
    type: Attribute
    views: str | Sequence[str]
    boundary: str = "none"
    shape: Sequence[int] | None = None
    """The buffer's shape; derived from the views (largest index read + 1) if omitted."""

    @property
    def view_list(self) -> list[str]:
        return [self.views] if isinstance(self.views, str) else list(self.views)


@dataclass(frozen=True)
class Output:
    """An output buffer and its view (the kept dimensions, in buffer order)."""

    name: str
    type: Attribute
    view: str


@dataclass(frozen=True)
class CombineSpec:
    kind: str
    func: str | Callable | None = None


cc = CombineSpec("cc")


def pw(f: str | Callable) -> CombineSpec:
    """Point-wise combination with a builtin name ("add", "max", ...) or a function."""
    return CombineSpec("pw", f)


def ps(f: str | Callable) -> CombineSpec:
    """Prefix-sum combination with a builtin name or a function."""
    return CombineSpec("ps", f)


# ---------------------------------------------------------------------------------------
# Tracing scalar functions
# ---------------------------------------------------------------------------------------


def _is_float(t: Attribute) -> bool:
    return isinstance(t, Float32Type | Float64Type)


@dataclass(eq=False)
class Scalar:
    """A traced scalar value inside a function being built."""

    value: SSAValue
    builder: Builder = field(repr=False)

    @property
    def type(self) -> Attribute:
        return self.value.type

    def _emit(self, op) -> Scalar:
        self.builder.insert(op)
        return Scalar(op.results[0], self.builder)

    def _lift(self, other: Scalar | float | int) -> Scalar:
        if isinstance(other, Scalar):
            return other
        if isinstance(other, float) and not _is_float(self.type):
            raise TypeError(f"the float {other} with a value of type {self.type}; use cast()")
        return const(self, other, self.type)

    def __bool__(self) -> bool:
        raise TypeError(
            "a traced value has no truth value (`if`, `and`, `or`, `not`, chained "
            "comparisons); use select(), `&` and `|`"
        )

    def _binary(self, other, float_op, int_op, swap: bool = False) -> Scalar:
        a, b = self, self._lift(other)
        if swap:
            a, b = b, a
        if a.type != b.type:
            raise TypeError(f"operands of different types {a.type} and {b.type}; use cast()")
        op = float_op if _is_float(a.type) else int_op
        if op is None:
            raise TypeError(f"operation not defined for {a.type}")
        return self._emit(op(a.value, b.value))

    def __add__(self, o):
        return self._binary(o, arith.AddfOp, arith.AddiOp)

    def __radd__(self, o):
        return self._binary(o, arith.AddfOp, arith.AddiOp, True)

    def __sub__(self, o):
        return self._binary(o, arith.SubfOp, arith.SubiOp)

    def __rsub__(self, o):
        return self._binary(o, arith.SubfOp, arith.SubiOp, True)

    def __mul__(self, o):
        return self._binary(o, arith.MulfOp, arith.MuliOp)

    def __rmul__(self, o):
        return self._binary(o, arith.MulfOp, arith.MuliOp, True)

    def __truediv__(self, o):
        return self._binary(o, arith.DivfOp, arith.DivSIOp)

    def __rtruediv__(self, o):
        return self._binary(o, arith.DivfOp, arith.DivSIOp, True)

    def __mod__(self, o):
        return self._binary(o, None, arith.RemSIOp)

    def __and__(self, o):
        return self._binary(o, None, arith.AndIOp)

    def __or__(self, o):
        return self._binary(o, None, arith.OrIOp)

    def __xor__(self, o):
        return self._binary(o, None, arith.XOrIOp)

    def __neg__(self):
        if _is_float(self.type):
            return self._emit(arith.NegfOp(self.value))
        return self._lift(0) - self

    def _compare(self, other, fpred: str, ipred: str) -> Scalar:
        b = self._lift(other)
        if _is_float(self.type):
            return self._emit(arith.CmpfOp(self.value, b.value, fpred))
        return self._emit(arith.CmpiOp(self.value, b.value, ipred))

    def __lt__(self, o):
        return self._compare(o, "olt", "slt")

    def __le__(self, o):
        return self._compare(o, "ole", "sle")

    def __gt__(self, o):
        return self._compare(o, "ogt", "sgt")

    def __ge__(self, o):
        return self._compare(o, "oge", "sge")

    def eq(self, o) -> Scalar:
        return self._compare(o, "oeq", "eq")

    def ne(self, o) -> Scalar:
        return self._compare(o, "one", "ne")


def select(cond: Scalar, a: Scalar | float | int, b: Scalar | float | int, type: Attribute | None = None) -> Scalar:
    """`a` where `cond` holds, else `b`; give `type` when both are Python numbers."""
    ref = a if isinstance(a, Scalar) else b
    if not isinstance(ref, Scalar):
        if type is None:
            raise TypeError("select of two numbers needs type=")
        ref = a = const(cond, a, type)
    a, b = ref._lift(a), ref._lift(b)
    return cond._emit(arith.SelectOp(cond.value, a.value, b.value))


def const(like: Scalar, value: float | int, type: Attribute) -> Scalar:
    """A constant of `type` in the function that `like` belongs to."""
    if _is_float(type):
        return like._emit(arith.ConstantOp(FloatAttr(float(value), type)))  # type: ignore
    return like._emit(arith.ConstantOp.from_int_and_width(int(value), type))  # type: ignore


def maximum(a: Scalar, b: Scalar | float | int) -> Scalar:
    return a._binary(b, arith.MaximumfOp, arith.MaxSIOp)


def minimum(a: Scalar, b: Scalar | float | int) -> Scalar:
    return a._binary(b, arith.MinimumfOp, arith.MinSIOp)


def _unary(name: str, op_type, on_floats: bool = True):
    """`name(x)`, the op `op_type` of a float (or, `on_floats=False`, integer) value."""

    def apply(x: Scalar) -> Scalar:
        if _is_float(x.type) != on_floats or isinstance(x.type, IndexType):
            kind = "a float" if on_floats else "an integer"
            raise TypeError(f"{name} takes {kind} value, not {x.type}; use cast()")
        return x._emit(op_type(x.value))

    apply.__name__ = name
    return apply


exp = _unary("exp", math.ExpOp)
log = _unary("log", math.LogOp)
sqrt = _unary("sqrt", math.SqrtOp)
absf = _unary("absf", math.AbsFOp)
absi = _unary("absi", math.AbsIOp, on_floats=False)
floor = _unary("floor", math.FloorOp)
tanh = _unary("tanh", math.TanhOp)


def cast(x: Scalar, to: Attribute) -> Scalar:
    """Convert between f32, f64, i32, i64 and index."""
    src = x.type
    if src == to:
        return x
    if isinstance(src, IndexType):
        return cast(x._emit(arith.IndexCastOp(x.value, to if isinstance(to, IntegerType) else i64)), to)
    if isinstance(to, IndexType):
        return x._emit(arith.IndexCastOp(cast(x, i64).value, index))
    if _is_float(src) and _is_float(to):
        wider = to == f64
        return x._emit((arith.ExtFOp if wider else arith.TruncFOp)(x.value, to))
    if _is_float(to):
        if src == IntegerType(1):
            return x._emit(arith.UIToFPOp(x.value, to))
        return x._emit(arith.SIToFPOp(x.value, to))
    if _is_float(src):
        return x._emit(arith.FPToSIOp(x.value, to))
    assert isinstance(src, IntegerType) and isinstance(to, IntegerType)
    if src.width.data == 1:
        return x._emit(arith.ExtUIOp(x.value, to))
    wider = to.width.data > src.width.data
    return x._emit((arith.ExtSIOp if wider else arith.TruncIOp)(x.value, to))


def trace_function(
    name: str, arg_types: Sequence[Attribute], body: Callable, result_types: Sequence[Attribute]
) -> func.FuncOp:
    """A `func.func @name` whose body is `body` applied to traced arguments."""
    block = Block(arg_types=arg_types)
    builder = Builder(InsertPoint.at_end(block))
    results = body(*[Scalar(a, builder) for a in block.args])
    if not isinstance(results, tuple | list):
        results = (results,)
    values = [r if isinstance(r, Scalar) else Scalar(block.args[0], builder)._lift(r) for r in results]
    got = [v.type for v in values]
    if got != list(result_types):
        raise TypeError(f"@{name} returns {got}, expected {list(result_types)}")
    builder.insert(func.ReturnOp(*[v.value for v in values]))
    return func.FuncOp(name, (arg_types, result_types), Region(block))


# ---------------------------------------------------------------------------------------
# Building the module
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    """An affine expression with Python arithmetic (xDSL 0.74 gets `int - expr` wrong)."""

    expr: AffineExpr

    @staticmethod
    def of(value: _Index | int) -> AffineExpr:
        return value.expr if isinstance(value, _Index) else AffineExpr.constant(int(value))

    def __add__(self, other):
        return _Index(self.expr + _Index.of(other))

    __radd__ = __add__

    def __sub__(self, other):
        return _Index(self.expr + _Index.of(other) * -1)

    def __rsub__(self, other):
        return _Index(_Index.of(other) + self.expr * -1)

    def __mul__(self, other):
        return _Index(self.expr * _Index.of(other))

    __rmul__ = __mul__

    def __neg__(self):
        return _Index(self.expr * -1)


_VIEW_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def _view_result(node: ast.expr, names: dict[str, _Index], text: str) -> _Index | int:
    """The value of one result of view `text`: names, integers, `+ - *`, parentheses."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _view_result(node.operand, names, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _VIEW_OPERATORS:
        lhs, rhs = (_view_result(x, names, text) for x in (node.left, node.right))
        if isinstance(node.op, ast.Mult) and isinstance(lhs, _Index) and isinstance(rhs, _Index):
            raise ValueError(f"view {text!r}: {ast.unparse(node)} multiplies two dimensions")
        return _VIEW_OPERATORS[type(node.op)](lhs, rhs)
    raise ValueError(
        f"view {text!r}: {ast.unparse(node)} is not an affine expression of the dimensions "
        f"({', '.join(names)}) with integers, +, - and *"
    )


def parse_view(text: str, dims: Sequence[str]) -> AffineMap:
    """`"2*p + r, c"` over `dims` as an affine map (parsed, never evaluated as Python)."""
    names = {n: _Index(AffineExpr.dimension(i)) for i, n in enumerate(dims)}
    try:
        tree = ast.parse(text.strip(), mode="eval").body if text.strip() else ast.Tuple([])
    except SyntaxError as e:
        raise ValueError(f"view {text!r}: {e.msg}") from None
    results = tree.elts if isinstance(tree, ast.Tuple) else [tree]
    values = [_view_result(r, names, text) for r in results]
    return AffineMap(len(dims), 0, tuple(_Index.of(v) for v in values))


def _input_shape(inp: Input, maps: list[AffineMap], sizes: list[int]) -> list[int]:
    if inp.shape is not None:
        return list(inp.shape)
    if inp.boundary != "none":
        raise ValueError(f"input {inp.name}: give its shape when it has a boundary mode")
    shape = []
    for axis in range(len(maps[0].results)):
        highs = []
        for m in maps:
            form = linear_results(m)[axis]  # type: ignore[index]
            highs.append(form.range_over([0] * len(sizes), [n - 1 for n in sizes])[1])
        shape.append(max(highs) + 1)
    return shape


def _combine(
    spec: CombineSpec, d: int, name: str, out_types: list[Attribute], funcs: list[func.FuncOp]
) -> Combine:
    if spec.kind == "cc":
        return Combine("cc")
    if isinstance(spec.func, str):
        if spec.func not in BUILTIN_COMBINES:
            raise ValueError(f"unknown builtin combine {spec.func!r}")
        return Combine(spec.kind, spec.func, True)
    fname = f"{name}_combine{d}"
    funcs.append(trace_function(fname, out_types * 2, spec.func, out_types))  # type: ignore
    return Combine(spec.kind, fname)


def compute_module(
    name: str,
    sizes: dict[str, int],
    inputs: Sequence[Input],
    outputs: Sequence[Output],
    scalar: Callable,
    combine: Sequence[CombineSpec],
    indices: bool = False,
    config: Config | None = None,
    precision: str = "ieee",
) -> ModuleOp:
    """A module with the scalar/combine functions and `func.func @name` holding the op.

    With `indices=True` the scalar function also receives the point's indices. Inputs of
    type f16 or bf16 reach the scalar function as f32 (`mdh_attrs.read_type`);
    `precision="tf32"` reads f32 inputs rounded to TF32 (`mdh.ComputeOp`).
    """
    dims, extents = list(sizes), list(sizes.values())
    in_maps = [[parse_view(v, dims) for v in inp.view_list] for inp in inputs]
    out_maps = [parse_view(o.view, dims) for o in outputs]
    out_types = [o.type for o in outputs]
    scalar_types = [read_type(inp.type) for inp, maps in zip(inputs, in_maps) for _ in maps]
    funcs = [
        trace_function(
            f"{name}_f", scalar_types + [index] * (len(dims) if indices else 0), scalar, out_types
        )
    ]
    combines = [_combine(c, d, name, out_types, funcs) for d, c in enumerate(combine)]
    in_types = [
        MemRefType(inp.type, _input_shape(inp, maps, extents)) for inp, maps in zip(inputs, in_maps)
    ]
    res_types = [
        MemRefType(o.type, [extents[e.position] for e in m.results])  # type: ignore[attr-defined]
        for o, m in zip(outputs, out_maps)
    ]
    props: dict[str, Attribute] = {
        "inp_view": make_view(in_maps),
        "md_hom": DictionaryAttr(
            {
                "scalar_func": SymbolRefAttr(f"{name}_f"),
                "combine_ops": ArrayAttr([c.to_attr() for c in combines]),
            }
        ),
        "out_view": make_view([[m] for m in out_maps]),
        "inp_types": ArrayAttr([inp.type for inp in inputs]),
        "mda_size": ArrayAttr([IntegerAttr(n, 64) for n in extents]),
        "out_types": ArrayAttr(out_types),
    }
    if any(inp.boundary != "none" for inp in inputs):
        props["boundary"] = ArrayAttr([StringAttr(inp.boundary) for inp in inputs])
    if config is not None:
        props["config"] = config.to_attr()
    if precision != "ieee":
        props["precision"] = StringAttr(precision)
    block = Block(arg_types=in_types)
    op = ComputeOp(name, block.args, props, res_types)
    block.add_ops([op, func.ReturnOp(*op.results)])
    host = func.FuncOp(name, (in_types, res_types), Region(block))
    module = ModuleOp([*funcs, host])
    module.verify()
    return module
