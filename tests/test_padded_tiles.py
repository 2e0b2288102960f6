"""Partial tiles: a padded private-tile loop keeps every trip count a constant, and the
points of its padding change nothing.

The GPU default of a matrix product keeps one configuration (128 x 128 work-group tiles)
for 1024^3 and for sizes no tile divides; there, the private and element loops must
still have constant trip counts (unrolled: the accumulators stay registers), and the
result must still be the reference's, in every layer (sizes one more than a tile, a
prime, 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf

from mdh_ir.catalog import CATALOG
from mdh_ir.schedule.default_config import default_config
from mdh_ir.device import PRESETS
from mdh_ir.dialects.lowlevel import BarrierOp, KernelOp, TileForOp
from mdh_ir.passes.expand import static_trips, touches_private
from mdh_ir.passes.lower_to_opencl import pipeline
from mdh_ir.passes.tile import MDHTile
from mdh_ir.semantics.reference import find_compute
from mdh_ir.schedule.tiling import TilePlan
from mdh_ir.tools.context import make_context
from tests.lowering_check import run_and_check


def gpu_matmul(n: int, k: int | None = None):
    module = CATALOG["matmul"].build(i=n, j=n, k=n if k is None else k)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["gpu"])
    op.config = cfg.to_attr()
    return module, op, cfg


@pytest.mark.parametrize("n", [127, 1000, 1023, 1025])
def test_register_tile_loops_are_constant_at_sizes_no_tile_divides(n: int) -> None:
    module, op, cfg = gpu_matmul(n)
    assert TilePlan(op, cfg).ragged(0), "the sizes must leave partial tiles"
    for p in pipeline("gpu"):
        p.apply(make_context(), module)
    loops = [
        loop for kernel in module.walk() if isinstance(kernel, KernelOp) for loop in kernel.walk()
        if isinstance(loop, scf.ForOp) and touches_private(loop)
        and not any(isinstance(o, BarrierOp) for o in loop.walk())
    ]  # fmt: skip
    assert loops
    dynamic = [loop for loop in loops if static_trips(loop) is None]
    assert not dynamic, f"{len(dynamic)} loops over private memory with dynamic trip counts"


def test_only_ragged_dimensions_are_padded() -> None:
    for n, padded in ((1024, False), (1000, True)):
        module, _, _ = gpu_matmul(n)
        MDHTile().apply(make_context(), module)
        pt = [loop for loop in module.walk() if isinstance(loop, TileForOp) and loop.layer.data == "pt"]
        assert {loop.dim.value.data: loop.padded is not None for loop in pt} == {0: padded, 1: padded, 2: False}


@pytest.mark.parametrize("n,k", [(129, 9), (131, 17), (1, 3), (257, 1)])
def test_gpu_matmul_default_at_tile_plus_one_matches_the_reference(n: int, k: int) -> None:
    """The GEMM-like GPU default (local caches, prefetch, vectors of 2, padded loops) at
    sizes one more than its tiles, primes and 1, run on the test device."""
    module, op, cfg = gpu_matmul(n, k)
    op.config = None
    inputs = CATALOG["matmul"].inputs(np.random.default_rng(n), i=n, j=n, k=k)
    run_and_check(module, inputs, cfg)


@pytest.mark.parametrize(
    "entry,sizes,config",
    [
        # kept and pw dimensions ragged in every layer: N % lt, lt % pt, tiles % num_wi
        ("matmul", dict(i=11, j=13, k=7), dict(num_wg=(2, 2, 1), num_wi=(2, 3, 1), lt_size=(5, 7, 3), pt_size=(2, 2, 2))),
        # pw dimension shared by work-items, ragged, combined across work-groups
        ("matvec", dict(i=7, k=29), dict(num_wg=(2, 3), num_wi=(2, 4), lt_size=(3, 10), pt_size=(2, 3))),
        # a combine function without identity (best match): pw loops stay unpadded
        ("prl", dict(i=7, j=23), dict(num_wg=(2, 2), num_wi=(2, 2), lt_size=(4, 10), pt_size=(3, 4))),
        # scan along a ragged dimension
        ("prefix_sum", dict(n=37), dict(num_wg=(3,), num_wi=(3,), lt_size=(16,), pt_size=(5,))),
    ],
)
def test_ragged_configurations_match_the_reference(entry: str, sizes: dict, config: dict) -> None:
    module = CATALOG[entry].build(**sizes)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["cpu"]).with_(vector_width=1, **config)
    cfg = cfg.with_(ocl_dim=((0,) * op.rank, (0,) * op.rank)) if op.rank > 3 else cfg
    plan = TilePlan(op, cfg)
    assert any(plan.ragged(d) for d in range(op.rank))
    inputs = CATALOG[entry].inputs(np.random.default_rng(1), **sizes)
    run_and_check(module, inputs, cfg)


@pytest.mark.parametrize(
    "entry,sizes",
    [
        ("jacobi3d", dict(i=5, j=6, k=258)),  # the first op of jacobi3d_twice:256, narrowed
        ("jacobi3d", dict(i=3, j=7, k=13)),
        ("jacobi3d", dict(i=4, j=4, k=6)),
        ("bias_add", dict(n=2, h=3, w=5, c=67)),
        ("exp", dict(n=1, h=2, w=3, c=5)),
    ],
)
def test_gpu_vector_default_with_a_partial_last_vector(entry: str, sizes: dict) -> None:
    """Without reductions, the GPU default reads vectors of 4 along the innermost
    dimension also where 4 does not divide it (its last vector partial) instead of
    falling back to scalar work-items (jacobi3d over 258^3: 2 work-groups along k, the
    second with 2 of 256 work-items busy); the result is the reference's."""
    module = CATALOG[entry].build(**sizes)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["gpu"])
    assert cfg.vector_width == 4 and cfg.pt_size[-1] == 4
    assert cfg.num_wg[-1] * cfg.num_wi[-1] * 4 < op.sizes[-1] + 4  # one partial vector at most
    inputs = CATALOG[entry].inputs(np.random.default_rng(sum(sizes.values())), **sizes)
    run_and_check(module, inputs, cfg)
