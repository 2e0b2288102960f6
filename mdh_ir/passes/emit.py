"""`Emitter`: builds index arithmetic, loads/stores, loops and conditionals at an
insertion point, folding arithmetic on constants so the lowered IR stays readable."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

Value = SSAValue | int

index = IndexType()
i1 = IntegerType(1)


def constant_value(v: Value) -> int | None:
    """The integer an index/integer value is known to hold, if it is a constant."""
    if isinstance(v, int):
        return v
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        value = owner.value.value.data
        return int(value != 0) if v.type == i1 else value
    return None


class Emitter:
    def __init__(self, ip: InsertPoint):
        self.ip = ip

    @staticmethod
    def before(op: Operation) -> Emitter:
        return Emitter(InsertPoint.before(op))

    @staticmethod
    def at_end(block: Block) -> Emitter:
        return Emitter(InsertPoint.at_end(block))

    @staticmethod
    def at_start(block: Block) -> Emitter:
        return Emitter(InsertPoint.at_start(block))

    def op(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.ip)
        return op

    def emit(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    def const(self, value: int, t: Attribute = index) -> SSAValue:
        return self.emit(arith.ConstantOp.from_int_and_width(value, t))  # type: ignore[arg-type]

    def scalar(self, value: float | int, t: Attribute) -> SSAValue:
        """A constant of scalar type `t` (float or integer)."""
        if isinstance(t, AnyFloat):
            return self.emit(arith.ConstantOp(FloatAttr(float(value), t)))  # type: ignore[arg-type]
        return self.const(int(value), t)

    def value(self, v: Value) -> SSAValue:
        return self.const(v) if isinstance(v, int) else v

    # --- index arithmetic (operands non-negative where division is involved) ------------

    def add(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(ca + cb)
        if ca == 0:
            return self.value(b)
        if cb == 0:
            return self.value(a)
        return self.emit(arith.AddiOp(self.value(a), self.value(b)))

    def sub(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(ca - cb)
        if cb == 0:
            return self.value(a)
        return self.emit(arith.SubiOp(self.value(a), self.value(b)))

    def mul(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(ca * cb)
        if ca == 0 or cb == 0:
            return self.const(0)
        if ca == 1:
            return self.value(b)
        if cb == 1:
            return self.value(a)
        return self.emit(arith.MuliOp(self.value(a), self.value(b)))

    def div(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(ca // cb)
        if cb == 1:
            return self.value(a)
        return self.emit(arith.DivUIOp(self.value(a), self.value(b)))

    def rem(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(ca % cb)
        if cb == 1:
            return self.const(0)
        return self.emit(arith.RemUIOp(self.value(a), self.value(b)))

    def srem(self, a: Value, b: Value) -> SSAValue:
        """Remainder with the sign of `a` (C semantics), for possibly negative `a`."""
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(int(ca - cb * int(ca / cb)))
        return self.emit(arith.RemSIOp(self.value(a), self.value(b)))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(cond, a, b))

    def ceildiv(self, a: Value, b: Value) -> SSAValue:
        return self.div(self.add(a, self.sub(b, 1)), b)

    def min(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(min(ca, cb))
        return self.emit(arith.MinSIOp(self.value(a), self.value(b)))

    def max(self, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            return self.const(max(ca, cb))
        return self.emit(arith.MaxSIOp(self.value(a), self.value(b)))

    def linear(self, terms: Sequence[tuple[int, Value]], const: int = 0) -> SSAValue:
        """sum(c * v) + const."""
        total: Value = const
        for c, v in terms:
            if c:
                total = self.add(self.mul(c, v), total)
        return self.value(total)

    def delinearize(self, flat: Value, extents: Sequence[int]) -> list[SSAValue]:
        """Coordinates of `flat` in a row-major box of `extents`."""
        coords: list[SSAValue] = []
        for i, e in enumerate(extents):
            stride = 1
            for f in extents[i + 1 :]:
                stride *= f
            coords.append(self.rem(self.div(flat, stride), e) if i else self.div(flat, stride))
        return coords

    # --- predicates ----------------------------------------------------------------

    def cmp(self, pred: str, a: Value, b: Value) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None and cb is not None:
            table = {"slt": ca < cb, "sle": ca <= cb, "sgt": ca > cb, "sge": ca >= cb,
                     "eq": ca == cb, "ne": ca != cb}  # fmt: skip
            return self.const(int(table[pred]), i1)
        return self.emit(arith.CmpiOp(self.value(a), self.value(b), pred))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = constant_value(a), constant_value(b)
        if ca is not None:
            return b if ca else a
        if cb is not None:
            return a if cb else b
        return self.emit(arith.AndIOp(a, b))

    def all_of(self, conds: Sequence[SSAValue]) -> SSAValue:
        result = self.const(1, i1)
        for c in conds:
            result = self.and_(result, c)
        return result

    # --- memory ----------------------------------------------------------------------

    def load(self, mem: SSAValue, indices: Sequence[Value]) -> SSAValue:
        return self.emit(memref.LoadOp.get(mem, [self.value(i) for i in indices]))

    def store(self, value: SSAValue, mem: SSAValue, indices: Sequence[Value]) -> None:
        self.op(memref.StoreOp.get(value, mem, [self.value(i) for i in indices]))

    # --- structured control flow --------------------------------------------------------

    def for_(self, lb: Value, ub: Value, step: Value = 1) -> tuple[SSAValue, Emitter]:
        """An `scf.for`; returns its induction variable and an emitter for its body."""
        block = Block(arg_types=[index])
        block.add_op(scf.YieldOp())
        self.op(scf.ForOp(self.value(lb), self.value(ub), self.value(step), [], Region(block)))
        return block.args[0], Emitter(InsertPoint.before(block.last_op))  # type: ignore[arg-type]

    def if_(self, cond: SSAValue) -> Emitter | None:
        """An `scf.if` without else; returns an emitter for its body (None if never)."""
        c = constant_value(cond)
        if c == 0:
            return None
        if c is not None:
            return self
        block = Block([scf.YieldOp()])
        self.op(scf.IfOp(cond, [], Region(block)))
        return Emitter(InsertPoint.before(block.last_op))  # type: ignore[arg-type]
