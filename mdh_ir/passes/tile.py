"""`mdh-tile`: de-compose each `mdh.compute` into tile loops (DESIGN.md section 5.2).

The op is replaced by output buffers (`memref.alloc`) and one loop nest that follows the
MDH de-composition of `mdh_ir.schedule.tiling` for the op's configuration:

    lowlevel.par_for "wg" [num_wg...] (inputs, outputs, epilogue inputs)  work-groups
      lowlevel.tile_for "lt" dim d ...                     local tiles, per dimension
        lowlevel.par_for "wi" [num_wi...]                  work-items
          lowlevel.tile_for "pt" dim d ...                 private tiles
            lowlevel.tile_for "el" dim d ...               elements
              lowlevel.view_load ...                       one read per input access
              (lowlevel.round_tf32 ...)                    each read, with precision "tf32"
              func.call @scalar_func
              lowlevel.accumulate ...                      re-composition, still abstract

A private-tile loop whose tiles can be partial is `padded` (`mdh_ir.schedule.tiling`): its trip
counts are constants, and the points beyond its local tile are discarded by
`mdh-place-combine` (reads stay inside memory: `mdh-promote-memory`).
Loops are in dimension order (`mdh-assign-asm` applies `loop_order`), every read goes
to global memory (`mdh-promote-memory` caches), and `accumulate` says only that a point's
result is combined into the outputs (`mdh-place-combine` says how, and applies an
epilogue where it writes an output's final value). The op's properties
travel on the work-group `par_for` (see `carried`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mdh_ir.schedule.config import Config, ConfigError
from mdh_ir.dialects.lowlevel import AccumulateOp, ParForOp, RoundTF32Op, TileForOp, ViewLoadOp
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.dialects.mdh_attrs import scalar_arguments
from mdh_ir.errors import MDHError
from mdh_ir.passes.carried import carry
from mdh_ir.passes.emit import Emitter, index
from mdh_ir.schedule.tiling import TilePlan


def tile_compute(op: ComputeOp) -> None:
    try:
        plan = TilePlan(op, Config.of(op))
    except ConfigError as e:
        raise MDHError(f'mdh.compute "{op.comp_name.data}": {e}', op) from None
    cfg, rank = plan.cfg, plan.rank
    host = Emitter.before(op)
    outputs = [
        host.emit(memref.AllocOp.get(t.element_type, shape=t.get_shape()))  # type: ignore
        for t in op.outputs.types
    ]
    buffers = [*op.inputs, *outputs, *op.epilogue_inputs]
    wg_block = Block(arg_types=[index] * rank + [b.type for b in buffers])
    wg = ParForOp("wg", cfg.num_wg, Region(wg_block), buffers)
    wg.location = op.location
    carry(wg, op)
    host.op(wg)

    e = Emitter.at_end(wg_block)
    zero = e.const(0)
    extents = [e.const(n) for n in plan.sizes]
    local = []
    for d in range(rank):
        loop = TileForOp(
            "lt", d, zero, extents[d], cfg.lt_size[d], cfg.num_wg[d], wg.ids[d],
            plan.max_trips("lt", d),
        )  # fmt: skip
        e.op(loop)
        e = Emitter.at_end(loop.body.block)
        local.append(loop)

    wi = ParForOp("wi", cfg.num_wi, Region(Block(arg_types=[index] * rank)))
    e.op(wi)
    e = Emitter.at_end(wi.body.block)
    private = []
    for d in range(rank):
        loop = TileForOp(
            "pt", d, local[d].tile_start, local[d].tile_size, cfg.pt_size[d], cfg.num_wi[d],
            wi.ids[d], plan.max_trips("pt", d), padded=plan.padded(d),
        )  # fmt: skip
        e.op(loop)
        e = Emitter.at_end(loop.body.block)
        private.append(loop)
    point = []
    for d in range(rank):
        loop = TileForOp(
            "el", d, private[d].tile_start, private[d].tile_size, 1, 1, zero, cfg.pt_size[d]
        )
        e.op(loop)
        e = Emitter.at_end(loop.body.block)
        point.append(loop.tile_start)

    scalar = op.lookup_func(op.scalar_func)
    assert scalar is not None
    inputs = wg_block.args[rank : rank + len(op.inputs)]
    values = point_values(e, op, inputs, point, takes_point(op, scalar))
    e.op(
        AccumulateOp(
            values,
            wg_block.args[rank + len(op.inputs) : rank + len(op.inputs) + len(outputs)],
            point,
            op.md_hom.data["combine_ops"],  # type: ignore[arg-type]
            op.out_view,
        )
    )
    Rewriter.replace_op(op, [], outputs)


@dataclass(frozen=True)
class MDHTile(ModulePass):
    name = "mdh-tile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for compute in list(op.walk()):
            if isinstance(compute, ComputeOp):
                tile_compute(compute)


def takes_point(op: ComputeOp, scalar: func.FuncOp) -> bool:
    """Whether `op`'s scalar function takes the point's indices after its inputs."""
    return len(scalar.function_type.inputs) > op.scalar_arity


def point_values(
    e: Emitter, op: ComputeOp, inputs: Sequence[SSAValue], point: Sequence[SSAValue], with_point: bool
) -> list[SSAValue]:
    """The scalar function's results at `point`: each input read through its views
    (`lowlevel.view_load`; rounded to TF32 by `lowlevel.round_tf32` where the op's
    precision is "tf32"), a prologue's function called on its group's reads there (so
    that promoted memory holds the raw inputs), the point's indices appended `with_point`."""
    reads = [
        [e.emit(ViewLoadOp(buf, point, [], AffineMapAttr(m), mode)) for m in maps]
        for buf, maps, mode in zip(inputs, op.input_maps, op.boundaries)
    ]
    if op.input_precision == "tf32":
        reads = [[e.emit(RoundTF32Op(a)) for a in group] for group in reads]

    def prologue(name: str, values: list[SSAValue]) -> SSAValue:
        callee = op.lookup_func(name)
        assert callee is not None
        return e.op(func.CallOp(name, values, callee.function_type.outputs.data)).results[0]

    args = scalar_arguments(op.prologues, reads, prologue)
    return list(e.op(func.CallOp(op.scalar_func, [*args, *(point if with_point else [])], op.output_element_types)).results)
