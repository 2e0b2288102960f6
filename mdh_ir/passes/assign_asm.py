"""`mdh-assign-asm`: bind the de-composition to the OpenCL system model (DESIGN.md 5.3).

Each work-group `par_for` becomes a `lowlevel.kernel` (its buffers become the kernel's
arguments) and a `lowlevel.launch` in the host function. The part ids of both core
layers become OpenCL ids: MDH dimension d of a layer is read from OpenCL dimension
`ocl_dim[layer][d]`; several MDH dimensions on one OpenCL dimension are folded (the
last of them varies fastest). The work-item `par_for` is dissolved into the kernel body,
and the tile loops of each layer are put in `loop_order` (the element loops follow the
private-tile order):

    lowlevel.kernel @matvec_0(%M, %v, %w) {
      %g0 = lowlevel.group_id 0
      %l0 = lowlevel.local_id 0
      lowlevel.tile_for "lt" dim 0 (...) part %g0 ...
    }
    lowlevel.launch @matvec_0(%M, %v, %w) global [...] local [...]

The kernel records its work-group size (`local_size`, printed as OpenCL's
`reqd_work_group_size`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mdh_ir.schedule.constraints import ocl_sizes
from mdh_ir.dialects.lowlevel import (
    LOCAL_SIZE_ATTR,
    GroupIdOp,
    KernelOp,
    LaunchOp,
    LocalIdOp,
    ParForOp,
    TileForOp,
    i64_array,
)
from mdh_ir.passes.carried import COMPUTE_ATTR, carried
from mdh_ir.passes.emit import Emitter
from mdh_ir.passes.kernel_stage import rewritten_by


def bind_ids(
    e: Emitter, id_op: type[GroupIdOp | LocalIdOp], counts: Sequence[int], ocl_dim: Sequence[int]
) -> list[SSAValue]:
    """Part ids per MDH dimension, read from (folded) OpenCL dimensions."""
    ids: list[SSAValue] = [e.const(0)] * len(counts)
    for o in range(3):
        dims = [d for d in range(len(counts)) if ocl_dim[d] == o and counts[d] > 1]
        if not dims:
            continue
        flat = e.emit(id_op(o))
        stride = 1
        for d in reversed(dims):
            ids[d] = e.rem(e.div(flat, stride), counts[d]) if d != dims[0] else e.div(flat, stride)
            stride *= counts[d]
    return ids


def move_ops(source: Block, dest: InsertPoint) -> None:
    for op in list(source.ops):
        op.detach()
        Rewriter.insert_op(op, dest)


def tile_chain(root: Operation, layer: str) -> list[TileForOp]:
    """The perfectly nested `tile_for` loops of `layer` under `root`, outermost first."""
    return [op for op in root.walk() if isinstance(op, TileForOp) and op.layer.data == layer]


def reorder(chain: list[TileForOp], order: Sequence[int]) -> None:
    """Re-nest a perfectly nested chain (one loop per dimension) in `order`."""
    if [loop.dim.value.data for loop in chain] == list(order):
        return
    by_dim = {loop.dim.value.data: loop for loop in chain}
    block, after = chain[0].parent_block(), chain[0].next_op
    body_ops = list(chain[-1].body.block.ops)
    for op in [*body_ops, *reversed(chain)]:
        op.detach()
    anchor = InsertPoint.before(after) if after else InsertPoint.at_end(block)  # type: ignore
    for d in order:
        Rewriter.insert_op(by_dim[d], anchor)
        anchor = InsertPoint.at_end(by_dim[d].body.block)
    for op in body_ops:
        Rewriter.insert_op(op, anchor)


def assign(par: ParForOp, kernel_name: str) -> KernelOp:
    plan = carried(par, par.buffers.types)
    cfg = plan.cfg
    kernel = KernelOp(kernel_name, par.buffers.types)
    kernel.location = par.location
    kernel.attributes[COMPUTE_ATTR] = par.attributes[COMPUTE_ATTR]
    block = kernel.body.block
    e = Emitter.at_end(block)
    group_ids = bind_ids(e, GroupIdOp, cfg.num_wg, cfg.ocl_dim[0])
    local_ids = bind_ids(e, LocalIdOp, cfg.num_wi, cfg.ocl_dim[1])
    for arg, new in zip(par.body.block.args, [*group_ids, *block.args]):
        arg.replace_all_uses_with(new)
    move_ops(par.body.block, InsertPoint.at_end(block))

    (wi,) = [op for op in kernel.walk() if isinstance(op, ParForOp)]
    for arg, new in zip(wi.body.block.args, local_ids):
        arg.replace_all_uses_with(new)
    move_ops(wi.body.block, InsertPoint.before(wi))
    wi.detach()
    wi.erase()

    lt_order, pt_order = cfg.loop_order
    for layer, order in (("lt", lt_order), ("pt", pt_order), ("el", pt_order)):
        reorder(tile_chain(kernel, layer), order)

    groups, local = ocl_sizes(cfg)
    kernel.attributes[LOCAL_SIZE_ATTR] = i64_array(local)
    launch = LaunchOp(kernel_name, par.buffers, [g * n for g, n in zip(groups, local)], local)
    Rewriter.replace_op(par, launch)
    return kernel


@dataclass(frozen=True)
class MDHAssignASM(ModulePass):
    name = "mdh-assign-asm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for host in list(op.ops):
            if not isinstance(host, func.FuncOp):
                continue
            pars = [p for p in host.walk() if isinstance(p, ParForOp) and p.layer.data == "wg"]
            for i, par in enumerate(pars):
                kernel = assign(par, f"{host.sym_name.data}_{i}")
                Rewriter.insert_op(kernel, InsertPoint.before(host))
        rewritten_by(self.name, op)
