"""Features of a configuration of a computation, for the cost model (`model`).

One fixed-length vector for every computation, whatever its rank: the computation's
size, then the configuration's decisions as quantities a kernel's speed depends on,
summed over all dimensions and per dimension kind (`cc` dimensions, whose tiles are
independent, and `pw`/`ps` dimensions, which reduce): tile sizes (log2) and their ratios
to the sizes, work-items per work-group and work-groups, the padding a tile size that
does not divide a size wastes, the local- and private-memory elements the cached input
tiles take, the vector width, unrolling, where results are combined, and whether the
work-items' first OpenCL dimension walks the innermost (contiguous) dimension.
"""

from __future__ import annotations

import math

import numpy as np

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.tiling import TilePlan, ceildiv

KINDS = ("cc", "red")
"""Per-kind features: `cc` dimensions, and reduction/scan (`pw`, `ps`) ones."""
PER_KIND = ("dims", "size", "lt", "pt", "wi", "wg", "lt_ratio", "pt_ratio", "waste")
NAMES = (
    "size", "rank", "inputs", "gpu", "same_device",
    "lt", "pt", "wi", "wg", "threads", "waste", "lt_ratio",
    "lcl_elems", "prv_elems", "lcl_bufs", "prv_bufs", "res_prv",
    "vector", "unroll", "prefetch", "stages", "lcl_pad", "lcl_swizzle", "layer_end", "layer_lt", "layer_pt",
    "wg_combine_kernel", "wi0_inner", "wg0_inner", "inner_pt_red",
    *(f"{k}_{n}" for k in KINDS for n in PER_KIND),
)  # fmt: skip


def _log(x: float) -> float:
    return math.log2(max(x, 1))


def features(op: ComputeOp, cfg: Config, gpu: bool, same_device: bool = True) -> np.ndarray:
    """The feature vector (`NAMES`) of `cfg` for `op` on a device of class `gpu`;
    `same_device`: whether measured on the device being tuned (training rows of other
    devices say 0)."""
    sizes = op.sizes
    rank = len(sizes)
    kinds = ["cc" if c.kind == "cc" else "red" for c in op.combines]
    waste = [ceildiv(n, cfg.lt_size[d]) * cfg.lt_size[d] / n for d, n in enumerate(sizes)]
    plan = TilePlan(op, cfg)
    lcl = prv = 0
    for b in range(len(op.inputs)):
        for layer, mem, total in (("lt", cfg.inp_mem[0][b], "lcl"), ("pt", cfg.inp_mem[1][b], "prv")):
            if mem != "glb":
                box = plan.box(b, layer)
                elems = math.prod(box.extents) if box is not None else 0
                lcl, prv = (lcl + elems, prv) if total == "lcl" else (lcl, prv + elems)
    inner = rank - 1
    wi0 = [d for d in range(rank) if cfg.ocl_dim[1][d] == 0]
    wg0 = [d for d in range(rank) if cfg.ocl_dim[0][d] == 0]
    innermost_pt = cfg.loop_order[1][-1]
    values = [
        _log(math.prod(sizes)), rank, len(op.inputs), float(gpu), float(same_device),
        sum(_log(x) for x in cfg.lt_size), sum(_log(x) for x in cfg.pt_size),
        sum(_log(x) for x in cfg.num_wi), sum(_log(x) for x in cfg.num_wg),
        sum(_log(a * b) for a, b in zip(cfg.num_wi, cfg.num_wg)),
        math.log2(math.prod(waste)), sum(_log(lt) - _log(n) for lt, n in zip(cfg.lt_size, sizes)),
        _log(lcl), _log(prv), cfg.inp_mem[0].count("lcl"), cfg.inp_mem[1].count("prv"),
        float(all(m == "prv" for m in cfg.res_mem)),
        _log(cfg.vector_width), _log(cfg.unroll), cfg.prefetch, cfg.stages, cfg.lcl_pad, cfg.lcl_swizzle,
        *(float(cfg.combine_layer == layer) for layer in ("end", "lt", "pt")),
        float(cfg.wg_combine == "kernel"), float(wi0 == [inner]), float(wg0 == [inner]),
        float(kinds[innermost_pt] == "red"),
    ]  # fmt: skip
    for kind in KINDS:
        dims = [d for d in range(rank) if kinds[d] == kind]
        values += [
            len(dims),
            sum(_log(sizes[d]) for d in dims),
            sum(_log(cfg.lt_size[d]) for d in dims),
            sum(_log(cfg.pt_size[d]) for d in dims),
            sum(_log(cfg.num_wi[d]) for d in dims),
            sum(_log(cfg.num_wg[d]) for d in dims),
            sum(_log(cfg.lt_size[d]) - _log(sizes[d]) for d in dims),
            sum(_log(cfg.pt_size[d]) - _log(cfg.lt_size[d]) for d in dims),
            math.log2(math.prod(waste[d] for d in dims)) if dims else 0.0,
        ]
    return np.array(values, dtype=np.float64)
