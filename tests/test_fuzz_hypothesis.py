"""Property-based fuzzing of the whole pipeline with hypothesis.

Property: every random `mdh.compute` (tests/random_ops.py, wide space: 1-6 dimensions,
sizes 1-70 within `MAX_POINTS` points, views within bounds or leaving them under a
boundary mode, cc/pw/ps combine operators with builtin or user functions, 1-3 inputs,
1-2 outputs, f32/f64/i32), under every legal configuration of the tuning space
(`mdh_ir.tuning.space.sample_config`, which never proposes one that breaks a rule),
lowered to OpenCL and run on the test device (PoCL), gives the reference semantics'
result (`mdh_ir.semantics.compare`).

Hypothesis draws the data: the number of dimensions, the seed the op is generated from
and one seed per configuration (`CONFIGS_PER_OP` configurations per op). Shrinking is off
(a seed has no smaller form worth a recompile); a failure prints the seeds, the op and the
configuration, and `MDH_HYPOTHESIS_REPLAY=RANK:OPSEED:CFGSEED` replays one case.

CI runs `MDH_HYPOTHESIS_CASES` (default 300) configurations, derandomized (the same cases
every run), in `CHUNKS` test items (`MDH_HYPOTHESIS_CHUNKS`, default 8) so that
`pytest -n 2` spreads them. The nightly-sized
run (README, "Reliability") draws fresh ones:

    MDH_HYPOTHESIS_CASES=2400 MDH_HYPOTHESIS_RANDOM=1 MDH_HYPOTHESIS_STATS=fuzz.tsv \\
        .venv/bin/python -m pytest -q -n 2 tests/test_fuzz_hypothesis.py

`MDH_HYPOTHESIS_STATS` appends one line per chunk: ops tried, configurations run,
failures, and the ops' ranks and largest sizes.
"""

from __future__ import annotations

import os
from collections import Counter
from math import ceil

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from mdh_ir.device import DeviceInfo
from mdh_ir.driver import compile_module
from mdh_ir.runtime import select_device
from mdh_ir.semantics.reference import find_compute
from tests.lowering_check import TEST_DEVICE, check_outputs, draw_config
from tests.random_ops import MAX_POINTS, WIDE_MAX_SIZE, describe, random_module

CASES = int(os.environ.get("MDH_HYPOTHESIS_CASES", "300"))
RANDOM = os.environ.get("MDH_HYPOTHESIS_RANDOM") == "1"
STATS = os.environ.get("MDH_HYPOTHESIS_STATS")
REPLAY = os.environ.get("MDH_HYPOTHESIS_REPLAY")
CONFIGS_PER_OP = 2
CHUNKS = int(os.environ.get("MDH_HYPOTHESIS_CHUNKS", "8"))
OPS_PER_CHUNK = ceil(CASES / CONFIGS_PER_OP / CHUNKS)


def config_for(op, seed: int):
    """A legal configuration drawn from the tuning space with `seed`."""
    return draw_config(op, DeviceInfo.from_cl(select_device(TEST_DEVICE)), np.random.default_rng(seed))


def draw(rank: int, op_seed: int):
    return random_module(np.random.default_rng(op_seed), wide=True, rank=rank)


def run_case(rank: int, op_seed: int, cfg_seed: int, stats: Counter | None = None, drawn=None) -> None:
    module, inputs = drawn or draw(rank, op_seed)
    config = config_for(find_compute(module), cfg_seed)
    replay = f"MDH_HYPOTHESIS_REPLAY={rank}:{op_seed}:{cfg_seed}"
    assert config is not None, f"{replay}: no legal configuration found\n{module}"
    try:
        check_outputs(module, inputs, compile_module(module, TEST_DEVICE, config)(*inputs))
    except Exception as e:
        if stats is not None:
            stats["failures"] += 1
        raise AssertionError(
            f"{replay} ({describe(module)['label']})\n{module}\nconfig={config.to_attr()}\n"
            f"{type(e).__name__}: {e}"
        ) from e
    finally:
        if stats is not None:
            stats["configs"] += 1


def record(chunk: int, stats: Counter) -> None:
    if STATS:
        ranks = ",".join(f"{r}:{stats[f'rank{r}']}" for r in range(1, 7))
        with open(STATS, "a") as f:
            f.write(
                f"chunk {chunk}\tops {stats['ops']}\tconfigs {stats['configs']}\t"
                f"failures {stats['failures']}\tranks {ranks}\tsize>12 {stats['large']}\t"
                f"max size {stats['max_size']}\n"
            )


@pytest.mark.skipif(REPLAY is not None, reason="MDH_HYPOTHESIS_REPLAY replays one case")
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_ops_under_random_configurations(chunk: int) -> None:
    stats: Counter = Counter()

    @settings(
        max_examples=OPS_PER_CHUNK,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        rank=st.integers(1, 6),
        op_seed=st.integers(0, 2**32 - 1),
        cfg_seeds=st.lists(
            st.integers(0, 2**32 - 1), min_size=CONFIGS_PER_OP, max_size=CONFIGS_PER_OP
        ),
    )
    def property_holds(rank: int, op_seed: int, cfg_seeds: list[int]) -> None:
        op_seed = (op_seed + chunk * 7919) % 2**32  # the chunks draw different ops
        drawn = draw(rank, op_seed)
        sizes = find_compute(drawn[0]).sizes
        stats["ops"] += 1
        stats[f"rank{rank}"] += 1
        stats["large"] += any(n > 12 for n in sizes)
        stats["max_size"] = max(stats["max_size"], *sizes)
        for cfg_seed in cfg_seeds:
            run_case(rank, op_seed, cfg_seed, stats, drawn)

    try:
        property_holds()
    finally:
        record(chunk, stats)


@pytest.mark.skipif(REPLAY is None, reason="set MDH_HYPOTHESIS_REPLAY=RANK:OPSEED:CFGSEED")
def test_replay() -> None:
    rank, op_seed, cfg_seed = (int(x) for x in REPLAY.split(":"))  # type: ignore[union-attr]
    run_case(rank, op_seed, cfg_seed)


def test_wide_generator_reaches_six_dimensions_and_size_70() -> None:
    """The wide space holds ranks 1-6 and sizes up to 70, always within MAX_POINTS."""
    ranks, largest = Counter(), 0
    for seed in range(300):
        module, inputs = random_module(np.random.default_rng(seed), wide=True)
        op = find_compute(module)
        assert np.prod(op.sizes) <= MAX_POINTS
        assert [x.shape for x in inputs] == [tuple(v.type.get_shape()) for v in op.inputs]
        ranks[op.rank] += 1
        largest = max(largest, *op.sizes)
    assert set(ranks) == {1, 2, 3, 4, 5, 6}, ranks
    assert 50 < largest <= WIDE_MAX_SIZE
    module, _ = random_module(np.random.default_rng(1), wide=True, rank=6)
    assert find_compute(module).rank == 6
