"""`mdh-promote-memory`: cache input tiles in local and private memory (DESIGN.md 5.4).

For each input buffer b with `inp_mem[0][b] == "lcl"`, every local tile copies the box
of b it reads (`mdh_ir.schedule.tiling.TilePlan.box`) into a local-memory buffer, cooperatively
(work-item i of the work-group copies every i-th element), between barriers (none
when a work-group has one work-item):

    lowlevel.tile_for "lt" ... {                  innermost local-tile loop
      lowlevel.copy %b[origin] -> %b_lcl ... by %wi of 256
      lowlevel.barrier
      ...                                         private tiles read %b_lcl
      lowlevel.barrier
    }

With `inp_mem[1][b] == "prv"`, every private tile copies its box into a private buffer
(from the local copy if there is one: the copy's `source_extents` are the local box,
whose rows' padding holds nothing). Boxes are stored in `buf_layout` axis order; a
local buffer of two or more axes has `lcl_pad` more elements in each row (innermost
axis) than its box, so that work-items writing a column hit different banks (the copy's
extents stay the box's).
Reads (`view_load`) are redirected to the innermost copy, at `map(point) - origin`.
Where a private-tile loop is padded (`mdh_ir.schedule.tiling`), reads get `limits`: a point of
the padding reads at the dimension's last coordinate from global memory, at the local
tile's last from a local copy (where the padding reaches beyond it).
With `lcl_swizzle`, a local buffer whose rows hold a power of two of 16-byte chunks
(at least two) is marked `swizzle = n`: `lowlevel-swizzle-local` permutes the chunks of
each row by the index of axis `-n`, the one along which the 8 rows of a fragment load
step (`TilePlan.swizzled`, `swizzle_axis`).
A local copy whose innermost box extent is a multiple of 4 and whose layout keeps that
axis innermost moves 4 elements at a time (`lanes = 4`; into a swizzled buffer a 16-byte
chunk's worth where the rows allow: `TilePlan.copy_lanes`); with the option
`aligned_copies` (the GPU's lowering), 2 at a time where the source's rows leave 4
unaligned but 2 aligned: NVIDIA's OpenCL splits an unaligned vector into scalar loads
(H200, ms: f16 72 x 1762 x 5399 0.0665 -> 0.0588, bf16 225 x 638 x 444 0.0175 ->
0.0127, TF32 602 x 398 x 230 0.0194 -> 0.0111; of the 71 GPU defaults of the sweeps
and 200 random sizes with such rows 31 faster, 8 slower, at most bf16 batched
18 x 100 x 34 x 98 0.0107 -> 0.0136), while PoCL moves it as one (matmul 33 x 290 x
1694 0.455 -> 0.48 ms with pairs). One whose boxes lie inside the
buffer for every local tile (the tiles divide the sizes and the halo stays inside, as
in a GEMM of 4096^3 with tiles of 128) is marked `inside`, and moves without bounds
checks (H100, GEMM 4096^3 default configuration: 3.22 -> 3.07 ms); one whose boxes lie
inside along some axes only gets those as `inside_axes` (a GEMM of 2000^3 with tiles of
128 x 128 x 8: the k axis), which need no checks either.
Boundary modes are applied when copying from global memory.
An op of precision "tf32" rounds its inputs where they are read (`lowlevel.round_tf32`,
from `mdh-tile`); an input cached by copies is rounded by the copy from global memory
instead (`round = "tf32"`), once per element and tile, and its reads from the cache
lose their rounding (H100, TF32 matmul 128 x 4096 x 4096, FP32 FMAs on 128 x 128 local
tiles: 0.424 ms rounding every read of the 8 x 8 register tiles, against 0.114 ms for
the same configuration in IEEE precision). Computed on tensor-core fragments
(`mma = "tf32"`) with asynchronous copies (`prefetch = 3`: `cp.async` moves the bytes
as they are), the copies do not round either: the tensor cores read the f32 bits as
TF32, truncating them (a rounding rule the comparison allows, docs/reduced-precision.md).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import (
    INSIDE_ATTR,
    INSIDE_AXES_ATTR,
    LANES_ATTR,
    LCL,
    PRV,
    SOURCE_EXTENTS_ATTR,
    SWIZZLE_ATTR,
    BarrierOp,
    CopyOp,
    KernelOp,
    TileForOp,
    ROUND_ATTR,
    RoundTF32Op,
    ViewLoadOp,
    i64_array,
)
from mdh_ir.passes.assign_asm import tile_chain
from mdh_ir.passes.carried import carried
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.schedule.mma import MmaForm
from mdh_ir.schedule.tiling import Box, TilePlan


@dataclass
class Cache:
    """A copy of a buffer's box: the buffer, its origin (logical axes) and axis order."""

    buffer: SSAValue
    origin: list[SSAValue]
    perm: tuple[int, ...]
    extents: tuple[int, ...]


