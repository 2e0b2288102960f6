"""The GPU default's register tiles grow a short side across the kept dimensions of
the same side: a contraction's 16 output columns f are joined by its e, a convolution's
batch by its image columns. The grown tiles are legal, sized as chosen, and compute
the reference's result at sizes no tile divides (run on the test device)."""

from __future__ import annotations

from math import prod

import numpy as np
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.device import PRESETS
from mdh_ir.semantics.reference import find_compute
from tests.lowering_check import run_and_check

CASES = {
    # gdab,efgc->abcdef: rows d (+ b), columns f (+ e), reduction g
    "contraction": ("tensor_contraction", dict(a=3, b=5, c=2, d=17, e=7, f=17, g=19)),
    # nhwc convolution, batch 33 (+ image columns q), 3x3
    "convolution": ("mcc", dict(n=33, p=5, q=6, k=67, r=3, s=3, c=17, stride=1)),
}


def _default(name: str):
    entry, sizes = CASES[name]
    params = CATALOG[entry].params(**sizes)
    module = CATALOG[entry].build(**params)
    return entry, params, module, default_config(find_compute(module), PRESETS["gpu"])


def test_contraction_sides_join_e_to_f_and_b_to_d() -> None:
    _, _, module, cfg = _default("contraction")
    a, b, c, d, e, f, g = range(7)
    assert cfg.lt_size[f] == 16 and cfg.lt_size[e] > 1, cfg
    assert cfg.lt_size[d] == 16 and cfg.lt_size[b] > 1, cfg
    assert cfg.lt_size[a] == cfg.lt_size[c] == 1, cfg
    assert not violations(find_compute(module), cfg, PRESETS["gpu"])


def test_convolution_rows_join_image_columns_to_the_batch() -> None:
    _, _, module, cfg = _default("convolution")
    n, p, q, k = range(4)
    assert cfg.lt_size[n] == 32 and cfg.lt_size[q] == 2 and cfg.lt_size[p] == 1, cfg
    assert prod(cfg.num_wi) <= PRESETS["gpu"].max_wg_size


@pytest.mark.parametrize("name", sorted(CASES))
def test_grown_sides_match_the_reference(name: str) -> None:
    entry, params, module, cfg = _default(name)
    inputs = CATALOG[entry].inputs(np.random.default_rng(7), **params)
    run_and_check(module, inputs, cfg)


@pytest.mark.parametrize(
    "sizes, side, split",
    [
        (dict(i=2000, j=2000, k=2000), 128, 1),  # 256 work-groups of 128: 0.97 of a wave
        (dict(i=3000, j=3000, k=3000), 128, 1),
        (dict(i=1000, j=1000, k=1000), 64, 1),  # 64 of 128; 256 of 64, reduction short
        (dict(i=500, j=500, k=500), 64, 4),  # 64 of 64: split until a wave is filled
        (dict(i=128, j=4096, k=4096), 128, 8),  # long reduction: 32 of 128, split 8
    ],
)
def test_matmul_side_and_split_follow_the_waves(sizes: dict, side: int, split: int) -> None:
    """The work-group side and reduction split of the GPU default's register tiles
    (`_side_and_split`, 132 compute units: a wave of two work-groups each is 264)."""
    module = CATALOG["matmul"].build(**CATALOG["matmul"].params(**sizes))
    cfg = default_config(find_compute(module), PRESETS["gpu"])
    i, j, k = range(3)
    assert max(cfg.lt_size[i], cfg.lt_size[j]) == side, cfg
    assert cfg.num_wg[k] == split, cfg


def test_a_convolution_of_few_work_groups_splits_narrow_tiles() -> None:
    """ResNet-50's 3x3 stride-2 convolution over 14 x 14 at batch 1 (2304-long
    reduction): work-groups of 128 outputs a side, even split four ways, would not fill
    half a wave; those of 64 are split four ways along c."""
    sizes = dict(n=1, p=14, q=14, k=256, r=3, s=3, c=256, stride=2)
    module = CATALOG["mcc"].build(**CATALOG["mcc"].params(**sizes))
    cfg = default_config(find_compute(module), PRESETS["gpu"])
    n, p, q, k, r, s, c = range(7)
    assert cfg.lt_size[k] == 64 and cfg.num_wg[c] == 4, cfg


