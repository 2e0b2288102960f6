"""`mdh-vectorize`: apply `vector_width` and `unroll` (DESIGN.md section 5.6).

With `vector_width` N > 1, the innermost element loop of the computation (over the
last dimension of `loop_order[1]`, a kept dimension; rule `vector-width`) steps over N
elements at a time and its body computes on N-lane vectors:

- a read whose view moves along that dimension becomes a vector `view_load` of N
  consecutive elements (its limit along it, if any, N - 1 lower: the vector starts
  at most there); other reads stay scalar and are broadcast where a vector needs
  them; the body of an `scf.if` on a scalar condition (a padded tile's guard) is
  vectorized like the loop's;
- the scalar and combine functions are called in vector versions (`@f_vN`, the same
  body on vector types; an i1 lane becomes an OpenCL mask, -1 or 0 in an integer of the
  compared values' width: compares, selects and casts become `lowlevel.mask_compare`,
  `mask_select` and `convert`, and masks are converted where widths meet);
- the accumulator (a private array whose last axis is that loop) is re-allocated with
  N-lane vector elements and read and written one vector at a time; the scalar code
  around the loop (fill, flush) uses a `lowlevel.view` of it as scalars, so it keeps
  working unchanged (and compilers keep the vectors in registers); direct writes to an
  output (no pw dimension, or `res_mem` "glb") become vector stores;
- with the option `flush` (on by default), an element loop over the same dimension
  outside the computation that only moves such an accumulator to memory read
  contiguously along it (the flush) steps N elements too, with vector loads and stores
  (tensor contraction on PoCL, 37.7M outputs from 24 products each: 40 -> 33 ms).
  `lower-to-opencl` turns it off for GPUs: on the H100 the GEMM's vector stores raised
  ptxas's count from 127 to 179 registers per work-item, one work-group per SM instead
  of two (4096^3: 4.38 -> 6.38 ms).

Where the dimension's size or lt_size is not a multiple of N (`TilePlan.partial_vectors`;
its private-tile loop is padded), a vector may hold both points of its local tile and
padding. Each vectorized loop's body is then split (`scf.if`): a vector that ends inside
its local tile runs the vector body, whose reads along the dimension need no limit; one
that ends beyond runs the scalar body for each of its N points in turn (`scf.for`), with
the padded tile's limits and guards, at its own accumulator element (through the scalar
view) or lane (a lane accumulator's scalar view). Matmul 1023^3 on PoCL, the CPU
default's register tile of 3 x 16: no vectors (33 columns) 199 ms; vectors of 16, the
last of each row split, 14.8 ms (1024^3: 12.0; numpy 12.9).

The innermost loop may also be over a pw dimension (rule `vector-width`: private
accumulators, a combine function with a known identity). Then each lane accumulates
its own elements: the accumulators are re-allocated with N-lane elements, filled with
the identity in every lane, updated one vector at a time in the loop, and wherever the
scalar code reads them (the flush) the lanes are combined in a tree of `vector.extract`s.

An epilogue's reads (`mdh-place-combine`) at a point's store (no pw dimension) are
vectorized like the computation's (rule `vector-width`: contiguous along the dimension,
or not moving with it); a flush that applies an epilogue stays scalar.

With `unroll` U > 1, the element loops of the computation carry `unroll = U`, printed as
`#pragma unroll U`.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, VectorType, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from mdh_ir.dialects.lowlevel import (
    UNROLL_ATTR,
    ConvertOp,
    FillOp,
    KernelOp,
    MaskCompareOp,
    MaskSelectOp,
    TileForOp,
    ViewLoadOp,
    ViewOp,
    bit_width,
    mask_type,
    memory_space,
)
from mdh_ir.dialects.mdh import Combine
from mdh_ir.dialects.scalar_ops import CASTS, I1, LOGIC
from mdh_ir.passes.assign_asm import tile_chain
from mdh_ir.passes.carried import carried
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.place_combine import combine_values


def vector_of(t: Attribute, lanes: int) -> VectorType:
    return t if isinstance(t, VectorType) else VectorType(t, [lanes])


def moves_with(index: SSAValue, lane0: SSAValue) -> bool:
    """Whether `index` is `lane0` plus terms that do not depend on it (a linearized
    index whose last term is the vectorized dimension), so consecutive lanes are
    consecutive elements."""
    owner = index.owner
    if index is lane0:
        return True
    if not isinstance(owner, arith.AddiOp):
        return False
    a, b = owner.operands
    return any(moves_with(x, lane0) and not depends_on(y, lane0) for x, y in ((a, b), (b, a)))


def depends_on(value: SSAValue, lane0: SSAValue) -> bool:
    """Whether `value` is computed from `lane0`."""
    owner = value.owner
    return value is lane0 or (
        isinstance(owner, Operation) and any(depends_on(o, lane0) for o in owner.operands)
    )


PREDICATE_OPS = (arith.CmpfOp, arith.CmpiOp, arith.SelectOp, *CASTS)
"""The ops whose vector form `Vectorizer.predicate_op` makes (with logic ops on i1)."""


class Vectorizer:
    """Rewrites ops of one block to N lanes; `lanes_of` maps scalar values to vectors."""

    def __init__(self, module: ModuleOp, lanes: int, partial: bool = False):
        self.module, self.lanes, self.partial = module, lanes, partial
        """`partial`: the loops are split (`split_partial`), vectors lie inside their
        local tiles."""
        self.vector_arrays: dict[SSAValue, SSAValue] = {}
        self.lane_accumulators: dict[SSAValue, SSAValue] = {}

    def vector_array(self, array: SSAValue) -> SSAValue:
        """A private array re-allocated with N-lane elements along its last axis; the
        scalar code keeps a `lowlevel.view` of it."""
        if array in self.vector_arrays:
            return self.vector_arrays[array]
        alloca = array.owner
        assert isinstance(alloca, memref.AllocaOp)
        t = array.type
        shape = [*t.get_shape()[:-1], t.get_shape()[-1] // self.lanes]  # type: ignore
        wide = memref.AllocaOp.get(
            VectorType(t.element_type, [self.lanes]), shape=shape, memory_space=t.memory_space  # type: ignore
        )
        view = ViewOp(wide.memref, t)  # type: ignore[arg-type]
        Rewriter.insert_op([wide, view], InsertPoint.before(alloca))
        array.replace_all_uses_with(view.result)
        alloca.detach()
        alloca.erase()
        self.vector_arrays[view.result] = wide.memref
        return wide.memref

    def split_lanes(self, loop: TileForOp, combine: Combine) -> None:
        """Give each lane of `loop` (over a pw dimension) its own accumulators: the private
        arrays updated in its body get N-lane elements; outside the loop, fills broadcast
        and reads combine the lanes."""
        updated = {
            op.memref for op in loop.walk()
            if isinstance(op, memref.StoreOp) and memory_space(op.memref.type) == "prv"
        }  # fmt: skip
        for acc in updated:
            alloca = acc.owner
            assert isinstance(alloca, memref.AllocaOp)
            t = acc.type
            lanes = vector_of(t.element_type, self.lanes)  # type: ignore[attr-defined]
            wide = memref.AllocaOp.get(lanes, shape=t.get_shape(), memory_space=t.memory_space)  # type: ignore
            Rewriter.insert_op(wide, InsertPoint.before(alloca))
            self.lane_accumulators[acc] = wide.memref
            for use in list(acc.uses):
                if not loop.is_ancestor(use.operation):
                    self.outside_use(use.operation, wide.memref, combine)

    def split_partial(self, loop: TileForOp, local: TileForOp) -> Block:
        """Split the body of `loop` (stepping N elements) where a vector may end beyond
        its local tile (`TilePlan.partial_vectors`; `local`: the local-tile loop of its
        dimension): a vector that ends at the local tile's end or before runs the body,
        to be vectorized (returned); one that ends beyond runs the scalar body for each
        of its N points in turn, with the limits and guards of the padded tile (each
        point at its own accumulator element, or lane of a lane accumulator)."""
        block, lanes = loop.body.block, self.lanes
        step, lane0, size = block.args
        ops = list(block.ops)
        for op in ops:
            op.detach()
        e = Emitter.at_end(block)
        whole = e.cmp("sle", e.add(lane0, lanes), e.add(local.tile_start, local.tile_size))
        vector_body, scalar_body = Block([scf.YieldOp()]), Block([scf.YieldOp()])
        e.op(scf.IfOp(whole, [], Region(vector_body), Region(scalar_body)))
        for op in ops:
            vector_body.insert_op_before(op, vector_body.last_op)  # type: ignore[arg-type]
        lane, r = Emitter(InsertPoint.before(scalar_body.last_op)).for_(0, lanes)  # type: ignore[arg-type]
        point = {step: r.add(r.mul(step, lanes), lane), lane0: r.add(lane0, lane), size: r.const(1)}
        for op in ops:
            r.op(op.clone(point))
        for acc, wide in self.lane_accumulators.items():
            self.lane_uses(acc, wide, lane)
        return vector_body

    def lane_uses(self, acc: SSAValue, wide: SSAValue, lane: SSAValue) -> None:
        """Point the loads and stores of scalar accumulator `acc` in the loop over
        `lane` to that lane of its lane accumulator `wide` (through a scalar view)."""
        t, view, scalar_loop = wide.type, None, lane.owner.parent_op()  # type: ignore[union-attr]
        for use in list(acc.uses):
            op = use.operation
            if not scalar_loop.is_ancestor(op):
                continue
            assert isinstance(op, memref.LoadOp | memref.StoreOp), f"accumulator used by {op.name}"
            if view is None:
                shape = [*t.get_shape(), self.lanes]  # type: ignore[attr-defined]
                scalars = MemRefType(acc.type.element_type, shape, memory_space=t.memory_space)  # type: ignore
                view = Emitter(InsertPoint.after(wide.owner)).emit(ViewOp(wide, scalars))  # type: ignore
            indices = [*op.indices, lane]
            new = memref.LoadOp.get(view, indices) if isinstance(op, memref.LoadOp) else memref.StoreOp.get(op.value, view, indices)
            Rewriter.replace_op(op, new)

    def outside_use(self, op: Operation, wide: SSAValue, combine: Combine) -> None:
        e = Emitter.before(op)
        if isinstance(op, FillOp):
            e.op(FillOp(wide, e.emit(vector.BroadcastOp(op.value, wide.type.element_type))))  # type: ignore
        else:
            assert isinstance(op, memref.LoadOp), f"accumulator used by {op.name}"
            lanes = e.emit(memref.LoadOp.get(wide, op.indices))
            parts = [e.emit(vector.ExtractOp(lanes, [i], op.res.type)) for i in range(self.lanes)]
            while len(parts) > 1:
                parts = [combine_values(e, combine, [a], [b])[0] for a, b in zip(parts[::2], parts[1::2])]
            op.res.replace_all_uses_with(parts[0])
        op.detach()
        op.erase()

    def widen(self, e: Emitter, value: SSAValue, lanes_of: dict[SSAValue, SSAValue]) -> SSAValue:
        if value in lanes_of:
            return lanes_of[value]
        if value.type == I1:
            value = e.emit(arith.ExtSIOp(value, i32))
        return e.emit(vector.BroadcastOp(value, vector_of(value.type, self.lanes)))

    def block(self, block: Block, lanes_of: dict[SSAValue, SSAValue], lane0=None, step=None) -> None:
        """Vectorize the data flow of `block`; `lane0` is the vectorized point index,
        `step` the loop step indexing the accumulator's last axis."""
        replaced = []
        for op in list(block.ops):
            new = self.op(op, lanes_of, lane0, step)
            if new is None:
                continue
            Rewriter.insert_op(new, InsertPoint.before(op))
            for old, res in zip(op.results, new.results):
                lanes_of[old] = res
            replaced.append(op)
        for op in reversed(replaced):
            op.detach()
            op.erase()

    def op(self, op: Operation, lanes_of, lane0, step) -> Operation | None:
        e = Emitter.before(op)
        if isinstance(op, ViewLoadOp):
            position = list(op.dims).index(lane0) if lane0 in op.dims else None
            if position is None or position not in op.map.data.used_dims():
                return None
            limits = list(op.limits)
            if limits and limits[position] is not lane0:
                limits[position] = lane0 if self.partial else e.sub(limits[position], self.lanes - 1)
                if all(limit is dim for limit, dim in zip(limits, op.dims)):
                    limits = []
            return ViewLoadOp(op.source, op.dims, op.syms, op.map, op.boundary.data, self.lanes, limits)
        if isinstance(op, scf.IfOp) and op.cond not in lanes_of:
            self.block(op.true_region.block, lanes_of, lane0, step)
            return None
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            return self.memory(e, op, lanes_of, lane0, step)
        varying = [o for o in op.operands if o in lanes_of]
        if not varying:
            return None
        if isinstance(op, func.CallOp):
            callee = self.function(op.callee.root_reference.data)
            args = [self.widen(e, a, lanes_of) for a in op.arguments]
            return func.CallOp(callee, args, [vector_of(r.type, self.lanes) for r in op.results])
        if isinstance(op, func.ReturnOp):
            return func.ReturnOp(*[self.widen(e, a, lanes_of) for a in op.arguments])
        if isinstance(op, arith.SelectOp) and op.cond not in lanes_of:
            operands = [op.cond] + [self.widen(e, a, lanes_of) for a in (op.lhs, op.rhs)]
        else:
            operands = [self.widen(e, a, lanes_of) for a in op.operands]
        if isinstance(op, PREDICATE_OPS) or (isinstance(op, LOGIC) and op.results[0].type == I1):
            return self.predicate_op(e, op, operands)
        return type(op).create(
            operands=operands,
            result_types=[vector_of(r.type, self.lanes) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )

    def predicate_op(self, e: Emitter, op: Operation, operands: list[SSAValue]) -> Operation:
        """The vector form of a compare, select, cast, or logic op on i1: an i1 lane is
        an OpenCL mask (-1 or 0 in an integer of the width it was compared at)."""
        if isinstance(op, arith.CmpfOp | arith.CmpiOp):
            floats = isinstance(op, arith.CmpfOp)
            names = arith.CMPF_COMPARISON_OPERATIONS if floats else arith.CMPI_COMPARISON_OPERATIONS
            return MaskCompareOp(names[op.predicate.value.data], *operands)
        if isinstance(op, arith.SelectOp):
            cond, lhs, rhs = operands
            if op.lhs.type == I1:
                lhs, rhs = same_masks(e, lhs, rhs)
            if cond is op.cond:
                return arith.SelectOp(cond, lhs, rhs)
            return MaskSelectOp(resize_mask(e, cond, mask_type(lhs.type)), lhs, rhs)  # type: ignore
        if isinstance(op, LOGIC):
            return type(op)(*same_masks(e, *operands))
        source, result = op.operands[0].type, op.results[0].type
        value = operands[0]
        if result == I1:
            bits = e.emit(arith.AndIOp(value, self.splat(e, 1, value.type)))
            return MaskCompareOp("ne", bits, self.splat(e, 0, value.type))
        if source == I1 and isinstance(op, arith.ExtUIOp | arith.UIToFPOp):
            value = e.emit(arith.AndIOp(value, self.splat(e, 1, value.type)))
        unsigned = isinstance(op, arith.ExtUIOp | arith.UIToFPOp) and source != I1
        return ConvertOp(value, vector_of(result, self.lanes), unsigned)

    def splat(self, e: Emitter, value: int, t: Attribute) -> SSAValue:
        """`value` in every lane of integer vector type `t`."""
        assert isinstance(t, VectorType)
        return e.emit(vector.BroadcastOp(e.const(value, t.element_type), t))

    def memory(self, e: Emitter, op, lanes_of, lane0, step) -> Operation | None:
        """Accumulator entries (last index `step`) and output elements (an index `lane0`)."""
        indices = list(op.indices)
        if op.memref in self.lane_accumulators:
            wide = self.lane_accumulators[op.memref]
            if isinstance(op, memref.LoadOp):
                return memref.LoadOp.get(wide, indices)
            return memref.StoreOp.get(self.widen(e, op.value, lanes_of), wide, indices)
        private = memory_space(op.memref.type) == "prv"
        if private and indices and indices[-1] is step:
            wide = self.vector_array(op.memref)
            if isinstance(op, memref.LoadOp):
                return memref.LoadOp.get(wide, indices)
            return memref.StoreOp.get(self.widen(e, op.value, lanes_of), wide, indices)
        if private or not indices or not moves_with(indices[-1], lane0):
            assert not any(depends_on(i, lane0) for i in indices), "lanes not contiguous"
            return None
        if isinstance(op, memref.LoadOp):
            return vector.LoadOp(op.memref, indices, vector_of(op.res.type, self.lanes))
        return vector.StoreOp(self.widen(e, op.value, lanes_of), op.memref, indices)

    def function(self, name: str) -> str:
        """The N-lane version of scalar function `name` (made once per module)."""
        wide = f"{name}_v{self.lanes}"
        if SymbolTable.lookup_symbol(self.module, wide) is not None:
            return wide
        f = SymbolTable.lookup_symbol(self.module, name)
        assert isinstance(f, func.FuncOp)
        clone = f.clone()
        block = Block(arg_types=[vector_of(t, self.lanes) for t in f.function_type.inputs])
        lanes_of = dict(zip(clone.body.block.args, block.args))
        for op in list(clone.body.block.ops):
            op.detach()
            block.add_op(op)
        self.block(block, lanes_of)
        outputs = [vector_of(t, self.lanes) for t in f.function_type.outputs]
        wide_func = func.FuncOp(wide, ([a.type for a in block.args], outputs), Region(block))
        Rewriter.insert_op(wide_func, InsertPoint.after(f))
        return wide


def resize_mask(e: Emitter, mask: SSAValue, t: VectorType) -> SSAValue:
    """`mask` as a mask of type `t` (-1 stays -1 in a signed conversion)."""
    return mask if mask.type == t else e.emit(ConvertOp(mask, t))


def same_masks(e: Emitter, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Masks `a` and `b` at the wider of their widths."""
    t = max(a.type, b.type, key=lambda m: bit_width(m.element_type))  # type: ignore[attr-defined]
    return resize_mask(e, a, t), resize_mask(e, b, t)  # type: ignore[arg-type]


def vector_flush(loop: TileForOp, arrays: dict[SSAValue, SSAValue]) -> bool:
    """Whether element loop `loop` moves accumulators in `arrays` (scalar views of
    vector arrays, indexed by the loop's step last) to or from memory indexed by its
    point last, with nothing else depending on the loop."""
    lane0, step, moved = loop.tile_start, loop.step, False
    for op in loop.body.walk():
        if isinstance(op, TileForOp | ViewLoadOp):
            return False
        if not isinstance(op, memref.LoadOp | memref.StoreOp):
            continue
        *outer, last = op.indices
        if any(depends_on(i, lane0) or depends_on(i, step) for i in outer):
            return False
        if memory_space(op.memref.type) == "prv":
            if op.memref not in arrays or last is not step:
                return False
            moved = True
        elif not moves_with(last, lane0):
            return False
    return moved


def step_lanes(loop: TileForOp, lanes: int) -> None:
    loop.tile = IntegerAttr(lanes, 64)
    loop.max_trips = IntegerAttr(loop.max_trips.value.data // lanes, 64)


def vectorize(kernel: KernelOp, module: ModuleOp, flush: bool) -> None:
    plan = carried(kernel, kernel.function_type.inputs.data)
    cfg = plan.cfg
    first_extra = len(plan.op.inputs) + len(plan.op.outputs)
    extra = set(kernel.body.block.args[first_extra : first_extra + len(plan.op.epilogue_inputs)])
    elements = [
        loop for loop in tile_chain(kernel, "el")
        if any(isinstance(o, ViewLoadOp) and o.source not in extra for o in loop.walk())
    ]  # fmt: skip
    if not elements:
        return
    if cfg.unroll > 1:
        for loop in elements:
            loop.attributes[UNROLL_ATTR] = IntegerAttr(cfg.unroll, 64)
    lanes = cfg.vector_width
    if lanes == 1:
        return
    inner = elements[-1]
    step_lanes(inner, lanes)
    d = inner.dim.value.data
    vectorizer = Vectorizer(module, lanes, plan.partial_vectors(d))
    local = next(loop for loop in tile_chain(kernel, "lt") if loop.dim.value.data == d)

    def vector_body(loop: TileForOp) -> Block:
        return vectorizer.split_partial(loop, local) if vectorizer.partial else loop.body.block

    if plan.kind(d) == "pw":
        vectorizer.split_lanes(inner, plan.combines[d])
    vectorizer.block(vector_body(inner), {}, inner.tile_start, inner.step)
    flushes = [
        loop for loop in tile_chain(kernel, "el")
        if loop.dim.value.data == d and not inner.is_ancestor(loop)
        and vector_flush(loop, vectorizer.vector_arrays)
    ] if flush else []  # fmt: skip
    for loop in flushes:
        step_lanes(loop, lanes)
        vectorizer.block(vector_body(loop), {}, loop.tile_start, loop.step)
    for acc in vectorizer.lane_accumulators:
        acc.owner.detach()
        acc.owner.erase()


@dataclass(frozen=True)
class MDHVectorize(ModulePass):
    name = "mdh-vectorize"

    flush: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            if any(isinstance(o, ViewLoadOp) for loop in tile_chain(kernel, "el") for o in loop.walk()):
                vectorize(kernel, op, self.flush)
