"""`lowlevel-swizzle-local`: the accesses of swizzled local buffers, rows' chunks permuted.

A local buffer marked `swizzle = n` (`mdh-promote-memory`, `lcl_swizzle = 1`) has rows of
C 16-byte chunks, C a power of two and at least 2
(`mdh_ir.schedule.tiling.swizzle_chunks`), and no padding. With r the index of its
axis -n (the one along which a fragment load's 8 rows step: A's rows, or k) and c the
last, the element is stored at column

    c ^ (e * ((r / (8 / W)) mod W)),   W = min(C, 8), e = elements a chunk

(`/` rounding down): the chunk index XOR bits of r, a permutation of each row. The 8
rows an `ldmatrix` reads at the same chunk fall into 8 different 16-byte eighths of
the 128 bytes the banks serve at once, which rows padded by
`lcl_pad` elements achieve with unused local memory (128 x 128 x 32 f16 tiles in three
slots: 48 KB unpadded, 54 KB padded by 8). Every access of such a buffer, directly or
through a `lowlevel.slot`, gets its last index rewritten: `memref.load` / `store`,
`vector.load` / `store`, `lowlevel.cp_async` (its destination) and `lowlevel.ldmatrix`.
Each moves at most one chunk from a position aligned to its size (rule `lcl-swizzle`:
copies of at most 16 bytes, `ldmatrix` rows of 16), so it stays inside one chunk and
contiguous.

    mdh-opt -p lowlevel-swizzle-local f.mlir

    %a = memref.alloca() {swizzle = 2 : i64} : memref<128x32xf16, "lcl">
    lowlevel.cp_async %A[%i, %k] -> %a[%r, %c] bytes 16 : ...
    ->
    %q = arith.divui %r, 2 ; %b = arith.remui %q, 4 ; %x = arith.muli %b, 8
    %c2 = arith.xori %c, %x
    lowlevel.cp_async %A[%i, %k] -> %a[%r, %c2] bytes 16 : ...

It runs last (`lower-to-opencl`): `lowlevel-align-vectors` and `lowlevel-async-copies`
prove alignments on the unpermuted indices, which the permutation keeps.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import SWIZZLE_ATTR, CpAsyncOp, KernelOp, LdMatrixOp, SlotOp
from mdh_ir.errors import MDHError
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.schedule.tiling import CHUNK_BYTES, element_bytes, swizzle_chunks

ACCESSES = (memref.LoadOp, memref.StoreOp, vector.LoadOp, vector.StoreOp, CpAsyncOp, LdMatrixOp)
"""The ops that read or write a swizzled buffer, each with the buffer's indices last."""


def swizzled_column(e: Emitter, t: MemRefType, row: SSAValue, col: SSAValue) -> SSAValue:
    """The column where a buffer of type `t` stores element (..., row, ..., col), row
    the index of its `swizzle` axis (module docstring)."""
    size = element_bytes(t.element_type)
    chunks = swizzle_chunks(t.get_shape()[-1] * size)
    assert chunks is not None, "mdh-promote-memory marks only rows of a power of two of chunks"
    width = min(chunks, 8)
    bits = e.rem(e.div(row, 8 // width), width)
    return e.emit(arith.XOrIOp(col, e.mul(bits, CHUNK_BYTES // size)))


def rewrite_accesses(buffer: SSAValue, axis: int) -> None:
    """Permute the last index of every access of `buffer` by its index `axis` (from the
    end), through its slots."""
    for use in list(buffer.uses):
        op: Operation = use.operation
        if isinstance(op, SlotOp):
            rewrite_accesses(op.result, axis)
            continue
        if not isinstance(op, ACCESSES) or (isinstance(op, CpAsyncOp) and use.index == 0):
            raise MDHError(f"lowlevel-swizzle-local: a swizzled local buffer is used by {op.name}", op)
        row, col = op.operands[-axis], op.operands[-1]
        op.operands[len(op.operands) - 1] = swizzled_column(Emitter.before(op), buffer.type, row, col)  # type: ignore[arg-type]


def swizzle(kernel: KernelOp) -> None:
    for alloca in [op for op in kernel.walk() if isinstance(op, memref.AllocaOp) and SWIZZLE_ATTR in op.attributes]:
        axis = alloca.attributes[SWIZZLE_ATTR]
        assert isinstance(axis, IntegerAttr)
        rewrite_accesses(alloca.memref, axis.value.data)


@dataclass(frozen=True)
class LowLevelSwizzleLocal(ModulePass):
    name = "lowlevel-swizzle-local"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            swizzle(kernel)
