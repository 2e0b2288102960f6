"""Evaluate scalar `func.func` bodies (arith/math ops) element-wise on numpy arrays.

Scalar and combine functions of `mdh.compute` are single-block functions of arith and
math ops (`mdh_ir.dialects.scalar_ops`). `FuncEvaluator(module).call(name, args)` runs
one on numpy arrays that broadcast against each other, so one call evaluates the
function at every point of an iteration space at once. With `promote=True`, f32 values
are computed in f64 (the float64 oracle of the tests); integers always keep their
declared width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue


class EvalError(Exception):
    """An op or type the evaluator does not know."""


BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
"""numpy's dtype for bf16 (from `ml_dtypes`; its `kind` is "V": see `dtype_kind`)."""


def dtype_kind(dtype: np.dtype) -> str:
    """`dtype.kind`, "f" for bf16 too."""
    return "f" if dtype == BFLOAT16 else dtype.kind


def numpy_dtype(t: Attribute, promote: bool = False) -> np.dtype:
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, BFloat16Type):
        return BFLOAT16
    if isinstance(t, Float32Type):
        return np.dtype(np.float64 if promote else np.float32)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            return np.dtype(f"int{width}")
    raise EvalError(f"unsupported type {t}")


def _div_trunc(a, b):
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix


def _as_unsigned(a: np.ndarray) -> np.ndarray:
    return a.astype(a.dtype.str.replace("i", "u"))


def _unsigned(f):
    def g(a, b):
        return f(_as_unsigned(a), _as_unsigned(b)).astype(a.dtype)

    return g


_BINARY: dict[type[Operation], Callable] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.DivSIOp: _div_trunc,
    arith.DivUIOp: _unsigned(np.floor_divide),
    arith.RemSIOp: np.fmod,
    arith.RemUIOp: _unsigned(np.remainder),
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.ShLIOp: np.left_shift,
    arith.ShRSIOp: np.right_shift,
    arith.ShRUIOp: _unsigned(np.right_shift),
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.MaxUIOp: _unsigned(np.maximum),
    arith.MinUIOp: _unsigned(np.minimum),
    math.PowFOp: np.power,
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
}

_UNARY: dict[type[Operation], Callable] = {
    arith.NegfOp: np.negative,
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: lambda x: 1 / np.sqrt(x),
    math.AbsFOp: np.abs,
    math.AbsIOp: np.abs,
    math.CtPopOp: lambda x: np.bitwise_count(_as_unsigned(x)),
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.TanhOp: np.tanh,
    math.AtanOp: np.arctan,
    math.FloorOp: np.floor,
    math.CeilOp: np.ceil,
    math.RoundOp: lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    math.TruncOp: np.trunc,
    math.ErfOp: np.vectorize(__import__("math").erf, otypes=[np.float64]),
}

_CASTS = (
    arith.SIToFPOp,
    arith.UIToFPOp,
    arith.FPToSIOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.TruncIOp,
    arith.IndexCastOp,
)
_SIGNED_FROM_BOOL = (arith.SIToFPOp, arith.ExtSIOp)
"""An i1 true is -1 to a signed extension, 1 to an unsigned one."""

def _unordered(f):
    return lambda a, b: ~f(a, b)


def _ordered_ne(a, b):
    return (a < b) | (a > b)


_CMPF: dict[str, Callable] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
    "ole": np.less_equal, "one": _ordered_ne,
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "ueq": _unordered(_ordered_ne), "ugt": _unordered(np.less_equal),
    "uge": _unordered(np.less), "ult": _unordered(np.greater_equal),
    "ule": _unordered(np.greater), "une": np.not_equal,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}  # fmt: skip
"""The ordered predicates are false where an operand is NaN, the unordered ones true."""

_CMPI: dict[str, Callable] = {
    "eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
    "sgt": np.greater, "sge": np.greater_equal,
}  # fmt: skip


class FuncEvaluator:
    """Calls the `func.func` ops of a module on numpy arrays."""

    def __init__(self, module: ModuleOp, promote: bool = False):
        self.promote = promote
        self.funcs = {f.sym_name.data: f for f in module.walk() if isinstance(f, func.FuncOp)}

    def dtype(self, t: Attribute) -> np.dtype:
        return numpy_dtype(t, self.promote)

    def call(self, name: str, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        f = self.funcs.get(name)
        if f is None:
            raise EvalError(f"no function @{name}")
        block = f.body.block
        env: dict[SSAValue, np.ndarray] = {
            a: np.asarray(v, dtype=self.dtype(a.type)) for a, v in zip(block.args, args)
        }
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                return [env[v] for v in op.arguments]
            results = self.eval_op(op, [env[v] for v in op.operands])
            for r, v in zip(op.results, results):
                env[r] = np.asarray(v).astype(self.dtype(r.type), copy=False)
        raise EvalError(f"@{name} has no func.return")

    def eval_op(self, op: Operation, args: list[np.ndarray]) -> list[np.ndarray]:
        kind = type(op)
        if kind in _BINARY:
            with np.errstate(all="ignore"):
                return [_BINARY[kind](args[0], args[1])]
        if kind in _UNARY:
            with np.errstate(all="ignore"):
                return [_UNARY[kind](args[0])]
        if isinstance(op, _CASTS):
            if isinstance(op, _SIGNED_FROM_BOOL) and args[0].dtype == np.bool_:
                return [-args[0].astype(np.int64)]
            if isinstance(op, arith.TruncIOp) and op.results[0].type == IntegerType(1):
                return [(args[0] & 1).astype(np.bool_)]
            if isinstance(op, arith.UIToFPOp | arith.ExtUIOp) and args[0].dtype != np.bool_:
                return [_as_unsigned(args[0])]
            return [args[0]]
        if isinstance(op, arith.ConstantOp):
            value = op.value
            if not isinstance(value, IntegerAttr | FloatAttr):
                raise EvalError(f"unsupported constant {value}")
            return [np.asarray(value.value.data)]
        if isinstance(op, arith.SelectOp):
            return [np.where(args[0], args[1], args[2])]
        if isinstance(op, arith.CmpfOp):
            return [_CMPF[_predicate_name(op, arith.CMPF_COMPARISON_OPERATIONS)](*args)]
        if isinstance(op, arith.CmpiOp):
            name = _predicate_name(op, arith.CMPI_COMPARISON_OPERATIONS)
            if name.startswith("u"):
                return [_unsigned(_CMPI["s" + name[1:]])(*args)]
            return [_CMPI[name](*args)]
        if isinstance(op, math.FmaOp):
            return [args[0] * args[1] + args[2]]
        if isinstance(op, func.CallOp):
            return self.call(op.callee.root_reference.data, args)
        raise EvalError(f"operation {op.name} is not supported in scalar functions")


def _predicate_name(op: arith.CmpfOp | arith.CmpiOp, names: Sequence[str]) -> str:
    return names[op.predicate.value.data]