def test_a_filter_too_large_for_local_memory_steps_its_rows_and_columns() -> None:
    """A 5 x 5 filter over 9 channels for 130 outputs: its whole reduction steps (25 x 8)
    of 64 channels take 100 KB; the register tiles step the filter's rows and
    columns one at a time instead (`_outer_steps`), which fits, and compute the
    reference's result. A 3 x 3 filter keeps its whole steps."""
    sizes = dict(n=17, p=3, q=3, k=130, r=5, s=5, c=9, stride=1)
    params = CATALOG["mcc"].params(**sizes)
    module = CATALOG["mcc"].build(**params)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["gpu"])
    n, p, q, k, r, s, c = range(7)
    assert cfg.inp_mem[0] == ("lcl", "lcl") and cfg.lt_size[k] >= 64, cfg
    assert cfg.lt_size[r] == cfg.lt_size[s] == 1 and cfg.lt_size[c] == 8, cfg
    assert not violations(op, cfg, PRESETS["gpu"])
    whole = cfg.with_(lt_size=tuple(5 if d in (r, s) else t for d, t in enumerate(cfg.lt_size)))
    assert [v.rule for v in violations(op, whole, PRESETS["gpu"])] == ["local-memory"]
    run_and_check(module, CATALOG["mcc"].inputs(np.random.default_rng(3), **params), cfg)
    three = CATALOG["mcc"].build(**CATALOG["mcc"].params(**{**sizes, "r": 3, "s": 3}))
    cfg = default_config(find_compute(three), PRESETS["gpu"])
    assert cfg.lt_size[r] == cfg.lt_size[s] == 3, cfg


@pytest.mark.parametrize(
    "sizes, shape",
    [
        (dict(i=29, j=257, k=2910), "split 32"),  # 10 work-groups of 64 x 16 rows: 320 with the split
        (dict(i=60, j=120, k=5000), "split 64"),  # 36M products: beyond sectors' too
        (dict(i=17, j=71, k=257), "shared"),  # 0.3M products
        (dict(i=100, j=16, k=700), "sectors"),  # 1.1M products, columns a sector at a time
    ],
)
def test_few_outputs_of_much_work_take_register_tiles_split_until_a_wave(sizes: dict, shape: str) -> None:
    """Fewer outputs than 64 a compute unit: the register tiles, split in up to 64 parts
    of at least 16 elements until their work-groups fill a wave, where the products
    exceed `SHARED_WORK` (`SECTOR_WORK` where the columns are read a sector at a time);
    below, each output's reduction shared among work-items."""
    module = CATALOG["matmul"].build(**CATALOG["matmul"].params(**sizes))
    cfg = default_config(find_compute(module), PRESETS["gpu"])
    i, j, k = range(3)
    tiled = cfg.inp_mem[0] == ("lcl", "lcl")
    if shape.startswith("split"):
        assert tiled and cfg.lt_size[j] == 64 and cfg.num_wg[k] == int(shape.split()[1]), cfg
    else:
        assert not tiled and cfg.num_wg[k] == 1 and cfg.num_wi[k] > 1, cfg
        assert (cfg.num_wi[j] == 2) == (shape == "sectors"), cfg


def test_few_outputs_split_in_many_parts_match_the_reference() -> None:
    """17 x 19 outputs of a 6500-long reduction: register tiles split in 64 parts."""
    params = CATALOG["matmul"].params(i=17, j=19, k=6500)
    module = CATALOG["matmul"].build(**params)
    cfg = default_config(find_compute(module), PRESETS["gpu"])
    assert cfg.num_wg[2] == 64, cfg
    run_and_check(module, CATALOG["matmul"].inputs(np.random.default_rng(5), **params), cfg)
