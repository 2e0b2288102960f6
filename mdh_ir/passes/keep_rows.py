"""`mdh-keep-rows`: a kernel group's row statistics and rows kept on chip across its phases.

The phases of an op with row statistics (`mdh-split-stats`) are the kernels of one kernel
group, later one kernel (`lowlevel-merge-kernels`); each reads its rows from global memory
and the statistics the earlier phases wrote there. Where it is proven, this pass makes the
later phases read them from arrays that the work-group or the work-item already holds:

- **Statistics in local memory.** A phase whose work-items share each row (pw work-items:
  `mdh-place-combine` combines their partial results in a tree in local memory) and flushes
  its accumulator once (every loop outside its scope one trip: the work-group's rows are
  one local tile) leaves each row's value in its scratch array at [0, kept work-item,
  accumulator steps], where it reads it to store it to the output. A later phase of the
  same decomposition reads it there: each scalar read of the statistic at its point reads
  the local array at the position of its own kept work-item and loops.
- **Rows in private memory.** A buffer that several phases read and none writes, read by
  the first one in one `view_load` under its tile loops alone: the first stores each
  value it reads into a private array with one axis per enclosing loop (its `max_trips`;
  vector values where `mdh-vectorize` made them), and a later phase's read of the buffer
  at the same position of the same loops (`signature`) reads the array. Only where the
  array holds at most `KEPT_ELEMS` scalars a work-item (registers); else each phase reads
  the buffer again (from the caches where the row fits).

The kernels are still separate: a later phase reads a placeholder `memref.alloca` marked
`kept = N` (`lowlevel.KEPT_ATTR`, N: its argument position of the buffer the array stands
for), and the array of the first phase is marked the same way; `lowlevel-merge-kernels`
makes the marked arrays of one host buffer the first phase's. The statistic's stores to
global memory stay (one per row). 8192 x 128 softmax on the GPU default (32 rows of 8
work-items a work-group, 4 float4 a work-item a phase): x read once instead of 3 times,
no statistic read from global memory, the barriers between the phases local:

    %x_kept = memref.alloca() {kept = 0 : i64} : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
    ...  %v = lowlevel.view_load %x[...]            (phase 1: max)
         memref.store %v, %x_kept[steps]
    ...  %m = memref.load %scratch[0, kept, steps]  (phase 2: the max of its row)
         %v = memref.load %x_kept[steps]

Runs after `mdh-vectorize`, before `lowlevel-prefetch` (`lower-to-opencl`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, VectorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from mdh_ir.dialects.lowlevel import (
    KEPT_ATTR, PRV, GroupIdOp, KernelOp, LaunchOp, LocalIdOp, TileForOp, ViewLoadOp, memory_space,
)  # fmt: skip
from mdh_ir.passes.carried import carried
from mdh_ir.passes.emit import Emitter, constant_value
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.merge_kernels import kernel_groups
from mdh_ir.passes.place_combine import linear_id
from mdh_ir.schedule.tiling import TilePlan

KEPT_ELEMS = 32
"""Scalars a work-item keeps of a row buffer in private memory at most (registers)."""

DECOMPOSITION = ("num_wg", "num_wi", "lt_size", "pt_size", "ocl_dim", "loop_order")
"""The configuration's entries that place every point on a work-item and its loop steps."""


