"""`lowlevel-expand`: rewrite the structured `lowlevel` ops into scf/arith/memref.

After it, a kernel holds only ops the OpenCL printer maps one-to-one (scf.for/if,
arith, math, memref.load/store/alloca, func.call, group/local ids, barriers):

- `tile_for` becomes an `scf.for` over the part's steps with the tile's start and size
  computed from the step (`mdh_ir.dialects.lowlevel.TileForOp` gives the formulas);
  counts that are compile-time constants fold (a `padded` loop's always do); an
  `unroll` attribute carries over;
- `view_load` becomes index arithmetic, the boundary mode's index fix-up, and a load
  (a `vector.load` for a vector result; a `load_widened` from a 16-bit float buffer,
  whose elements copies move as they are);
- `copy` becomes a loop over the box's elements strided by the number of workers; when
  a worker has at most `COPY_UNROLL` turns, the loop runs over the turns and is fully
  unrolled, so that its loads are in flight together (a loop from the worker's id
  stays rolled on NVIDIA's compiler and each load waits for the last); where the
  workers are a multiple of the box's elements past its first axis, the worker's
  coordinates are computed once, before that loop, and a turn adds a constant to the
  first (the compiler keeps one address and constant offsets instead of each turn's
  divisions; H100, GPU defaults: TF32 matmul 4096^3 243 -> 232 registers, 1.088 ->
  1.047 ms, f16 224 -> 219, ResNet-50 conv3 3 x 3 f16 at batch 32 198 -> 192); with
  `lanes = N` it moves N elements along the innermost axis as one vector when all of
  them lie inside the source, and falls back to single elements otherwise (a copy
  with boundary "none" moves every vector as one where its vectors start at multiples
  of N and the innermost extent is a multiple of N, or where the box lies inside the
  source along that axis); a staged copy (`lowlevel-prefetch`) always loops over the turns, unrolled, and
  its load half moves each element or vector into the turn's place in the stage, its
  store half whole vectors from there; a copy marked `inside` moves without checking
  that its elements or vectors lie inside the source, one with `inside_axes` checks the
  other axes only; with boundary "none", reads outside the source are clamped into it
  (only discarded points of a padded tile read them: no select); a copy with
  `round = "tf32"` stores each element or vector rounded (`round_tf32`); an
  asynchronous copy's (`async`, `lowlevel-prefetch`) stores are marked `async`, for
  `lowlevel-async-copies`;
- a kernel's `fill` becomes stores (a host function's stays: the runtime fills the
  buffer).

Loops over private arrays are unrolled so that the arrays can live in registers: an
`scf.for` with a constant trip count of at most `FULL_UNROLL` whose body reads or writes
private memory gets `unroll = 0` (fully unrolled, `#pragma unroll`), innermost loops
first, as long as the copies of the innermost bodies this makes stay within
`UNROLLED_PRODUCT` (a rolled loop inside counts as its body's copies: tensor contraction
on PoCL, 16 turns unrolled around a rolled loop over 96 copies took 66 ms, rolled 40).
A loop that holds a barrier stays rolled: its body is a whole tile's work, and NVIDIA's
OpenCL compiler (driver 580) miscomputed such loops unrolled (a jacobi3d configuration
with a prefetched local tile inside two unrolled tile loops: the first tile's outputs
wrong; right with that loop's `#pragma unroll` removed).

Boundary modes for index j of an axis of extent n: clamp min(max(j, 0), n-1); wrap
((j mod n) + n) mod n; mirror reflects with period 2(n-1); zero reads the clamped index
and selects 0 when j is outside.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, UnitAttr, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import (
    ASYNC_ATTR,
    PRV,
    ROUND_ATTR,
    UNROLL_ATTR,
    BarrierOp,
    CopyOp,
    FillOp,
    KernelOp,
    LoadWidenedOp,
    RoundTF32Op,
    TileForOp,
    ViewLoadOp,
    ViewOp,
    memory_space,
)
from mdh_ir.dialects.mdh_attrs import STORAGE_TYPES
from mdh_ir.passes.align_vectors import divisor
from mdh_ir.passes.emit import Emitter, Value, constant_value, i1
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.schedule.tiling import FULL_UNROLL


def expand_tile_for(loop: TileForOp) -> None:
    e = Emitter.before(loop)
    tile, parts = loop.tile.value.data, loop.parts.value.data
    padded = loop.padded is not None
    if padded:
        trips = e.const(loop.max_trips.value.data)
    else:
        chunks = e.ceildiv(loop.size, tile)
        known = constant_value(chunks)
        if known is not None and known % parts == 0:
            trips = e.const(known // parts)
        else:
            trips = e.div(e.add(e.sub(chunks, loop.part), parts - 1), parts)
    if constant_value(trips) == 1:
        step, body = e.const(0), e
    else:
        step, body = e.for_(0, trips)
        if UNROLL_ATTR in loop.attributes:
            body.ip.block.parent_op().attributes[UNROLL_ATTR] = loop.attributes[UNROLL_ATTR]
    chunk = body.add(body.mul(step, parts), loop.part)
    offset = body.mul(chunk, tile)
    start = body.add(loop.start, offset)
    size_known = constant_value(loop.size)
    if padded or tile == 1 or (size_known is not None and size_known % tile == 0):
        size = body.const(tile)
    else:
        size = body.min(tile, body.sub(loop.size, offset))
    for arg, value in zip(loop.body.block.args, (step, start, size)):
        arg.replace_all_uses_with(value)
    for op in list(loop.body.block.ops):
        op.detach()
        body.op(op)
    loop.detach()
    loop.erase()


UNROLLED_PRODUCT = 512
COPY_UNROLL = 4
"""Turns of a cooperative copy unrolled (H100, GEMM 4096^3, 128 x 128 tiles: with k
tiles of 8, 4 turns unrolled took 3.91 ms, rolled 4.51; with k tiles of 16 and 32, 8
and 16 turns unrolled took 6.30 and 7.56 ms, rolled 4.49 and 4.36)."""


def touches_private(loop: scf.ForOp) -> bool:
    memories = [
        op.memref if isinstance(op, memref.LoadOp | memref.StoreOp) else op.base
        for op in loop.walk()
        if isinstance(op, memref.LoadOp | memref.StoreOp | vector.LoadOp | vector.StoreOp)
    ]
    return any(memory_space(m.type) == "prv" for m in memories)


def static_trips(loop: scf.ForOp) -> int | None:
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None:
        return None
    return max(0, -(-(ub - lb) // step))


def mark_unrolled(op: Operation) -> int:
    """Fully unroll small loops over private arrays, innermost first (see the module
    docstring); returns the number of copies of the innermost loop bodies in `op`
    after unrolling (a loop left rolled counts its body once)."""
    inner = max(
        (mark_unrolled(o) for r in op.regions for b in r.blocks for o in b.ops), default=1
    )
    if not isinstance(op, scf.ForOp):
        return inner
    trips = static_trips(op)
    if (
        trips is None or trips > FULL_UNROLL or inner * trips > UNROLLED_PRODUCT
        or not touches_private(op) or any(isinstance(o, BarrierOp) for o in op.walk())
    ):  # fmt: skip
        return inner
    op.attributes[UNROLL_ATTR] = IntegerAttr(0, 64)
    return inner * trips


def fix_index(e: Emitter, j: SSAValue, n: int, mode: str) -> SSAValue:
    """The index actually read for logical index j of an axis of extent n."""
    if mode == "clamp" or mode == "zero":
        return e.min(e.max(j, 0), n - 1)
    if mode == "wrap":
        return e.srem(e.add(e.srem(j, n), n), n)
    if mode == "mirror":
        if n == 1:
            return e.const(0)
        period = 2 * (n - 1)
        r = e.srem(e.add(e.srem(j, period), period), period)
        return e.select(e.cmp("slt", r, n), r, e.sub(period, r))
    return j


def inside(e: Emitter, index: Sequence[SSAValue], extents: Sequence[int]) -> SSAValue:
    return e.all_of(
        [e.and_(e.cmp("sge", j, 0), e.cmp("slt", j, n)) for j, n in zip(index, extents)]
    )


def read(
    e: Emitter, mem: SSAValue, index: Sequence[SSAValue], perm: Sequence[int], mode: str,
    extents: Sequence[int] | None = None, checked: Sequence[int] | None = None, widened: bool = False,
) -> SSAValue:
    """Load logical position `index` of `mem` (axis i of mem holds logical axis perm[i]);
    `extents`: the logical extents of its data (default: its shape); `checked`: the
    logical axes whose index may leave them (default: all); `widened`: a 16-bit float
    element read as its f32 value (`lowlevel.load_widened`), else as stored."""
    if extents is None:
        shape = mem.type.get_shape()  # type: ignore[attr-defined]
        extents = [shape[perm.index(a)] for a in range(len(perm))]
    if checked is None:
        checked = range(len(index))
    fixed = [fix_index(e, j, n, mode) if a in checked else j for a, (j, n) in enumerate(zip(index, extents))]
    at = [fixed[a] for a in perm]
    value = e.emit(LoadWidenedOp(mem, at)) if widened else e.load(mem, at)
    if mode != "zero":
        return value
    return e.select(inside(e, index, extents), value, e.scalar(0, value.type))


def eval_expr(e: Emitter, expr: AffineExpr, dims: Sequence[SSAValue], syms: Sequence[SSAValue]) -> Value:
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs, rhs = eval_expr(e, expr.lhs, dims, syms), eval_expr(e, expr.rhs, dims, syms)
    if expr.kind == AffineBinaryOpKind.Add:
        return e.add(lhs, rhs)
    assert expr.kind == AffineBinaryOpKind.Mul, "view maps are linear"
    return e.mul(lhs, rhs)


def expand_view_load(load: ViewLoadOp) -> None:
    e = Emitter.before(load)
    amap = load.map.data
    dims = [d if lim is d else e.min(d, lim) for d, lim in zip(load.dims, load.limits or load.dims)]
    index = [e.value(eval_expr(e, r, dims, load.syms)) for r in amap.results]
    stored = load.source.type.element_type  # type: ignore[attr-defined]
    widened = isinstance(stored, STORAGE_TYPES) and load.result.type != stored
    if isinstance(load.result.type, VectorType) and widened:
        value = e.emit(LoadWidenedOp(load.source, index, load.result.type.get_shape()[0]))
    elif isinstance(load.result.type, VectorType):
        value = e.emit(vector.LoadOp(load.source, index, load.result.type))
    else:
        value = read(e, load.source, index, list(range(len(index))), load.boundary.data, widened=widened)
    load.result.replace_all_uses_with(value)
    load.detach()
    load.erase()


@dataclass
class Move:
    """Moves a copy's elements: from its source to its destination, or one half of
    that through its stage (one element, or vector, per turn; `elements`: the same
    storage as single elements)."""

    copy: CopyOp
    logical: list[int]
    elements: SSAValue | None = None

    @property
    def half(self) -> str | None:
        return self.copy.half.data if self.copy.half is not None else None

    @property
    def checked(self) -> list[int]:
        """The logical axes along which the box may leave the source."""
        inside_axes = self.copy.inside_axes()
        return [a for a in range(len(self.logical)) if a not in inside_axes]

    def vector(
        self, e: Emitter, position: list[SSAValue], coords: list[SSAValue], slot: list[SSAValue], clamp: bool = False
    ) -> None:
        """Move one vector of the box; `slot` is its place in the stage. With `clamp`
        (boundary "none", `whole_vectors`) the read is clamped into the source along
        the `checked` axes: a vector outside it is only read by discarded points."""
        copy = self.copy
        if self.half == "store":
            value = e.load(copy.stage, slot)  # type: ignore[arg-type]
        else:
            vtype = VectorType(copy.source.type.element_type, [copy.lanes()])  # type: ignore[attr-defined]
            at = list(position)
            for a in self.checked if clamp else ():
                at[a] = e.min(e.max(at[a], 0), self.logical[a] - (copy.lanes() if a == len(at) - 1 else 1))
            value = e.emit(vector.LoadOp(copy.source, [at[a] for a in copy.source_perm.get_values()], vtype))
        if self.half == "load":
            e.store(value, copy.stage, slot)  # type: ignore[arg-type]
        else:
            at = [coords[a] for a in copy.dest_perm.get_values()]
            self.mark(e.op(vector.StoreOp(self.stored(e, value), copy.dest, at)))

    def element(self, e: Emitter, position: list[SSAValue], coords: list[SSAValue], slot: list[SSAValue]) -> None:
        """Move one box element (with boundary "none", clamped into the source along the
        `checked` axes: only discarded points read an element outside); `slot` is its
        place in the stage."""
        copy, mode = self.copy, self.copy.boundary.data
        if mode == "none":
            mode = "clamp"
        if self.half == "store":
            value = e.load(self.elements, slot)  # type: ignore[arg-type]
        else:
            value = read(e, copy.source, position, copy.source_perm.get_values(), mode, self.logical, self.checked)
        if self.half == "load":
            e.store(value, self.elements, slot)  # type: ignore[arg-type]
        else:
            at = [coords[a] for a in copy.dest_perm.get_values()]
            self.mark(e.op(memref.StoreOp.get(self.stored(e, value), copy.dest, at)))

    def mark(self, store: Operation) -> None:
        """An asynchronous copy's store (`ASYNC_ATTR`) is marked as one, for
        lowlevel-async-copies."""
        if ASYNC_ATTR in self.copy.attributes:
            store.attributes[ASYNC_ATTR] = UnitAttr()

    def stored(self, e: Emitter, value: SSAValue) -> SSAValue:
        """`value` as the destination receives it: rounded to TF32 where the copy says so."""
        if ROUND_ATTR in self.copy.attributes:
            return e.emit(RoundTF32Op(value))
        return value

    def whole_vectors(self) -> bool:
        """Whether every vector the copy moves lies wholly inside or wholly outside the
        source, so that none moves element by element: the box is inside the source,
        or, with boundary "none", along its innermost axis (or that axis's extent is a
        multiple of `lanes` and the box's vectors start at multiples of it). A store
        half moves whole vectors from its stage."""
        copy, last = self.copy, len(self.logical) - 1
        if self.half == "store" or copy.inside():
            return True
        if copy.boundary.data != "none":
            return False
        lanes = copy.lanes()
        return last not in self.checked or (self.logical[last] % lanes == 0 and divisor(copy.base[last]) % lanes == 0)


def expand_copy(copy: CopyOp) -> None:
    e = Emitter.before(copy)
    logical = copy.source_extents()
    lanes, units, turns = copy.lanes(), copy.units(), copy.turns()
    total, workers = prod(units), copy.workers.value.data
    elements = copy.stage
    if copy.stage is not None and lanes > 1:
        elem = copy.source.type.element_type  # type: ignore[attr-defined]
        elements = e.emit(ViewOp(copy.stage, MemRefType(elem, [turns, lanes], memory_space=PRV)))
    move = Move(copy, logical, elements)
    start = None
    if turns <= COPY_UNROLL or copy.stage is not None:
        inner = prod(units[1:])
        if units and workers % inner == 0:
            start = e.delinearize(copy.worker, units)
        turn, body = e.for_(0, turns)
        turn.block.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(0, 64)  # type: ignore
        if start is None or total % workers:
            flat = body.add(copy.worker, body.mul(turn, workers))
        slot = [turn]
        if total % workers:
            body = body.if_(body.cmp("slt", flat, total))  # type: ignore[assignment]
    else:
        flat, body = e.for_(copy.worker, total, workers)
        slot = []
    if start is not None:  # a turn advances whole rows of the box: only its first coordinate moves
        coords = [body.add(start[0], body.mul(turn, workers // inner)), *start[1:]]
    else:
        coords = body.delinearize(flat, units)
    if coords:  # a rank-0 box is one element, moved alone (lanes 1)
        coords[-1] = body.mul(coords[-1], lanes)
    position = [body.add(b, c) for b, c in zip(copy.base, coords)]
    if lanes > 1 and move.whole_vectors():
        move.vector(body, position, coords, slot, clamp=True)
        body = None
    elif lanes > 1:
        last = list(position)
        last[-1] = body.add(position[-1], lanes - 1)
        checked = move.checked
        whole = body.all_of([inside(body, [p[a] for a in checked], [logical[a] for a in checked]) for p in (position, last)])
        fast = body.if_(whole)
        if fast is not None:
            move.vector(fast, position, coords, slot)
        body = body.if_(body.emit(arith.XOrIOp(whole, body.const(1, i1))))  # type: ignore[assignment]
        if body is not None:
            lane, body = body.for_(0, lanes)
            coords[-1] = body.add(coords[-1], lane)
            position[-1] = body.add(position[-1], lane)
            slot = [*slot, lane]
    if body is not None:
        move.element(body, position, coords, slot)
    copy.detach()
    copy.erase()


def expand_fill(fill: FillOp) -> None:
    e = Emitter.before(fill)
    index = []
    for n in fill.dest.type.get_shape():  # type: ignore[attr-defined]
        iv, e = e.for_(0, n) if n > 1 else (e.const(0), e)
        index.append(iv)
    e.store(fill.value, fill.dest, index)
    fill.detach()
    fill.erase()


@dataclass(frozen=True)
class LowLevelExpand(ModulePass):
    name = "lowlevel-expand"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewritten_by(self.name, op)
        for o in list(op.walk()):
            if isinstance(o, ViewLoadOp):
                expand_view_load(o)
            elif isinstance(o, CopyOp):
                expand_copy(o)
            elif isinstance(o, FillOp):
                expand_fill(o)
        for loop in [o for o in op.walk() if isinstance(o, TileForOp)]:
            expand_tile_for(loop)
        for kernel in [o for o in op.walk() if isinstance(o, KernelOp)]:
            mark_unrolled(kernel)
