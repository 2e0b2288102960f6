"""The parallel scan of `ps` dimensions (`mdh_ir.passes.scan`) on the test device, against
the reference semantics: lines of one chunk and of many (sizes around the chunk), work-
items along the line and across lines, scans along either axis of a 2-D space and along
both, builtin and user combine functions (one not commutative), integers and floats.
"""

from __future__ import annotations

import numpy as np
import pytest

from mdh_ir.builder import Input, Output, cc, compute_module, f32, i32, maximum, ps, select
from mdh_ir.catalog import CATALOG
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import local_bytes, temp_bytes, violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.device import PRESETS
from mdh_ir.driver import compile_module
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.schedule.tiling import TilePlan, ceildiv
from tests.lowering_check import TEST_DEVICE, check_outputs


def shaped(module, num_wi: tuple[int, ...], lt_size: tuple[int, ...]) -> Config:
    """The default configuration with local tiles of `lt_size` shared by `num_wi`
    work-items (the scan's chunks and work-items), scalar code."""
    op = find_compute(module)
    lt_size = tuple(min(t, n) for t, n in zip(lt_size, op.sizes))
    num_wi = tuple(min(w, t) for w, t in zip(num_wi, lt_size))
    pt = tuple(ceildiv(t, w) for t, w in zip(lt_size, num_wi))
    groups = tuple(ceildiv(n, t) for n, t in zip(op.sizes, lt_size))
    base = default_config(op, PRESETS["cpu"])
    return base.with_(num_wg=groups, num_wi=num_wi, lt_size=lt_size, pt_size=pt, vector_width=1, unroll=1)


def run(module, config: Config | None, chunked: bool | None = None) -> None:
    """Run `module` on random inputs and compare with the reference; `chunked`: whether
    some scanned line must be cut into several chunks (a reduce and a carries kernel)."""
    program = compile_module(module, TEST_DEVICE, config)
    if chunked is not None:
        names = program.kernel_names()
        assert any(n.endswith("_reduce") for n in names) == chunked, names
        assert any(n.endswith("_carries") for n in names) == chunked, names
    inputs = random_inputs(program.op, np.random.default_rng(7))
    check_outputs(module, inputs, program(*inputs))


def prefix_sum(n: int):
    return CATALOG["prefix_sum"].build(n=n)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 97, 1021, 2**20])
@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_prefix_sum_default(n, device):
    """The default configurations of both device classes (gpu: 256 work-items a chunk)."""
    module = prefix_sum(n)
    run(module, default_config(find_compute(module), PRESETS[device]))


@pytest.mark.parametrize("n", [15, 16, 17, 31, 32, 33, 48, 64, 97, 1000])
@pytest.mark.parametrize("items, chunk", [(1, 16), (4, 16), (3, 18), (16, 16), (4, 8)])
def test_prefix_sum_chunks(n, items, chunk):
    """Sizes around multiples of the chunk, lines of one chunk and of many, work-items
    with equal shares, a short last one, or none (3 x 6 elements a chunk of 18)."""
    module = prefix_sum(n)
    run(module, shaped(module, (items,), (chunk,)), chunked=n > chunk)


def test_carries_of_many_chunks():
    """More chunk totals than work-items: each scans several of them in the carries
    kernel (2^20 / 8 = 131072 chunks over 4 work-items)."""
    module = prefix_sum(2**20)
    config = shaped(module, (4,), (8,))
    assert TilePlan(find_compute(module), config).scan_shape(0).chunks == 2**17
    run(module, config, chunked=True)