class Phase:
    """One kernel of a group and the host buffers of its arguments."""

    def __init__(self, kernel: KernelOp, launch: LaunchOp):
        self.kernel = kernel
        self.host = list(launch.args)
        self.plan: TilePlan = carried(kernel, kernel.function_type.inputs.data)

    def args_of(self, buffer: SSAValue) -> list[BlockArgument]:
        block = self.kernel.body.block
        return [block.args[i] for i, h in enumerate(self.host) if h is buffer]

    def reads(self, buffer: SSAValue) -> list[ViewLoadOp]:
        return [u.operation for a in self.args_of(buffer) for u in a.uses if isinstance(u.operation, ViewLoadOp)]

    def writes(self, buffer: SSAValue) -> bool:
        written = self.kernel.written()
        return any(a in written for a in self.args_of(buffer))

    def same_decomposition(self, other: Phase) -> bool:
        return self.plan.sizes == other.plan.sizes and all(
            getattr(self.plan.cfg, k) == getattr(other.plan.cfg, k) for k in DECOMPOSITION
        )

    def placeholder(self, buffer: SSAValue, t: MemRefType) -> SSAValue:
        """A marked array of type `t` standing for `buffer`'s kept values (module docstring)."""
        alloca = memref.AllocaOp.get(t.element_type, shape=t.get_shape(), memory_space=t.memory_space)
        mark(alloca, self.host.index(buffer))
        Rewriter.insert_op(alloca, Emitter.at_start(self.kernel.body.block).ip)
        return alloca.memref


def mark(alloca: Operation, position: int) -> None:
    alloca.attributes[KEPT_ATTR] = IntegerAttr(position, 64)


def ancestors(op: Operation) -> list[Operation]:
    """The ops around `op` inside its kernel, innermost first."""
    found, parent = [], op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        found.append(parent)
        parent = parent.parent_op()
    return found


def tile_loops(op: Operation) -> list[TileForOp]:
    """The `tile_for` loops around `op`, outermost first."""
    return [a for a in reversed(ancestors(op)) if isinstance(a, TileForOp)]


# --- statistics in local memory -------------------------------------------------------


def final_scratch(phase: Phase, output: BlockArgument) -> SSAValue | None:
    """The local array whose element [0, kept work-item, steps] holds the final value of
    `output` (module docstring), or None."""
    plan = phase.plan
    if not (
        plan.accumulates and plan.cross_wi and plan.cfg.res_mem[0] == "prv" and plan.pw_groups == 1
        and plan.op.epilogue is None and all(plan.max_trips(*lp) == 1 for lp in plan.nest[: plan.scope_start])
    ):  # fmt: skip
        return None
    stores = [u.operation for u in output.uses]
    if len(stores) != 1 or not isinstance(stores[0], memref.StoreOp):
        return None
    load = stores[0].value.owner
    if not isinstance(load, memref.LoadOp) or constant_value(load.indices[0]) != 0:
        return None
    scratch = load.memref
    if not isinstance(scratch.owner, memref.AllocaOp) or memory_space(scratch.type) != "lcl":
        return None
    return scratch


def read_statistic(read: ViewLoadOp, writer: TilePlan, output: int, scratch: SSAValue) -> bool:
    """Replace a scalar read of statistic `output` of `writer` at its point by a read of
    `scratch` at the point's place in it; whether it did."""
    loops = {(lp.layer.data, lp.dim.value.data): lp for lp in tile_loops(read)}
    kept = writer.kept_dims
    needed = [("pt", d) for d in kept] + [("el", d) for d in kept] + list(writer.acc_loops)
    if (
        isinstance(read.result.type, VectorType) or read.syms or any(lp not in loops for lp in needed)
        or read.map.data != writer.op.output_maps[output]
        or any(read.dims[d] is not loops[("el", d)].tile_start for d in kept)
    ):  # fmt: skip
        return False
    e = Emitter.before(read)
    kept_lin = linear_id(e, [loops[("pt", d)].part for d in kept], [writer.cfg.num_wi[d] for d in kept])
    steps = [loops[lp].step for lp in writer.acc_loops] or [e.const(0)]
    Rewriter.replace_op(read, [], [e.load(scratch, [e.const(0), kept_lin, *steps])])
    return True


