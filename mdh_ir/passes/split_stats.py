"""`mdh-split-stats`: an op with row statistics into one op per phase, of one kernel group.

An `mdh.compute` with `stats` (`mdh.ComputeOp`'s docstring: a row softmax made by
`mdh-fuse`) becomes, in its place, one reduction op per statistic and the md_hom's
op, in order, each marked `kernel_group = "<name>"`:

    %m = mdh.compute "softmax" {... scalar_func = @id, combine_ops = ["cc", ["pw", "max"]],
           out_view = [[(i,j) -> (i)]]} {... kernel_group = "softmax"} (%x)
    %s = mdh.compute "softmax" {inp_view = [[(i,j) -> (i)], [(i,j) -> (i,j)]],
           md_hom = {scalar_func = @exp_sub, ...}} {... kernel_group = "softmax"} (%m, %x)
    %y = mdh.compute "softmax" {inp_view = [[(i,j) -> (i)], [(i,j) -> (i)], [(i,j) -> (i,j)]],
           md_hom = {scalar_func = @normalize, ...}} {... kernel_group = "softmax"} (%m, %s, %x)

A statistic's values are a buffer over its kept dimensions, read by the later phases
through the projection of the op's dimensions onto them; the functions are the fused
op's, unchanged (they take the earlier values first). Every phase has the fused op's
configuration (so the same work-groups hold the same rows, rule `rows`: one
work-group along every reduced dimension), its per-input entries for the statistics'
buffers and the statistics' own inputs "glb" (the main phase keeps the fused op's for
its inputs): a later phase reads the row again where the first read it, in the cache.
`lowlevel-merge-kernels` makes the group's kernels one. Runs after the configuration
is chosen and checked, before `mdh-tile` (`lower-to-opencl`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mdh_ir.dialects.mdh import ComputeOp, make_view
from mdh_ir.schedule.config import Config


def projection(rank: int, kept: list[int]) -> AffineMap:
    """The op's dimensions onto a statistic's kept ones."""
    return AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in kept))


def phase_config(cfg: Config, inputs: list[SSAValue], own: int, outputs: int) -> Config:
    """`cfg` for a phase reading `inputs`, the last `own` of them with `cfg`'s entries
    (the md_hom's inputs), the others from global memory as they are."""
    first = len(inputs) - own
    plain = [tuple(range(v.type.get_num_dims())) for v in inputs[:first]]  # type: ignore[attr-defined]
    return cfg.with_(
        inp_mem=tuple(("glb",) * first + layer[len(layer) - own :] for layer in cfg.inp_mem),  # type: ignore[arg-type]
        buf_layout=tuple(tuple(plain) + layer[len(layer) - own :] for layer in cfg.buf_layout),  # type: ignore[arg-type]
        res_mem=("prv",) * outputs if len(cfg.res_mem) != outputs else cfg.res_mem,
    )


def split(op: ComputeOp) -> None:
    rank, name = op.rank, op.comp_name.data
    cfg = Config.of(op) if op.config is not None else None
    group = {"kernel_group": StringAttr(name)}
    values: list[tuple[SSAValue, AffineMap]] = []
    for stat in op.row_stats:
        f = op.lookup_func(stat.func)
        assert f is not None
        types = list(f.function_type.outputs.data)
        inputs = [v for v, _ in values] + stat.buffers
        maps = [[m] for _, m in values] + stat.maps
        bounds = ["none"] * len(values) + stat.boundaries
        props = {
            "inp_view": make_view(maps),
            "md_hom": DictionaryAttr({"scalar_func": SymbolRefAttr(stat.func), "combine_ops": ArrayAttr([c.to_attr() for c in stat.combines])}),
            "out_view": make_view([[projection(rank, stat.kept)]] * len(types)),
            "inp_types": ArrayAttr([v.type.element_type for v in inputs]),  # type: ignore[attr-defined]
            "mda_size": op.mda_size,
            "out_types": ArrayAttr(types),
            **group,
        }
        if any(b != "none" for b in bounds):
            props["boundary"] = ArrayAttr([StringAttr(b) for b in bounds])
        if cfg is not None:
            props["config"] = phase_config(cfg, inputs, 0, len(types)).to_attr()
        shape = [op.sizes[d] for d in stat.kept]
        phase = ComputeOp(name, inputs, props, [MemRefType(t, shape) for t in types])
        phase.location = op.location
        Rewriter.insert_op(phase, InsertPoint.before(op))
        values += [(r, projection(rank, stat.kept)) for r in phase.outputs]
    inputs = [v for v, _ in values] + list(op.inputs)
    props = {k: v for k, v in op.properties.items() if k not in ("comp_name", "stats")}
    props["inp_view"] = make_view([[m] for _, m in values] + op.input_maps)
    props["inp_types"] = ArrayAttr([v.type.element_type for v in inputs])  # type: ignore[attr-defined]
    props["boundary"] = ArrayAttr([StringAttr(b) for b in ["none"] * len(values) + op.boundaries])
    props |= group
    if cfg is not None:
        props["config"] = phase_config(cfg, inputs, len(op.inputs), len(op.outputs)).to_attr()
    main = ComputeOp(name, inputs, props, op.outputs.types, list(op.epilogue_inputs))
    main.location = op.location
    Rewriter.replace_op(op, main)


@dataclass(frozen=True)
class MDHSplitStats(ModulePass):
    name = "mdh-split-stats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for compute in [o for o in op.walk() if isinstance(o, ComputeOp) and o.stats is not None]:
            split(compute)
