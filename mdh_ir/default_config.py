"""A reasonable configuration from sizes and device limits alone (no measurement).

- Kept (cc/ps) dimensions are cut into tiles of num_wi * pt_size elements, one tile per
  work-group. With enough outputs to fill the device, work-items go to the kept
  dimensions, innermost first (adjacent work-items touch adjacent elements); otherwise
  they go to the innermost pw dimension, whose partial results are combined in local
  memory, and pw dimensions are also split across work-groups until the device is busy.
- GPU: 256 work-items per work-group, pt_size 1. CPU (PoCL): one work-item per
  work-group, and a private tile of up to 16 x 4 elements on the two innermost kept
  dimensions that the work-item computes in registers.
- No caching (inp_mem "glb"), private accumulators, natural loop orders, identity
  layouts; OpenCL dimension 0 gets the innermost parallel dimension.
"""

from __future__ import annotations

from math import prod

from mdh_ir.config import Config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.tiling import ceildiv


def _ocl_dims(counts: list[int]) -> tuple[int, ...]:
    """OpenCL dim 0 for the innermost dimension with count > 1, 1 for the next, else 2."""
    dims = [2] * len(counts)
    parallel = [d for d in reversed(range(len(counts))) if counts[d] > 1]
    for o, d in enumerate(parallel[:2]):
        dims[d] = o
    return tuple(dims)


def _spread(total: int, dims: list[int], sizes: tuple[int, ...]) -> dict[int, int]:
    """Split `total` work-items over `dims`, innermost first, at most the size each."""
    counts = {}
    for d in reversed(dims):
        counts[d] = max(1, min(sizes[d], total))
        total //= counts[d]
    return counts


def default_config(op: ComputeOp, device: DeviceInfo) -> Config:
    sizes, rank = op.sizes, op.rank
    kinds = [c.kind for c in op.combines]
    kept = [d for d in range(rank) if kinds[d] != "pw"]
    pw = [d for d in range(rank) if kinds[d] == "pw"]
    outputs = prod(sizes[d] for d in kept)
    busy = 4 * device.compute_units
    gpu = device.kind == "gpu"
    wg_target = min(256, device.max_wg_size) if gpu else 1

    num_wi, pt = [1] * rank, [1] * rank
    if gpu:
        many = outputs >= 64 * device.compute_units or not pw
        num_wi_of = _spread(wg_target, kept if many else pw[-1:], sizes)
        for d, n in num_wi_of.items():
            num_wi[d] = n
    else:
        for d, tile in zip(reversed(kept), (16, 4)):
            pt[d] = min(sizes[d], tile)

    lt, num_wg = list(sizes), [1] * rank
    for d in kept:
        lt[d] = min(sizes[d], num_wi[d] * pt[d])
        num_wg[d] = ceildiv(sizes[d], lt[d])
    for d in pw:
        lt[d] = num_wi[d] if num_wi[d] > 1 else sizes[d]
        pt[d] = 1 if num_wi[d] > 1 else sizes[d]
    kept_groups = prod(num_wg[d] for d in kept)
    if pw and kept_groups < busy:
        d = pw[-1]
        groups = ceildiv(busy, kept_groups)
        if num_wi[d] == 1:
            lt[d] = pt[d] = ceildiv(sizes[d], groups)
        num_wg[d] = min(groups, ceildiv(sizes[d], lt[d]))

    inputs = len(op.inputs)
    return Config(
        num_wg=tuple(num_wg),
        num_wi=tuple(num_wi),
        lt_size=tuple(lt),
        pt_size=tuple(pt),
        inp_mem=(("glb",) * inputs, ("glb",) * inputs),
        res_mem=("prv",) * len(op.outputs),
        ocl_dim=(_ocl_dims(num_wg), _ocl_dims(num_wi)),
        buf_layout=tuple(
            tuple(tuple(range(len(v.type.get_shape()))) for v in op.inputs)  # type: ignore
            for _ in range(2)
        ),  # type: ignore[arg-type]
        loop_order=(tuple(range(rank)), tuple(range(rank))),
    )


def complete_config(op: ComputeOp, device: DeviceInfo) -> Config:
    """The op's configuration, missing keys chosen to fit the given ones.

    Per dimension: a missing lt_size gives each work-group one local tile when num_wg is
    given; a missing pt_size, num_wi or num_wg is the default's, reduced to what the
    tile sizes allow; a missing ocl_dim follows the final counts.
    """
    given = Config.from_attr(op.config, op) if op.config is not None else {}
    base = default_config(op, device)
    if not given:
        return base
    fields: dict[str, list[int]] = {k: [] for k in ("num_wg", "num_wi", "lt_size", "pt_size")}
    for d, n in enumerate(op.sizes):
        pick = lambda key, value: given[key][d] if key in given else value  # noqa: E731
        wi = pick("num_wi", base.num_wi[d])
        lt = base.lt_size[d]
        if "num_wg" in given:
            lt = ceildiv(n, given["num_wg"][d])
        elif "num_wi" in given or "pt_size" in given:
            lt = wi * pick("pt_size", base.pt_size[d])
        lt = max(1, min(n, pick("lt_size", lt)))
        pt = max(1, min(lt, pick("pt_size", min(base.pt_size[d], max(1, lt // wi)))))
        fields["lt_size"].append(lt)
        fields["pt_size"].append(pt)
        fields["num_wi"].append(pick("num_wi", min(wi, ceildiv(lt, pt))))
        fields["num_wg"].append(pick("num_wg", min(base.num_wg[d], ceildiv(n, lt))))
    derived = {k: tuple(v) for k, v in fields.items()}
    derived["ocl_dim"] = (_ocl_dims(fields["num_wg"]), _ocl_dims(fields["num_wi"]))
    return base.with_(**{**derived, **given})
