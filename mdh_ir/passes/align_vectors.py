"""`lowlevel-align-vectors`: mark the vector loads and stores aligned to their size.

OpenCL's `vloadN`/`vstoreN` only assume the alignment of one element, so compilers
split them where the target has no unaligned vector access: NVIDIA's OpenCL turns a
`vload4` from local or global memory into four scalar loads. An access through a
`floatN` pointer assumes N elements' alignment and becomes one wide load (`ld.v4`).

The pass runs on expanded kernels (after `lowlevel-expand`). For each `vector.load` and
`vector.store` of N lanes it computes a number that divides the element offset in every
run (`divisor`: constants, sums, products, remainders, minima and selections of them,
loop counters from a lower bound in steps); where N divides it and the base is aligned,
the op gets `alignment = N * element bytes`, which the printer emits as a `floatN`
pointer access. Bases: a kernel's buffer arguments are aligned (OpenCL's minimum base
address alignment is 128 bytes, and the runtime passes whole buffers); a local or
private array (`memref.alloca`) gets the largest alignment its marked accesses need, a
local array at least `LOCAL_ALIGNMENT` (a `lowlevel.slot` of an array is aligned as the
array where the slot's size is a multiple), so that the compiler may merge neighbouring
scalar reads (NVIDIA's turns the four scalar reads of a GEMM's A column into one
`ld.shared.v4`). Accesses it cannot prove aligned keep `vloadN`/`vstoreN`.

    mdh-opt -p lowlevel-align-vectors f.mlir
"""

from dataclasses import dataclass
from functools import reduce
from math import gcd, prod

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import ALIGNMENT_ATTR, KernelOp, SlotOp, TileForOp, memref_bytes, memory_space
from mdh_ir.passes.emit import constant_value
from mdh_ir.passes.kernel_stage import rewritten_by

BUFFER_ALIGNMENT = 128
"""Bytes to which a kernel's buffer arguments are aligned (CL_DEVICE_MEM_BASE_ADDR_ALIGN
is at least 1024 bits on a full-profile device)."""

LOCAL_ALIGNMENT = 16
"""Bytes to which every local array is aligned."""

_GCD_OPS = (
    arith.AddiOp, arith.SubiOp, arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp,
    arith.RemUIOp, arith.RemSIOp,
)  # fmt: skip
"""Ops whose result any common divisor of the operands divides."""


def divisor(v: SSAValue) -> int:
    """A number dividing every value `v` takes; 0 when `v` is always 0."""
    known = constant_value(v)
    if known is not None:
        return abs(known)
    if isinstance(v, BlockArgument):
        loop = v.block.parent_op()
        if isinstance(loop, scf.ForOp) and v.index == 0:
            return gcd(divisor(loop.lb), divisor(loop.step))
        if isinstance(loop, TileForOp) and v.index == 1:  # a tile's start
            return gcd(divisor(loop.start), loop.tile.value.data)
        return 1
    op = v.owner
    if isinstance(op, _GCD_OPS):
        return gcd(divisor(op.lhs), divisor(op.rhs))
    if isinstance(op, arith.MuliOp):
        return divisor(op.lhs) * divisor(op.rhs)
    if isinstance(op, arith.SelectOp):
        return gcd(divisor(op.lhs), divisor(op.rhs))
    if isinstance(op, arith.IndexCastOp):
        return divisor(op.input)
    return 1


def offset_divisor(mem: SSAValue, indices) -> int:
    """A number dividing the row-major element offset of `indices` into `mem`."""
    shape = mem.type.get_shape()  # type: ignore[attr-defined]
    return reduce(gcd, (divisor(i) * prod(shape[k + 1 :]) for k, i in enumerate(indices)), 0)


def is_buffer(mem: SSAValue) -> bool:
    """Whether `mem` is a kernel's buffer argument."""
    return isinstance(mem, BlockArgument) and isinstance(mem.block.parent_op(), KernelOp)


def raise_alignment(alloca: memref.AllocaOp, size: int) -> None:
    have = alloca.alignment.value.data if alloca.alignment else 0
    alloca.alignment = IntegerAttr(max(have, size), i64)


def align(access: vector.LoadOp | vector.StoreOp) -> None:
    """Mark `access` aligned where its offset and base allow (raising an array's
    alignment as needed)."""
    vtype = access.result.type if isinstance(access, vector.LoadOp) else access.vector.type
    lanes = vtype.get_shape()[0]  # type: ignore[attr-defined]
    size = lanes * vtype.element_type.bitwidth // 8  # type: ignore[attr-defined]
    if offset_divisor(access.base, access.indices) % lanes:
        return
    base = access.base
    if isinstance(base.owner, SlotOp) and memref_bytes(base.type) % size == 0:  # type: ignore[arg-type]
        base = base.owner.source
    if isinstance(base.owner, memref.AllocaOp):
        raise_alignment(base.owner, size)
    elif not (is_buffer(base) and size <= BUFFER_ALIGNMENT):
        return
    access.attributes[ALIGNMENT_ATTR] = IntegerAttr(size, i64)


@dataclass(frozen=True)
class LowLevelAlignVectors(ModulePass):
    name = "lowlevel-align-vectors"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewritten_by(self.name, op)
        for access in op.walk():
            if isinstance(access, vector.LoadOp | vector.StoreOp):
                align(access)
            elif isinstance(access, memref.AllocaOp) and memory_space(access.memref.type) == "lcl":
                raise_alignment(access, LOCAL_ALIGNMENT)
