"""The ops a scalar or combine function of `mdh.compute` may hold.

This table is the one list: the verifier (`mdh_verify`) refuses any other op, the
reference evaluator (`semantics.scalar_eval`), `mdh-vectorize` and the OpenCL printer
give each one a rule, and `tests/test_scalar_ops.py` lowers every entry, at every
element type xDSL accepts for it, at every vector width, so an op is tested as soon as
it is accepted. Values are f32, f64, i32, i64, index (index arguments) or i1 (the
result of a comparison); an i1 may only be selected on, combined by `andi`/`ori`/
`xori` or converted (`I1_OPERANDS`), which keeps its meaning the same as a 0/-1 lane
mask of vector code.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute, Operation

FLOAT_UNARY: tuple[type[Operation], ...] = (
    arith.NegfOp, math.ExpOp, math.Exp2Op, math.ExpM1Op, math.LogOp, math.Log2Op,
    math.Log10Op, math.Log1pOp, math.SqrtOp, math.RsqrtOp, math.AbsFOp, math.SinOp,
    math.CosOp, math.TanOp, math.TanhOp, math.AtanOp, math.FloorOp, math.CeilOp,
    math.RoundOp, math.TruncOp, math.ErfOp,
)  # fmt: skip
FLOAT_BINARY: tuple[type[Operation], ...] = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp,
    arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp, math.PowFOp, math.Atan2Op,
    math.CopySignOp,
)  # fmt: skip
FLOAT_TERNARY: tuple[type[Operation], ...] = (math.FmaOp,)
INT_UNARY: tuple[type[Operation], ...] = (math.AbsIOp, math.CtPopOp)
LOGIC: tuple[type[Operation], ...] = (arith.AndIOp, arith.OrIOp, arith.XOrIOp)
INT_BINARY: tuple[type[Operation], ...] = LOGIC + (
    arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp,
    arith.RemUIOp, arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp, arith.MaxSIOp,
    arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp,
)  # fmt: skip
COMPARES: tuple[type[Operation], ...] = (arith.CmpfOp, arith.CmpiOp)
CASTS: tuple[type[Operation], ...] = (
    arith.SIToFPOp, arith.UIToFPOp, arith.FPToSIOp, arith.ExtFOp, arith.TruncFOp,
    arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp,
)  # fmt: skip
STRUCTURE: tuple[type[Operation], ...] = (
    arith.ConstantOp, arith.SelectOp, func.CallOp, func.ReturnOp,
)  # fmt: skip

SCALAR_OPS: frozenset[type[Operation]] = frozenset(
    FLOAT_UNARY + FLOAT_BINARY + FLOAT_TERNARY + INT_UNARY + INT_BINARY + COMPARES
    + CASTS + STRUCTURE
)  # fmt: skip
"""Every op a scalar or combine function may hold."""

I1_OPERANDS: frozenset[type[Operation]] = frozenset(
    LOGIC + (arith.SelectOp, arith.ExtSIOp, arith.ExtUIOp, arith.SIToFPOp, arith.UIToFPOp)
)
"""The ops that may take an i1 operand."""

I1_RESULTS: frozenset[type[Operation]] = frozenset(
    COMPARES + LOGIC + (arith.SelectOp, arith.TruncIOp, arith.ConstantOp)
)
"""The ops that may give an i1."""

I1 = IntegerType(1)


def is_value_type(t: Attribute) -> bool:
    """f32, f64, i1, i32, i64 or index."""
    if isinstance(t, Float32Type | Float64Type | IndexType):
        return True
    return isinstance(t, IntegerType) and t.width.data in (1, 32, 64)


def op_problem(op: Operation) -> str | None:
    """Why `op` may not be in a scalar function, or None."""
    if type(op) not in SCALAR_OPS:
        return f"{op.name} is not a scalar op (arith and math ops, func.call; no regions)"
    for v in (*op.operands, *op.results):
        if not is_value_type(v.type):
            return f"{op.name} on {v.type} (values are f32, f64, i1, i32, i64 or index)"
    if type(op) not in I1_OPERANDS and any(v.type == I1 for v in op.operands):
        return f"{op.name} takes an i1 (an i1 is only selected on, combined by andi/ori/xori or converted)"
    if type(op) not in I1_RESULTS and any(v.type == I1 for v in op.results):
        return f"{op.name} gives an i1 (only compares, andi/ori/xori, select and trunci do)"
    return None


def function_problem(f: func.FuncOp) -> str | None:
    """Why function `f` cannot be a scalar or combine function, or None (the functions
    it calls are checked by the caller)."""
    if not f.body.blocks:
        return "it is declared without a body"
    if len(f.body.blocks) != 1:
        return "its body must be one block"
    for op in f.body.block.ops:
        if (problem := op_problem(op)) is not None:
            return problem
    return None
