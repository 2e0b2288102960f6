"""`lowlevel-expand-mma`: `lowlevel.mma` as multiply-adds and `lowlevel.ldmatrix` as loads, for devices without tensor cores.

Each `lowlevel.mma` becomes the f32 multiply-adds it stands for, for a device without
tensor cores (PoCL), in the same fragment layout; each `lowlevel.ldmatrix` the loads
its registers stand for: the lanes store their row starts into local memory
(`memref<warps x 32 x rank x i32>`) between barriers, and lane (g, t) reads register q
at the row that lane 8q + g gave, at its 4 bytes 4t (f32, or two 16-bit elements
packed), or with `trans` the elements at column g of the rows that lanes 8q + 2t and
8q + 2t + 1 gave.

A lane holds only its registers of a fragment, so the lanes of a warp exchange them
through local memory (one A and one B fragment per warp, `memref<warps x M x K>`,
`memref<warps x K x N>` of the kind's element type), between barriers:

    lowlevel.barrier                          the previous mma's reads are done
    %a_frag[warp][g][t] = a0, [g+8][t] = a1, [g][t+4] = a2, [g+8][t+4] = a3
    %b_frag[warp][t][g] = b0, [t+4][g] = b1
    lowlevel.barrier
    d0 = fma(A[g][K-1], B[K-1][2t], ... fma(A[g][0], B[0][2t], c0))   (rows g, g+8,
    ...                                                                 columns 2t, 2t+1)

(TF32; for "f16" and "bf16" each register is unpacked into its two 16-bit elements,
the low half at k 2t (+8) and the high half at k 2t + 1 (+8), stored as they are, and
the FMAs read them widened to f32, `lowlevel.load_widened`: the products of two 16-bit
values are exact in f32, as on tensor cores).

so a fragment loaded in another layout than `lowlevel.MmaOp`'s gives other results:
the data movement of `mdh-mma` (fragment loads, accumulators, write-back) runs as on
tensor cores, and the tests compare it with the reference. The barriers are the
work-group's: `mdh-mma` places every mma in work-group-uniform control flow. The
additions are f32 in k order, where tensor cores may add in another order and
truncate (`semantics.precision.precision_tolerance` allows both).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math, memref
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerType, ModuleOp, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import (
    LCL,
    LOCAL_SIZE_ATTR,
    MMA_KINDS,
    BarrierOp,
    KernelOp,
    LdMatrixOp,
    LoadWidenedOp,
    MmaKind,
    MmaOp,
)
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.mma import Lane, fragment_k, packed
from mdh_ir.schedule.mma import WARP


def expand_kernel(kernel: KernelOp) -> None:
    mmas = [op for op in kernel.walk() if isinstance(op, MmaOp)]
    loads = [op for op in kernel.walk() if isinstance(op, LdMatrixOp)]
    if not mmas and not loads:
        return
    sizes = kernel.attributes[LOCAL_SIZE_ATTR]
    assert isinstance(sizes, DenseArrayBase)
    warps = 1
    for n in sizes.get_values():
        warps *= n
    warps //= WARP
    top = Emitter.at_start(kernel.body.block)
    lane = Lane.of(kernel, top)
    frags = {}
    for mma in mmas:
        kind = mma.kind.data
        if kind not in frags:
            (m, n, k), element = MMA_KINDS[kind].shape, MMA_KINDS[kind].element
            a = top.emit(memref.AllocaOp.get(element, shape=[warps, m, k], memory_space=LCL))
            b = top.emit(memref.AllocaOp.get(element, shape=[warps, k, n], memory_space=LCL))
            frags[kind] = (a, b)
        expand(mma, lane, *frags[kind])
    ranks = {load.source.type.get_num_dims() for load in loads}  # type: ignore[attr-defined]
    if ranks:
        rows = top.emit(memref.AllocaOp.get(i32, shape=[warps, WARP, max(ranks)], memory_space=LCL))
        for load in loads:
            expand_ldmatrix(load, lane, rows)


def expand_ldmatrix(load: LdMatrixOp, lane: Lane, rows: SSAValue) -> None:
    """The lanes' row starts through local memory (`rows[warp][lane][axis]`), then each
    lane's registers read from the rows `lowlevel.LdMatrixOp` says."""
    e = Emitter.before(load)
    rank = len(load.indices)
    e.op(BarrierOp())
    for x, index in enumerate(load.indices):
        e.store(e.emit(arith.IndexCastOp(index, i32)), rows, [lane.warp, lane.lane, x])
    e.op(BarrierOp())
    per = 4 // load.element_bytes

    def row(source_lane: SSAValue) -> list[SSAValue]:
        """The row start that `source_lane` gave."""
        return [e.emit(arith.IndexCastOp(e.load(rows, [lane.warp, source_lane, x]), IndexType())) for x in range(rank)]

    def element(start: list[SSAValue], column: SSAValue) -> SSAValue:
        return e.load(load.source, [*start[:-1], e.add(start[-1], column)])

    for q, d in enumerate(load.d):
        if load.trans is not None:
            two = [element(row(e.add(e.mul(lane.t, 2), 8 * q + h)), lane.g) for h in range(2)]
        else:
            start = row(e.add(lane.g, 8 * q))
            two = [element(start, e.add(e.mul(lane.t, per), x)) for x in range(per)]
        d.replace_all_uses_with(two[0] if per == 1 else packed(e, *two))
    load.detach()
    load.erase()


def unpacked(e: Emitter, register: SSAValue, kind: MmaKind) -> list[SSAValue]:
    """The elements of a register of `kind`: itself, or its low and high 16 bits."""
    if kind.per_register == 1:
        return [register]
    i16 = IntegerType(16)
    halves = [register, e.emit(arith.ShRUIOp(register, e.const(16, i32)))]
    return [e.emit(arith.BitcastOp(e.emit(arith.TruncIOp(h, i16)), kind.element)) for h in halves]


def expand(mma: MmaOp, lane: Lane, a_frag, b_frag) -> None:
    """The kind's layout (`lowlevel.MmaOp`)."""
    e = Emitter.before(mma)
    kind = MMA_KINDS[mma.kind.data]
    k, per = kind.shape[2], kind.per_register
    g, t, w = lane.g, lane.t, lane.warp
    g8, t2 = e.add(g, 8), e.mul(t, 2)
    ks = [[fragment_k(e, kind, t, half, x) for x in range(per)] for half in range(2)]
    e.op(BarrierOp())
    for v, register in enumerate(mma.a):
        row = (g, g8)[v % 2]
        for value, kk in zip(unpacked(e, register, kind), ks[v // 2]):
            e.store(value, a_frag, [w, row, kk])
    for v, register in enumerate(mma.b):
        for value, kk in zip(unpacked(e, register, kind), ks[v]):
            e.store(value, b_frag, [w, kk, g])
    e.op(BarrierOp())
    t21 = e.add(t2, 1)

    def load(frag, at) -> SSAValue:
        return e.load(frag, at) if per == 1 else e.emit(LoadWidenedOp(frag, [e.value(x) for x in at]))

    for d, c, (row, col) in zip(mma.d, mma.c, [(g, t2), (g, t21), (g8, t2), (g8, t21)]):
        total = c
        for kk in range(k):
            total = e.emit(math.FmaOp(load(a_frag, [w, row, kk]), load(b_frag, [w, kk, col]), total))
        d.replace_all_uses_with(total)
    mma.detach()
    mma.erase()


@dataclass(frozen=True)
class LowLevelExpandMma(ModulePass):
    name = "lowlevel-expand-mma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            expand_kernel(kernel)
