"""Every catalog computation, at awkward sizes, under many random legal configurations,
gives the reference result on PoCL.

Each draw picks sizes (the small size, a prime, one more, or 1 per dimension), a
boundary mode for stencils, and a configuration from the tuning space (local and
private caches, pw dimensions split across work-items and work-groups, loop orders,
layouts, OpenCL dimension folding, accumulator placement). A failing draw prints its
seed: `MDH_REPLAY=<name>:<seed> pytest tests/test_lowering_random.py` replays it alone.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.device import DeviceInfo
from mdh_ir.runtime import select_device
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import TEST_DEVICE, run_and_check

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