def box_origin(e: Emitter, box: Box, loops: list[TileForOp], tile: list[int]) -> list[SSAValue]:
    """Per logical axis, the smallest index a tile with these loops' tile starts reads."""
    by_dim = {loop.dim.value.data: loop for loop in loops}
    origin = []
    for axis in range(len(box.extents)):
        forms = [access[axis] for access in box.forms]
        low = min(f.const for f in forms)
        terms = [
            (c, by_dim[d].tile_start if c > 0 else e.add(by_dim[d].tile_start, tile[d] - 1))
            for d, c in enumerate(forms[0].coeffs)
            if c
        ]
        origin.append(e.linear(terms, low))
    return origin


def alloc(kernel: KernelOp, elem, shape: Sequence[int], space) -> SSAValue:
    """An array allocated at the start of `kernel`."""
    e = Emitter.at_start(kernel.body.block)
    return e.emit(memref.AllocaOp.get(elem, shape=shape, memory_space=space))


def swizzle_axis(plan: TilePlan, b: int, perm: tuple[int, ...]) -> int | None:
    """The axis of input b's swizzled local buffer whose index permutes its rows' chunks:
    the one along which a fragment load's 8 rows step (`MmaForm.row_axis`), so that
    they fall into different banks."""
    form = MmaForm.of(plan.op, plan.lookup_scope)
    assert isinstance(form, MmaForm), "rule lcl-swizzle: swizzled buffers are tensor-core fragments'"
    return form.row_axis(plan.op, b, perm)


def shifted_map(amap: AffineMap, cache: Cache) -> AffineMapAttr:
    """`map(point) - origin`, in the cache's axis order; origins are the symbols."""
    results = [amap.results[p] - AffineExpr.symbol(p) for p in cache.perm]
    return AffineMapAttr(AffineMap(amap.num_dims, len(amap.results), tuple(results)))


def promote(kernel: KernelOp, aligned_copies: bool = False) -> None:
    plan: TilePlan = carried(kernel, kernel.function_type.inputs.data)
    cfg, op = plan.cfg, plan.op
    args = kernel.body.block.args
    local, private = tile_chain(kernel, "lt"), tile_chain(kernel, "pt")
    caches: dict[int, Cache] = {}

    lt_body = local[-1].body.block
    lcl = plan.cached("lt")
    if lcl:
        e = Emitter.at_start(lt_body)
        worker = e.linear(
            [(stride, loop.part) for stride, loop in _strides(private, cfg.num_wi)]
        )
        for b in lcl:
            box = plan.box(b, "lt")
            perm = cfg.buf_layout[0][b]
            cache = Cache(
                alloc(kernel, op.input_element_types[b], plan.local_shape(b), LCL),
                box_origin(e, box, local, list(cfg.lt_size)),  # type: ignore[arg-type]
                perm,
                box.extents,  # type: ignore[union-attr]
            )
            rank = len(cache.origin)
            copy = CopyOp(args[b], cache.buffer, cache.origin, cache.extents, tuple(range(rank)),
                          perm, op.boundaries[b], worker, plan.wg_size)  # fmt: skip
            if plan.swizzled(b) and (axis := swizzle_axis(plan, b, perm)) is not None:
                cache.buffer.owner.attributes[SWIZZLE_ATTR] = IntegerAttr(rank - axis, 64)  # type: ignore[union-attr]
            lanes = plan.copy_lanes(b, aligned_copies)
            if rank and lanes > 1 and perm[-1] == rank - 1:
                copy.attributes[LANES_ATTR] = IntegerAttr(lanes, 64)
            inside = [a for a, yes in enumerate(plan.inside_axes(b)) if yes]
            if len(inside) == rank:
                copy.attributes[INSIDE_ATTR] = UnitAttr()
            elif inside:
                copy.attributes[INSIDE_AXES_ATTR] = i64_array(inside)
            e.op(copy)
            caches[b] = cache
        if plan.wg_size > 1:
            e.op(BarrierOp())
            Emitter.at_end(lt_body).op(BarrierOp())

    pt_body = private[-1].body.block
    e = Emitter.at_start(pt_body)
    for b in plan.cached("pt"):
        box = plan.box(b, "pt")
        perm = cfg.buf_layout[1][b]
        origin = box_origin(e, box, private, list(cfg.pt_size))  # type: ignore[arg-type]
        cache = Cache(
            alloc(kernel, op.input_element_types[b], box.shape(perm), PRV),  # type: ignore[arg-type]
            origin,
            perm,
            box.extents,  # type: ignore[union-attr]
        )
        source, base, source_perm, mode = args[b], origin, tuple(range(len(origin))), op.boundaries[b]
        if b in caches:
            outer = caches[b]
            source, source_perm, mode = outer.buffer, outer.perm, "none"
            base = [e.sub(o, p) for o, p in zip(origin, outer.origin)]
        zero = e.const(0)
        copy = e.op(CopyOp(source, cache.buffer, base, cache.extents, source_perm, perm, mode, zero, 1))
        if b in caches and copy.source_extents() != list(caches[b].extents):
            copy.attributes[SOURCE_EXTENTS_ATTR] = i64_array(caches[b].extents)
        caches[b] = cache

    limits = ReadLimits(plan, {loop.dim.value.data: loop for loop in local}, lt_body)
    for load in list(kernel.walk()):
        if isinstance(load, ViewLoadOp) and load.source in args[: len(op.inputs)]:
            b = args.index(load.source)
            cache = caches.get(b)
            where = "glb" if cache is None else "prv" if b in plan.cached("pt") else "lcl"
            bounds = limits.of(where, load.map, load.dims)
            if cache is None and not bounds:
                continue
            if cache is None:
                new = ViewLoadOp(load.source, load.dims, load.syms, load.map, load.boundary.data, limits=bounds)
            else:
                amap = shifted_map(load.map.data, cache)
                new = ViewLoadOp(cache.buffer, load.dims, cache.origin, amap, "none", limits=bounds)
            Emitter.before(load).op(new)
            load.results[0].replace_all_uses_with(new.result)
            load.detach()
            load.erase()
    if op.input_precision == "tf32":
        truncated = cfg.mma == "tf32" and cfg.prefetch == 3
        round_at_copies(kernel, {cache.buffer for cache in caches.values()}, not truncated)