def keep_statistics(phases: list[Phase]) -> None:
    for n, writer in enumerate(phases):
        first_output = len(writer.plan.op.inputs)
        for k in range(len(writer.plan.op.outputs)):
            output = writer.kernel.body.block.args[first_output + k]
            scratch = final_scratch(writer, output)
            if scratch is None:
                continue
            buffer = writer.host[output.index]
            kept = False
            for reader in phases[n + 1 :]:
                if not reader.same_decomposition(writer):
                    continue
                stand_in = None
                for read in reader.reads(buffer):
                    stand_in = stand_in or reader.placeholder(buffer, scratch.type)  # type: ignore[arg-type]
                    if read_statistic(read, writer.plan, k, stand_in):
                        kept = True
                if stand_in is not None and not stand_in.uses:
                    Rewriter.erase_op(stand_in.owner)  # type: ignore[arg-type]
            if kept:
                mark(scratch.owner, output.index)  # type: ignore[arg-type]


# --- rows in private memory ---------------------------------------------------------------


def signature(value: SSAValue, loops: list[TileForOp]) -> tuple | None:
    """What `value` is in terms of `loops` (outermost first): one of their block
    arguments, a constant, a work-group or work-item id; None for anything else."""
    if isinstance(value, BlockArgument) and value.block.parent_op() in loops:
        return ("loop", loops.index(value.block.parent_op()), value.index)  # type: ignore[arg-type]
    if (c := constant_value(value)) is not None:
        return ("const", c)
    if isinstance(value.owner, GroupIdOp | LocalIdOp):
        return (value.owner.name, value.owner.dim.value.data)
    return None


def read_signature(read: ViewLoadOp) -> tuple | None:
    """The loops around `read` and its position in them, where every part is known."""
    loops = tile_loops(read)
    parts = [
        (lp.layer.data, lp.dim.value.data, lp.tile.value.data, lp.parts.value.data, lp.max_trips.value.data,
         lp.padded is not None, *(signature(v, loops[:i]) for v in (lp.start, lp.size, lp.part)))
        for i, lp in enumerate(loops)
    ]  # fmt: skip
    position = [signature(v, loops) for v in [*read.dims, *read.syms, *read.limits]]
    found = (tuple(parts), len(read.dims), len(read.syms), tuple(position), read.map.data, read.boundary.data, read.result.type)
    return None if None in position or any(None in p for p in parts) else found


def keep_rows(phases: list[Phase]) -> None:
    for buffer in dict.fromkeys(h for p in phases for h in p.host):
        readers = [p for p in phases if p.reads(buffer)]
        if len(readers) < 2 or any(p.writes(buffer) for p in phases):
            continue
        first = readers[0]
        (read, *others) = first.reads(buffer)
        if others or any(not isinstance(o, TileForOp) for o in ancestors(read)):
            continue
        sig = read_signature(read)
        loops = tile_loops(read)
        shape = [lp.max_trips.value.data for lp in loops]
        element = read.result.type
        lanes = element.get_shape()[0] if isinstance(element, VectorType) else 1
        if sig is None or prod(shape) * lanes > KEPT_ELEMS:
            continue
        t = MemRefType(element, shape, memory_space=PRV)
        kept = False
        for reader in readers[1:]:
            stand_in = None
            for other in reader.reads(buffer):
                if read_signature(other) != sig:
                    continue
                stand_in = stand_in or reader.placeholder(buffer, t)
                Rewriter.replace_op(other, [], [Emitter.before(other).load(stand_in, [lp.step for lp in tile_loops(other)])])
                kept = True
        if kept:
            array = first.placeholder(buffer, t)
            Emitter(InsertPoint.after(read)).store(read.result, array, [lp.step for lp in loops])


@dataclass(frozen=True)
class MDHKeepRows(ModulePass):
    name = "mdh-keep-rows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewritten_by(self.name, op)
        for launches in kernel_groups(op):
            phases = [Phase(SymbolTable.lookup_symbol(op, l.kernel), l) for l in launches]  # type: ignore[arg-type]
            keep_statistics(phases)
            keep_rows(phases)
