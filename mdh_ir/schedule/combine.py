"""What the lowering knows about a combine function: its builtin meaning and identity.

A `pw`/`ps` function is either a builtin name or a `func.func`. A user function whose
body is one builtin operation on its two arguments (`@add` = `arith.addf %a, %b`) is
recognized as that builtin, so it gets the builtin's identity element; accumulators of
other user functions start from their first value instead.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from mdh_ir.dialects.mdh import Combine

RECOGNIZED = {
    arith.AddfOp: "add", arith.AddiOp: "add", arith.MulfOp: "mul", arith.MuliOp: "mul",
    arith.MaximumfOp: "max", arith.MaxnumfOp: "max", arith.MaxSIOp: "max",
    arith.MinimumfOp: "min", arith.MinnumfOp: "min", arith.MinSIOp: "min",
    arith.AndIOp: "and", arith.OrIOp: "or", arith.XOrIOp: "xor",
}  # fmt: skip


def builtin_meaning(f: func.FuncOp) -> str | None:
    """The builtin a single-output combine function computes, if it is one op."""
    ops = list(f.body.block.ops)
    args = f.body.block.args
    if len(args) != 2 or len(ops) != 2 or type(ops[0]) not in RECOGNIZED:
        return None
    op, ret = ops
    if not isinstance(ret, func.ReturnOp) or list(ret.arguments) != [op.results[0]]:
        return None
    if set(op.operands) != set(args) or len(set(op.operands)) != 2:
        return None
    return RECOGNIZED[type(op)]


def meaning(scope: Operation, c: Combine) -> str | None:
    """The builtin `c` computes, if known (its function looked up from `scope`)."""
    if c.builtin:
        return c.func
    f = SymbolTable.lookup_symbol(scope, c.func)  # type: ignore[arg-type]
    return builtin_meaning(f) if isinstance(f, func.FuncOp) else None


def identity(name: str, t: Attribute) -> int | float:
    """The identity element of builtin `name` on type `t`."""
    if isinstance(t, Float32Type | Float64Type):
        return {"add": 0.0, "mul": 1.0, "max": -math.inf, "min": math.inf}[name]
    assert isinstance(t, IntegerType)
    w = t.width.data
    return {
        "add": 0, "mul": 1, "max": -(1 << (w - 1)), "min": (1 << (w - 1)) - 1,
        "and": -1, "or": 0, "xor": 0,
    }[name]  # fmt: skip