def round_at_copies(kernel: KernelOp, cached: set[SSAValue], copies_round: bool) -> None:
    """The copies from global memory into the `cached` buffers round to TF32 where
    `copies_round`, and the reads of those buffers no longer do (module docstring)."""
    for copy in kernel.walk():
        if copies_round and isinstance(copy, CopyOp) and copy.dest in cached and copy.source not in cached:
            copy.attributes[ROUND_ATTR] = StringAttr("tf32")
    for rounding in list(kernel.walk()):
        if not isinstance(rounding, RoundTF32Op):
            continue
        read = rounding.input.owner
        if isinstance(read, ViewLoadOp) and read.source in cached:
            rounding.result.replace_all_uses_with(rounding.input)
            rounding.detach()
            rounding.erase()


class ReadLimits:
    """Per memory a read goes to ("glb", "lcl", "prv") and padded dimension whose
    padding could read outside it, the largest coordinate a point may read at: the last
    of the dimension (global memory), of the local tile (a local copy holds the box of
    its points); a private copy holds its padded tile's box: no limit. Made once, at
    the start of the innermost local-tile loop, where first asked for."""

    def __init__(self, plan: TilePlan, local: dict[int, TileForOp], lt_body: Block):
        self.plan, self.local, self.lt_body = plan, local, lt_body
        self.made: dict[tuple[str, int], SSAValue | None] = {}

    def of(self, where: str, amap: AffineMapAttr, dims: Sequence[SSAValue]) -> list[SSAValue]:
        """The `limits` of a read from `where` through `amap` at `dims`: per dim, its
        limit, or the dim itself where it has none or the map does not use it; none
        where no dim has one."""
        used = amap.data.used_dims()
        bounds = [self.get(where, d) if d in used else None for d in range(len(dims))]
        if all(b is None for b in bounds):
            return []
        return [x if b is None else b for b, x in zip(bounds, dims)]

    def get(self, where: str, d: int) -> SSAValue | None:
        if (where, d) not in self.made:
            self.made[where, d] = self.make(where, d)
        return self.made[where, d]

    def make(self, where: str, d: int) -> SSAValue | None:
        plan, lt = self.plan, self.plan.cfg.lt_size[d]
        if not plan.padded(d) or where == "prv":
            return None
        e = Emitter.at_start(self.lt_body)
        if where == "glb":
            return e.const(plan.sizes[d] - 1)
        if plan.padded_reach(d) > lt:
            return e.add(self.local[d].tile_start, lt - 1)
        return None


def _strides(loops: list[TileForOp], counts) -> list[tuple[int, TileForOp]]:
    """(stride, loop) for a row-major linear id over the dimensions' part ids."""
    by_dim = sorted(loops, key=lambda lp: lp.dim.value.data)
    result, stride = [], 1
    for loop in reversed(by_dim):
        d = loop.dim.value.data
        if counts[d] > 1:
            result.append((stride, loop))
            stride *= counts[d]
    return result


@dataclass(frozen=True)
class MDHPromoteMemory(ModulePass):
    name = "mdh-promote-memory"

    aligned_copies: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            promote(kernel, self.aligned_copies)
