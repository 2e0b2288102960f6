"""Every catalog computation, at awkward sizes, under many random legal configurations,
gives the reference result on PoCL.

Each draw picks sizes (the small size, a prime, one more, or 1 per dimension), a
boundary mode for stencils, and a configuration from the tuning space (local and
private caches, pw dimensions split across work-items and work-groups, loop orders,
layouts, OpenCL dimension folding, accumulator placement). A failing draw prints its
seed: `MDH_REPLAY=<name>:<seed> pytest tests/test_lowering_random.py` replays it alone.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import replace

import numpy as np
import pytest

from xdsl.context import Context
from xdsl.dialects import vector
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.affine import dim_of, linear_results
from mdh_ir.catalog import CATALOG
from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.dialects.lowlevel import ALIGNMENT_ATTR, ASYNC_ATTR, CopyOp, KernelOp, SlotOp, memory_space
from mdh_ir.passes.lower_to_opencl import pipeline
from mdh_ir.passes.prefetch import LowLevelPrefetch
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.driver import compile_module, lower
from mdh_ir.driver.compiler import configure, lower_configured
from mdh_ir.emit_opencl import opencl_source
from mdh_ir.runtime import select_device
from mdh_ir.runtime.program import Program
from mdh_ir.semantics.reference import find_compute
from mdh_ir.schedule.tiling import TilePlan
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import TEST_DEVICE, check_outputs, run_and_check

DRAWS = int(os.environ.get("MDH_DRAWS", "30"))
STENCILS = {"jacobi1d", "jacobi3d", "gaussian"}
BOUNDARIES = ["none", "clamp", "zero", "wrap", "mirror"]


def next_prime(n: int) -> int:
    n = max(n, 2)
    while any(n % p == 0 for p in range(2, int(n**0.5) + 1)):
        n += 1
    return n


def awkward_sizes(name: str, rng: np.random.Generator) -> dict:
    sizes = dict(CATALOG[name].small)
    for key, value in sizes.items():
        if isinstance(value, int) and key != "stride":
            sizes[key] = int(rng.choice([value, next_prime(value), value + 1, max(1, value // 2)]))
    if name in STENCILS:
        sizes["boundary"] = str(rng.choice(BOUNDARIES))
    return sizes


def draw(name: str, seed: int):
    rng = np.random.default_rng(seed)
    sizes = awkward_sizes(name, rng)
    module = CATALOG[name].build(**sizes)
    op = find_compute(module)
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    for _ in range(200):
        try:
            return sizes, module, sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
    raise AssertionError(f"no feasible configuration found for {name} {sizes}")


def seeds(name: str) -> list[int]:
    replay = os.environ.get("MDH_REPLAY")
    if replay:
        which, _, seed = replay.partition(":")
        return [int(seed)] if which == name else []
    base = sum(map(ord, name)) * 1000
    return [base + i for i in range(DRAWS)]


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_random_configurations(name: str) -> None:
    for seed in seeds(name):
        sizes, module, config = draw(name, seed)
        inputs = CATALOG[name].inputs(np.random.default_rng(seed), **sizes)
        try:
            run_and_check(module, inputs, config)
        except Exception as e:
            raise AssertionError(
                f"MDH_REPLAY={name}:{seed} sizes={sizes}\nconfig={config.to_attr()}\n{e}"
            ) from e


LANE_DRAWS = int(os.environ.get("MDH_LANE_DRAWS", "6"))


def draw_lanes(name: str, seed: int, dims, partial: bool = False):
    """A configuration vectorizing one of `dims(op)` (the innermost loop), with private
    accumulators, or None if the computation allows none: at sizes in multiples of 8,
    or, with `partial`, at awkward sizes (`awkward_sizes`) with a vector that holds
    both points and padding (the vectorized dimension's size or lt_size not a multiple
    of the width: `TilePlan.partial_vectors`)."""
    rng = np.random.default_rng(seed)
    for _ in range(20 if partial else 1):
        if partial:
            sizes = awkward_sizes(name, rng)
        else:
            sizes = {k: v if k == "stride" else -(-v // 8) * 8 for k, v in CATALOG[name].small.items()}
        module = CATALOG[name].build(**sizes)
        op = find_compute(module)
        info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
        for _ in range(400):
            try:
                cfg = sample_config(op, info, RandomTrial(rng))
            except Infeasible:
                continue
            d = int(rng.choice(dims(op)))
            order = tuple(x for x in cfg.loop_order[1] if x != d) + (d,)
            widths = [w for w in (16, 8, 4, 2) if cfg.pt_size[d] % w == 0]
            if not widths:
                continue
            res_mem = ("prv",) * len(op.outputs)
            lanes = cfg.with_(loop_order=(cfg.loop_order[0], order), res_mem=res_mem, vector_width=widths[0])
            if partial and not TilePlan(op, lanes).partial_vectors(d):
                continue
            if not violations(op, lanes, info):
                return sizes, module, lanes
    return None


def pw_dims(op) -> list[int]:
    return [d for d, c in enumerate(op.combines) if c.kind == "pw"]


def written_dim(op) -> list[int]:
    """The dimension along which the first output is contiguous."""
    return [dim_of(op.output_maps[0].results[-1])]


LANE_COMPUTATIONS = [
    "bmatmul", "dot", "matmul", "matmul_t", "matvec", "mcc", "reduce_max",
    "reduce_sum", "tensor_contraction",
]  # the others have no pw dimension, a combine function without identity (prl) or a
# scalar function taking indices (histogram); mcc_capsule reads no pw dimension contiguously


def check_draw(name: str, seed: int, sizes: dict, module, config) -> None:
    inputs = CATALOG[name].inputs(np.random.default_rng(seed), **sizes)
    try:
        run_and_check(module, inputs, config)
    except Exception as e:
        message = f"{name} seed {seed} sizes={sizes}\nconfig={config.to_attr()}\n{e}"
        raise AssertionError(message) from e


@pytest.mark.parametrize("name", LANE_COMPUTATIONS)
def test_reduction_lanes(name: str) -> None:
    """Vectorized pw dimensions (each lane accumulates, lanes combined at the flush);
    every other draw at sizes where a vector holds both points and padding."""
    for seed in range(LANE_DRAWS):
        drawn = draw_lanes(name, seed, pw_dims, partial=seed % 2 == 1)
        assert drawn is not None, f"no vectorizable pw configuration for {name}"
        sizes, module, config = drawn
        check_draw(name, seed, sizes, module, config)


FLUSH_COMPUTATIONS = ["bmatmul", "gaussian", "matmul", "reduce_max", "reduce_sum"]
# the computations with a pw dimension whose inputs can be read contiguously along the
# output's innermost dimension


@pytest.mark.parametrize("name", FLUSH_COMPUTATIONS)
def test_vector_flush(name: str) -> None:
    """Vectorized kept dimensions: every draw gives the reference result (every other
    draw at sizes where a vector holds both points and padding), and on CPUs some flush
    their accumulators with vector stores (those whose work-items do not share a
    reduction through local memory; GPUs keep scalar flushes: `lower-to-opencl`)."""
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    vectorized = 0
    for seed in range(LANE_DRAWS):
        drawn = draw_lanes(name, seed, written_dim, partial=seed % 2 == 1)
        assert drawn is not None, f"no configuration vectorizing {name}'s output dimension"
        sizes, module, config = drawn
        vectorized += any(isinstance(o, vector.StoreOp) for o in lower(module, info, config).walk())
        check_draw(name, seed, sizes, module, config)
    assert vectorized or info.kind == "gpu", f"no draw of {name} flushed with vector stores"


PREFETCH_COMPUTATIONS = ["bmatmul", "gaussian", "jacobi3d", "matmul", "mcc", "tensor_contraction"]


def prefetched(module, config, kind: str) -> ModuleOp:
    """`module` lowered under `config` for device class `kind`, up to and including
    `lowlevel-prefetch`."""
    lowered = module.clone()
    find_compute(lowered).config = config.to_attr()
    for p in pipeline(kind):
        p.apply(Context(), lowered)
        if isinstance(p, LowLevelPrefetch):
            return lowered
    raise AssertionError("lowlevel-prefetch is not in the pipeline")


def pipelined(module, config, kind: str) -> bool:
    """Whether `lowlevel-prefetch` does what `config.prefetch` asks: staged copies
    (with 3, asynchronous ones), and with 2 local buffers in two slots, with 3 in
    `config.stages`."""
    ops = list(prefetched(module, config, kind).walk())
    copies = [o for o in ops if isinstance(o, CopyOp)]
    ahead = any(ASYNC_ATTR in o.attributes for o in copies) if config.prefetch == 3 else any(o.stage for o in copies)
    slots = {o.source.type.get_shape()[0] for o in ops if isinstance(o, SlotOp)}
    return ahead and slots == ({config.stages} if config.prefetch == 3 else {2} if config.prefetch == 2 else set())


def search(name: str, seed: int, sizes_of, pick):
    """Sizes from `sizes_of(name, rng)` and the first drawn configuration that
    `pick(module, op, cfg, info)` turns into a configuration to test (None: draw on), or
    None when 50 sizes of 20 draws each give none."""
    rng = np.random.default_rng(seed)
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    for _ in range(50):
        sizes = sizes_of(name, rng)
        module = CATALOG[name].build(**sizes)
        op = find_compute(module)
        for _ in range(20):
            try:
                drawn = sample_config(op, info, RandomTrial(rng))
            except Infeasible:
                continue
            cfg = pick(module, op, drawn, info)
            if cfg is not None:
                return sizes, module, cfg
    return None


def draw_prefetch(name: str, seed: int, mode: int, stages: int = 2):
    """Awkward sizes and a configuration with `prefetch = mode` (and `stages`) whose
    innermost local-tile loop has several steps and copies to stage or, with 3, to issue
    ahead (and, with 2 or 3, barriers)."""

    def pick(module, op, cfg, info):
        cfg = cfg.with_(prefetch=mode, stages=stages)
        return cfg if not violations(op, cfg, info) and pipelined(module, cfg, info.kind) else None

    return search(name, seed, awkward_sizes, pick)


@pytest.mark.parametrize("name", PREFETCH_COMPUTATIONS)
def test_prefetch(name: str) -> None:
    """Local tiles loaded one step ahead through private stages (partial last tiles,
    boundary modes, vector and single-element copies), in one local buffer or two used
    in turn, or issued 1 to 3 steps ahead as asynchronous copies into 2 to 4 (every
    third draw each; synchronous on the test device), give the reference result."""
    for seed in range(LANE_DRAWS):
        mode, stages = 1 + seed % 3, 2 + (seed // 3 + 1) % 3 if seed % 3 == 2 else 2
        drawn = draw_prefetch(name, seed, mode, stages)
        assert drawn is not None, f"no configuration of {name} with prefetch = {mode}, stages = {stages}"
        check_draw(name, seed, *drawn)


def even_sizes(name: str, rng: np.random.Generator) -> dict:
    """Catalog small sizes rounded down to powers of two (tiles drawn from divisors fit
    exactly), with a random boundary mode for stencils."""
    sizes = awkward_sizes(name, rng)
    return {
        k: 1 << (v.bit_length() - 1) if isinstance(v, int) and k != "stride" else v
        for k, v in sizes.items()
    }


def corners_inside(op, cfg, b: int) -> bool:
    """Whether every access of input b from every corner of the region the full local
    tiles span lies inside the buffer (index maps are linear: extremes are at corners)."""
    shape = op.inputs[b].type.get_shape()
    span = [-(-n // t) * t - 1 for n, t in zip(op.sizes, cfg.lt_size)]
    corners = itertools.product(*[(0, s) for s in span])
    return all(
        0 <= f.eval(list(x)) < n
        for x in corners
        for m in op.input_maps[b]
        for f, n in zip(linear_results(m), shape)
    )


def draw_inside(name: str, seed: int):
    """Even sizes and a configuration with a local copy marked `inside`."""

    def pick(module, op, cfg, info):
        plan = TilePlan(op, cfg)
        return cfg if any(plan.inside(b) for b in plan.cached("lt")) else None

    return search(name, seed, even_sizes, pick)


@pytest.mark.parametrize("name", PREFETCH_COMPUTATIONS)
def test_inside_rule(name: str) -> None:
    """`TilePlan.inside` (copies without bounds checks) agrees with the accesses from the
    corners of the full tiles, at awkward and at even sizes."""
    found = {True: 0, False: 0}
    for seed in range(DRAWS):
        sizes, module, cfg = draw(name, seed) if seed % 2 else draw_inside(name, seed) or draw(name, seed)
        op = find_compute(module)
        plan = TilePlan(op, cfg)
        for b in plan.cached("lt"):
            assert plan.inside(b) == corners_inside(op, cfg, b), f"{name} seed {seed} input {b}"
            found[plan.inside(b)] += 1
    assert found[True] and found[False], found


@pytest.mark.parametrize("name", PREFETCH_COMPUTATIONS)
def test_inside_copies(name: str) -> None:
    """Local copies whose boxes lie inside their buffer move without bounds checks and
    give the reference result (under Oclgrind, also no invalid reads: test_oclgrind)."""
    kind = DeviceInfo.from_cl(select_device(TEST_DEVICE)).kind
    for seed in range(LANE_DRAWS):
        drawn = draw_inside(name, seed)
        assert drawn is not None, f"no configuration of {name} with an inside copy"
        sizes, module, cfg = drawn
        lowered = prefetched(module, cfg, kind)
        assert any(isinstance(o, CopyOp) and o.inside() for o in lowered.walk())
        check_draw(name, seed, sizes, module, cfg)


@pytest.mark.parametrize("name", PREFETCH_COMPUTATIONS)
def test_aligned_pair_copies(name: str) -> None:
    """Local copies from rows that leave vectors of 4 unaligned but pairs aligned move
    pairs in the GPU's lowering (`mdh-promote-memory{aligned_copies=true}`), aligned
    where the boxes start on a pair, at awkward sizes, and give the reference results
    (lowered for the GPU class, run on the test device)."""

    def pick(module, op, cfg, info):
        plan = TilePlan(op, cfg)
        layouts = cfg.buf_layout[0]
        pairs = [b for b in plan.cached("lt") if layouts[b] and layouts[b][-1] == len(layouts[b]) - 1]
        return cfg if any(plan.copy_lanes(b, aligned=True) == 2 for b in pairs) else None

    device = select_device(TEST_DEVICE)
    info = replace(DeviceInfo.from_cl(device), kind="gpu")
    found = 0
    for seed in range(LANE_DRAWS):
        drawn = search(name, seed, awkward_sizes, pick)
        if drawn is None:
            continue
        sizes, module, cfg = drawn
        lowered = lower_configured(configure(module, info, cfg)[0], info)
        pairs = [
            o for o in lowered.walk()
            if isinstance(o, vector.LoadOp) and o.result.type.get_shape() == (2,) and memory_space(o.base.type) == "glb"
        ]  # fmt: skip
        # a stencil's boxes start off the pairs by its halo: pairs still, unaligned
        assert pairs and (name in STENCILS or all(ALIGNMENT_ATTR in o.attributes for o in pairs)), (sizes, cfg)
        inputs = CATALOG[name].inputs(np.random.default_rng(seed), **sizes)
        check_outputs(module, inputs, Program(lowered, opencl_source(lowered), device)(*inputs))
        found += 1
    assert found, f"no draw of {name} copies pairs"


LAST_GROUP_COMPUTATIONS = ["bmatmul", "dot", "mcc", "matvec", "prl", "reduce_sum"]
LAST_GROUP_WITHOUT = {"dot": {1}}
"""Kinds of last-group combine the draws do not give: dot's one output element is shared
by any work-group of several work-items."""


def last_group_kind(plan: TilePlan) -> int:
    """0: work-groups of one work-item; 1: of several, each taking whole output elements;
    2: several work-items share each element (`combine_lanes` > 1)."""
    return 0 if plan.wg_size == 1 else 1 if plan.combine_lanes == 1 else 2


def draw_last_group(name: str, seed: int):
    """Awkward sizes and a configuration splitting a pw dimension across work-groups,
    combined by the last work-group to finish: by turns each `last_group_kind` (where a
    computation has no draw of the seed's kind, one of another)."""
    for kind in (seed % 3, 2, 1, 0):

        def pick(module, op, cfg, info):
            plan = TilePlan(op, cfg)
            if plan.pw_groups == 1 or last_group_kind(plan) != kind:
                return None
            cfg = cfg.with_(wg_combine="last")
            return None if violations(op, cfg, info) else cfg

        drawn = search(name, seed, awkward_sizes, pick)
        if drawn is not None:
            return drawn
    return None


@pytest.mark.parametrize("name", LAST_GROUP_COMPUTATIONS)
def test_last_group_combine(name: str) -> None:
    """Work-group partial results combined by the last work-group (`wg_combine = "last"`:
    a counter, fences, the output elements dealt out to its work-items or shared by
    lanes of them) give the reference result, with and without a combine function that
    has an identity (prl); the draws cover every `last_group_kind` the computation has,
    and, where it has kept dimensions, several kept work-groups (each with its counter
    and its own last work-group)."""
    kinds, shared = set(), set()
    for seed in range(LANE_DRAWS):
        drawn = draw_last_group(name, seed)
        assert drawn is not None, f"no configuration of {name} splitting a pw dimension"
        sizes, module, cfg = drawn
        kernels = [o for o in lower(module, DeviceInfo.from_cl(select_device(TEST_DEVICE)), cfg).walk()
                   if isinstance(o, KernelOp)]  # fmt: skip
        assert not any(k.sym_name.data.endswith("_combine") for k in kernels)
        plan = TilePlan(find_compute(module), cfg)
        kinds.add(last_group_kind(plan))
        shared.add(plan.kept_groups > 1)
        check_draw(name, seed, sizes, module, cfg)
    assert kinds == {0, 1, 2} - LAST_GROUP_WITHOUT.get(name, set()), kinds
    assert (True in shared) == (name != "dot"), shared


def test_last_group_combine_in_batches() -> None:
    """The last work-group reads the partial results of several of a work-item's points
    before it stores the first (`LAST_COMBINE_POINTS`): matmul 75 x 64 x 96 split 3
    ways, 40 x 32 points a kept work-group (the second along the rows padded past 75)
    over 32 work-items, 40 points each: a batch of 32, then one of 8 (its other points
    beyond the group's); the reference's results."""
    module = CATALOG["matmul"].build(i=75, j=64, k=96)
    op = find_compute(module)
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    cfg = default_config(op, PRESETS["gpu"]).with_(
        num_wg=(2, 2, 3), num_wi=(4, 8, 1), lt_size=(40, 32, 32), pt_size=(10, 4, 32), wg_combine="last",
        inp_mem=(("glb", "glb"), ("glb", "glb")), prefetch=0, vector_width=1,
    )  # fmt: skip
    assert not violations(op, cfg, info)
    plan = TilePlan(op, cfg)
    assert (plan.group_points, plan.wg_size, plan.pw_groups) == (1280, 32, 3)
    program = compile_module(module, TEST_DEVICE, cfg)
    assert program.kernel_names() == ["matmul_0"]
    assert "+= 1024)" in program.source  # 32 work-items x 32 points a step
    # the loop's bound, and a guard on each point of a batch after its 8th (the last
    # batch's 8 x 32 points are the group's last 256; a work-item's later ones lie beyond)
    assert program.source.count("< 1280") == 1 + 24
    inputs = CATALOG["matmul"].inputs(np.random.default_rng(7), i=75, j=64, k=96)
    check_outputs(module, inputs, program(*inputs))
