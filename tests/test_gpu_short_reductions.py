"""A sum over a short innermost axis on the GPU default: every input element is read
for one output only, so no output tiles and no split of the reduction; each work-item
reduces its own output's axis, read as vectors of 4, and the result is the reference's
at sizes no tile divides (run on the test device)."""

from __future__ import annotations

import numpy as np
import pytest

from mdh_bench.entries import ENTRIES
from mdh_ir.device import PRESETS
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from tests.lowering_check import run_and_check


def _default(i: int, j: int, k: int):
    entry = ENTRIES["reduce_sum_k"]
    module = entry.build(i=i, j=j, k=k)
    return entry, module, default_config(find_compute(module), PRESETS["gpu"])


def test_one_output_a_work_item_its_reduction_in_vectors() -> None:
    _, _, cfg = _default(1024, 1024, 16)
    assert cfg.pt_size[:2] == (1, 1) and cfg.num_wg[2] == 1, cfg
    assert cfg.pt_size[2] == 16 and cfg.vector_width == 4, cfg


@pytest.mark.parametrize("i,j,k", [(257, 263, 16), (131, 300, 12)])
def test_matches_the_reference_at_odd_sizes(i: int, j: int, k: int) -> None:
    entry, module, cfg = _default(i, j, k)
    assert cfg.vector_width == 4 and cfg.pt_size[2] == k, cfg
    inputs = entry.inputs(np.random.default_rng(3), i=i, j=j, k=k)
    run_and_check(module, inputs, cfg)