def scan_2d(axis: int, g="add", t=f32, sizes=(13, 37)):
    """A scan along `axis` of a 2-D space, the other axis concatenated."""
    combine = [ps(g), cc] if axis == 0 else [cc, ps(g)]
    return compute_module(
        "scan2d", {"r": sizes[0], "x": sizes[1]}, [Input("a", t, "r, x")], [Output("y", t, "r, x")],
        scalar=lambda v: v, combine=combine,
    )  # fmt: skip


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize(
    "num_wi, lt_size",
    [((1, 1), (13, 37)), ((4, 8), (8, 16)), ((2, 4), (4, 37)), ((1, 16), (13, 16)), ((8, 1), (8, 5))],
)
def test_2d(axis, num_wi, lt_size):
    """Several lines a work-group (the other axis's work-items), along and across
    contiguous memory, with one chunk a line or several."""
    module = scan_2d(axis)
    config = shaped(module, num_wi, lt_size)
    run(module, config, chunked=lt_size[axis] < (13, 37)[axis])


def test_both_axes():
    """ps along both axes: a 2-D inclusive prefix sum, scanned one axis after the other."""
    module = compute_module(
        "sat", {"r": 29, "x": 23}, [Input("a", i32, "r, x")], [Output("y", i32, "r, x")],
        scalar=lambda v: v, combine=[ps("add"), ps("add")],
    )  # fmt: skip
    run(module, shaped(module, (4, 4), (8, 8)), chunked=True)


@pytest.mark.parametrize(
    "g, t", [("mul", f32), ("max", f32), ("min", f32), ("add", i32), ("max", i32), ("min", i32)]
)
def test_builtin_combines(g, t):
    module = scan_2d(1, g, t, sizes=(5, 45))
    run(module, shaped(module, (1, 4), (5, 8)), chunked=True)


def test_user_max():
    """A user function without a known identity."""
    module = scan_2d(0, lambda a, b: maximum(a, b), f32, sizes=(45, 3))
    run(module, shaped(module, (4, 1), (8, 3)), chunked=True)


def segmented_sum(t, n: int = 301):
    """Sums restarting at each element whose flag exceeds 5: the combine of (flag,
    value) pairs keeps the larger flag and restarts with the right value where its
    segment holds such an element. Associative, not commutative: a chunk combined out of
    order, or with its carry on the wrong side, gives other sums."""

    def combine(f1, v1, f2, v2):
        return maximum(f1, f2), select(f2 > 5, v2, v1 + v2)

    return compute_module(
        "segmented", {"n": n}, [Input("f", i32, "n"), Input("v", t, "n")],
        [Output("flag", i32, "n"), Output("sum", t, "n")],
        scalar=lambda f, v: (f, v), combine=[ps(combine)],
    )  # fmt: skip


@pytest.mark.parametrize("t", [i32, f32])
@pytest.mark.parametrize("n, items, chunk", [(301, 1, 16), (301, 4, 16), (301, 8, 64), (1024, 2, 256)])
def test_not_commutative(t, n, items, chunk):
    """The last case reduces each work-item's 128 elements as 8 pieces side by side."""
    module = segmented_sum(t, n)
    run(module, shaped(module, (items,), (chunk,)), chunked=True)



def test_temporaries_count_in_global_memory():
    """The chunk totals (one float per chunk of each line) count in the global-memory
    rule's temporaries; a line of one chunk needs none."""
    module = prefix_sum(1000)
    op = find_compute(module)
    assert temp_bytes(TilePlan(op, shaped(module, (4,), (8,)))) == 125 * 4
    assert temp_bytes(TilePlan(op, shaped(module, (4,), (1000,)))) == 0


def test_staged_chunks_count_in_local_memory():
    """A chunk kernel stages its chunk in local memory (one element of padding after
    every 32) beside the work-items' totals; the local-memory rule counts both, so a
    chunk larger than the device's local memory is refused, not built."""
    module = prefix_sum(2**20)
    op = find_compute(module)
    fits, too_big = (shaped(module, (256,), (n,)).with_(ocl_dim=((0,), (0,))) for n in (4096, 16384))
    assert TilePlan(op, fits).scan_shape(0).staged
    assert local_bytes(TilePlan(op, fits)) == (4096 + 128 + 256) * 4
    assert [v.rule for v in violations(op, too_big, PRESETS["gpu"])] == ["local-memory"]
