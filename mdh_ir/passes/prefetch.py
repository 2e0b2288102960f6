"""`lowlevel-prefetch`: apply `prefetch`, loading the next local tile during this one.

Software pipelining: the next local tile's inputs are loaded into registers while the
work-group computes on this one (`prefetch = 1`), optionally into a second local
buffer so that a step needs one barrier (`prefetch = 2`), or copied asynchronously
`stages - 1` tiles ahead into `stages` buffers (`prefetch = 3`).

`mdh-promote-memory` gives the innermost local-tile loop cooperative copies into local
memory between barriers. With `prefetch = 1` each copy is split into its two halves
through a private stage array (`lowlevel.copy ... staged`, expanded by `lowlevel-expand`):

    lowlevel.tile_for "lt" ... (%step, %start, %size) {
      lowlevel.copy %b[origin(%start)] -> %b_lcl ...
      lowlevel.barrier
      ...                                          compute on %b_lcl
      lowlevel.barrier
    }

becomes

    lowlevel.copy %b[origin(first start)] -> %b_lcl staged "load" in %stage ...
    lowlevel.tile_for "lt" ... (%step, %start, %size) {
      lowlevel.copy %b[origin(%start)] -> %b_lcl staged "store" in %stage ...
      lowlevel.barrier
      scf.if (%start + parts * tile < end) {
        lowlevel.copy %b[origin(%start + parts * tile)] -> %b_lcl staged "load" in %stage ...
      }
      ...
      lowlevel.barrier
    }

so that the global loads of the next tile are in flight during the computation (H100,
GEMM 4096^3, tuned tiles: 3.88 -> 3.45 ms, 121 -> 127 registers; with k-tiles of 16 or
32 the stages cost more registers than they hide: 4.63 -> 5.32 ms). The origin of the next
tile is the copy's index arithmetic cloned with the loop's block arguments advanced by
one step; the load half is skipped where there is no such step. A copy whose stage
would hold more than `PREFETCH_ELEMENTS` elements per work-item is left as it is, and
so is a loop of at most one step.

With `prefetch = 2` the local buffers the loop copies into also get two slots
(`memref<2 x box>`, `lowlevel.slot`): step s stores into and reads from slot s % 2, so
the barrier that ended each step (no work-item may overwrite a tile another still
reads) moves after the loop, one barrier a step. H100, GEMM 4096^3: faster with k-tiles
of 16 (5.37 -> 4.88 ms) and for the default (4.26 -> 4.23 ms), slower for the tuned
tiles (3.48 -> 3.59 ms), hence a tuning choice.

With `prefetch = 3` the loop gets `stages` slots (S), and the copies that can move by
`cp.async` (`moves_async`) are issued S - 1 steps ahead as asynchronous copies into
that step's slot, without registers, one group of copies a step:

    for s in 0 .. S - 2:
      if (start of step s < end) { lowlevel.copy ... -> slot s {async} }
      lowlevel.async_commit
    lowlevel.tile_for "lt" ... (%step, %start, %size) {
      lowlevel.async_wait pending S - 2          this step's group is complete
      lowlevel.barrier                           every work-item's, and step - 1 is done
      scf.if (%start + (S - 1) * parts * tile < end) {
        lowlevel.copy %b[origin(that start)] -> slot (%step + S - 1) % S {async}
      }
      lowlevel.async_commit
      ...                                        compute on slot %step % S
    }
    lowlevel.barrier

(slot (%step + S - 1) % S was step - 1's, which every work-item has finished at this
step's barrier).
The others (16-bit elements one at a time, a rounding, unaligned vectors) are staged as
with `prefetch = 2`. `lowlevel-async-copies` makes the asynchronous copies' moves
`cp.async` on a device that has it; elsewhere they run as ordinary moves and the
program is the same computation. H100, f16 matmul on tensor cores, the GPU default's
128 x 256 tiles: 4096^3 1.123 -> 0.920 ms (A copied k-first: its transposing moves are
staged), 0.902 with both copies asynchronous; f16 1000^3 0.057 -> 0.052 ms. Tiles of
64 x 128 (4 warps), local tiles of 32 along k in S = 2 slots against 16 along k in
S = 3 / 4 (the same local memory and more): f16 1000^3 0.0378 -> 0.0358 / 0.0309 ms,
2000^3 0.135 -> 0.126 / 0.121, 3000^3 0.350 -> 0.356 / 0.335, 4096^3 0.721 -> 0.721 /
0.716.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp, UnitAttr, VectorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from mdh_ir.dialects.lowlevel import (
    ASYNC_ATTR,
    LCL,
    PRV,
    ROUND_ATTR,
    SWIZZLE_ATTR,
    AsyncCommitOp,
    AsyncWaitOp,
    BarrierOp,
    CopyOp,
    KernelOp,
    SlotOp,
    TileForOp,
    memory_space,
)
from mdh_ir.passes.align_vectors import divisor
from mdh_ir.passes.async_copies import CP_ASYNC_BYTES
from mdh_ir.passes.assign_asm import tile_chain
from mdh_ir.passes.carried import carried
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.promote_memory import alloc
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.tiling import element_bytes

PREFETCH_ELEMENTS = 64
"""Most elements a work-item stages for one copy (they are meant to stay in registers)."""


def stage_for(kernel: KernelOp, copy: CopyOp) -> SSAValue:
    """A private array of the elements one worker moves: one per turn (a vector with lanes)."""
    elem = copy.source.type.element_type  # type: ignore[attr-defined]
    lanes = copy.lanes()
    return alloc(kernel, VectorType(elem, [lanes]) if lanes > 1 else elem, [copy.turns()], PRV)


def index_chain(values: Sequence[SSAValue], block: Block) -> list[Operation] | None:
    """The ops of `block` that `values` are computed from, in order; None if one of
    them has side effects."""
    needed: set[Operation] = set()
    stack = [v.owner for v in values]
    while stack:
        op = stack.pop()
        if isinstance(op, Operation) and op.parent_block() is block and op not in needed:
            needed.add(op)
            stack.extend(o.owner for o in op.operands)
    if not all(is_side_effect_free(op) and not op.regions for op in needed):
        return None
    return [op for op in block.ops if op in needed]


def step_mapping(
    e: Emitter, chain: list[Operation], args: dict[SSAValue, SSAValue], inside: bool
) -> dict[SSAValue, SSAValue]:
    """The values of another step: the ops of `chain` cloned with the loop's block
    arguments replaced by `args` (`inside` the loop, those that do not depend on them
    are not repeated), each value mapped to its clone."""
    mapping = dict(args)
    for op in chain:
        if not inside or any(v in mapping for v in op.operands):
            e.op(op.clone(mapping))
    return mapping


def load_halves(e: Emitter, copies: Sequence[CopyOp], stages: Sequence[SSAValue], mapping: dict[SSAValue, SSAValue]) -> None:
    """Load halves of `copies` with their operands mapped by `mapping` (`step_mapping`)."""
    for copy, stage in zip(copies, stages):
        base = [mapping.get(b, b) for b in copy.base]
        e.op(copy.staged("load", stage, base, mapping.get(copy.worker, copy.worker)))


def async_clones(e: Emitter, copies: Sequence[CopyOp], mapping: dict[SSAValue, SSAValue], slot: SSAValue) -> None:
    """`copies` with their operands mapped by `mapping` (`step_mapping`) into slot
    `slot` of their buffers, asynchronous."""
    for copy in copies:
        assert isinstance(copy.dest.owner, SlotOp), "multi_buffer gave the copy a slot"
        into = {**mapping, copy.dest: e.emit(SlotOp(copy.dest.owner.source, slot))}
        clone = e.op(copy.clone(into))
        clone.attributes[ASYNC_ATTR] = UnitAttr()


def step_args(
    e: Emitter, loop: TileForOp, used: set[SSAValue], step: Callable[[], SSAValue], start: SSAValue, end: SSAValue
) -> dict[SSAValue, SSAValue]:
    """The block arguments of `loop` that `used` holds, for the step `step()` starting
    at `start`."""
    values = {
        loop.step: step,
        loop.tile_start: lambda: start,
        loop.tile_size: lambda: e.min(loop.tile.value.data, e.sub(end, start)),
    }
    return {arg: make() for arg, make in values.items() if arg in used}


def top_copies(loop: TileForOp) -> list[CopyOp]:
    """The (unstaged) copies into local memory in the body of `loop`."""
    block = loop.body.block
    return [op for op in block.ops if isinstance(op, CopyOp) and memory_space(op.dest.type) == "lcl" and op.stage is None]


def moves_async(copy: CopyOp) -> bool:
    """Whether `lowlevel-async-copies` can move `copy`'s vectors (or elements) by
    `cp.async`: 4, 8 or 16 bytes at once, stored as read (no rounding, no boundary's
    zeros), vectors aligned to their size (rows of the source a multiple of `lanes`
    elements, the box starting at a multiple of it along them). The others go through
    registers (`stage_copies`): moved synchronously after the barrier, their loads
    would wait there."""
    lanes, t = copy.lanes(), copy.source.type
    assert isinstance(t, MemRefType)
    size = lanes * element_bytes(t.element_type)
    if size not in CP_ASYNC_BYTES or ROUND_ATTR in copy.attributes or copy.boundary.data == "zero":
        return False
    return lanes == 1 or (t.get_shape()[-1] % lanes == 0 and divisor(copy.base[-1]) % lanes == 0)


def stage_copies(kernel: KernelOp, loop: TileForOp, copies: Sequence[CopyOp]) -> None:
    """Split `copies` (at the top of `loop`) into load and store halves, the loads one
    step ahead."""
    block = loop.body.block
    copies = [op for op in copies if op.turns() * op.lanes() <= PREFETCH_ELEMENTS]
    if not copies:
        return
    chain = index_chain([v for c in copies for v in (*c.base, c.worker)], block)
    if chain is None:
        return
    stages = [stage_for(kernel, c) for c in copies]
    barrier = next((o for o in block.ops if isinstance(o, BarrierOp)), copies[-1])
    ahead(loop, copies, chain, barrier, lambda e, mapping, _: load_halves(e, copies, stages, mapping))
    for copy, stage in zip(copies, stages):
        Rewriter.replace_op(copy, copy.staged("store", stage, copy.base, copy.worker))


Issue = Callable[[Emitter, dict[SSAValue, SSAValue], Callable[[], SSAValue]], None]
"""Emits copies with a step's values (`step_mapping`) and the step's index."""


def ahead(
    loop: TileForOp, copies: Sequence[CopyOp], chain: list[Operation], barrier: Operation, issue: Issue,
    distance: int = 1, closing: Callable[[Emitter], None] | None = None,
) -> None:
    """Issue `copies` `distance` steps ahead: the first `distance` steps' before `loop`
    (each where the loop has it), step + `distance`'s after `barrier` (where there is
    one); `issue(e, mapping, step)` emits them with that step's values (`step_mapping` of
    `chain`) and index; `closing(e)` follows each step's copies, whether it has them."""
    block = loop.body.block
    used = {v for op in [*chain, *copies] for v in op.operands if v in block.args}
    tile, parts = loop.tile.value.data, loop.parts.value.data
    e = Emitter.before(loop)
    first, end = e.add(loop.start, e.mul(loop.part, tile)), e.add(loop.start, loop.size)
    for s in range(distance):
        start = e.add(first, s * parts * tile)
        before = e.if_(e.cmp("slt", start, end))
        if before is not None:
            step = lambda e=before, s=s: e.const(s)  # noqa: E731
            issue(before, step_mapping(before, chain, step_args(before, loop, used, step, start, end), False), step)
        if closing is not None:
            closing(e)
    inner = Emitter(InsertPoint.after(barrier))
    start = inner.add(loop.tile_start, distance * parts * tile)
    then = inner.if_(inner.cmp("slt", start, end))
    if then is not None:
        step = lambda: then.add(loop.step, distance)  # noqa: E731
        issue(then, step_mapping(then, chain, step_args(then, loop, used, step, start, end), True), step)
    if closing is not None:
        closing(inner)


def copy_ahead(loop: TileForOp, copies: Sequence[CopyOp], slots: int) -> None:
    """`prefetch = 3` after `multi_buffer` into `slots` slots: `copies` (at the top of
    `loop`) become asynchronous copies of the tile `slots - 1` steps ahead into its
    slot, issued after the step's barrier (the first `slots - 1` steps' before the
    loop), a group a step (`async_commit`), and an `async_wait` before that barrier
    completes this step's group (at most `slots - 2` later groups pending)."""
    block = loop.body.block
    barrier = next((o for o in block.ops if isinstance(o, BarrierOp)), None)
    chain = index_chain([v for c in copies for v in (*c.base, c.worker)], block)
    if not copies or barrier is None or chain is None:
        return

    def issue(e: Emitter, mapping: dict[SSAValue, SSAValue], step: Callable[[], SSAValue]) -> None:
        async_clones(e, copies, mapping, e.rem(step(), slots))

    ahead(loop, copies, chain, barrier, issue, slots - 1, lambda e: e.op(AsyncCommitOp()))
    Rewriter.insert_op(AsyncWaitOp(slots - 2), InsertPoint.before(barrier))
    for copy in copies:
        Rewriter.erase_op(copy)


def multi_buffer(kernel: KernelOp, loop: TileForOp, slots: int) -> bool:
    """Give each local buffer that `loop` copies into `slots` slots, the steps using
    them in turn (slot `step % slots`; ops before the loop see slot 0), and move the
    barrier that ends each step after the loop: a work-item storing step s + slots - 1's
    tile has passed step s's barrier, so every work-item is done with step s - 1's
    tile, the one in that slot. False (nothing changed) where the loop has no barrier
    ending its steps."""
    block = loop.body.block
    barriers = [op for op in block.ops if isinstance(op, BarrierOp)]
    if len(barriers) < 2:
        return False
    buffers = list(dict.fromkeys(
        op.dest for op in block.ops if isinstance(op, CopyOp) and memory_space(op.dest.type) == "lcl"
    ))  # fmt: skip
    e = Emitter.at_start(block)
    turn = e.rem(loop.step, slots)
    for buffer in buffers:
        t = buffer.type
        multi = alloc(kernel, t.element_type, [slots, *t.get_shape()], LCL)  # type: ignore[attr-defined]
        if SWIZZLE_ATTR in buffer.owner.attributes:  # type: ignore[union-attr]
            multi.owner.attributes[SWIZZLE_ATTR] = buffer.owner.attributes[SWIZZLE_ATTR]  # type: ignore[union-attr]
        slot = e.emit(SlotOp(multi, turn))
        outside = [use for use in buffer.uses if not loop.is_ancestor(use.operation)]
        if outside:
            after = Emitter(InsertPoint.after(multi.owner))  # type: ignore[arg-type]
            first = after.emit(SlotOp(multi, after.const(0)))
            for use in outside:
                use.operation.operands[use.index] = first
        buffer.replace_all_uses_with(slot)
        Rewriter.erase_op(buffer.owner)  # type: ignore[arg-type]
    barrier = barriers[-1]
    barrier.detach()
    Rewriter.insert_op(barrier, InsertPoint.after(loop))
    return True


def prefetch(kernel: KernelOp, cfg: Config) -> None:
    local = tile_chain(kernel, "lt")
    if not local or local[-1].max_trips.value.data <= 1:
        return
    loop = local[-1]
    if cfg.prefetch == 3:
        if multi_buffer(kernel, loop, cfg.local_slots):
            copies = top_copies(loop)
            copy_ahead(loop, [c for c in copies if moves_async(c)], cfg.local_slots)
            stage_copies(kernel, loop, [c for c in copies if not moves_async(c)])
        return
    stage_copies(kernel, loop, top_copies(loop))
    if cfg.prefetch == 2:
        multi_buffer(kernel, loop, cfg.local_slots)


@dataclass(frozen=True)
class LowLevelPrefetch(ModulePass):
    name = "lowlevel-prefetch"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            if any(isinstance(o, CopyOp) for o in kernel.walk()):
                cfg = carried(kernel, kernel.function_type.inputs.data).cfg
                if cfg.prefetch:
                    prefetch(kernel, cfg)
