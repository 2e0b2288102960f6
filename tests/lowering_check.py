"""Shared checks for lowering tests: run a module on a device, compare with the oracle.

The device is `$MDH_TEST_DEVICE` (default "cpu": PoCL), so the same tests run elsewhere,
e.g. `MDH_TEST_DEVICE=gpu` or `MDH_TEST_DEVICE=Oclgrind`.
"""

from __future__ import annotations

import os

import numpy as np

from mdh_ir.device import DeviceInfo
from mdh_ir.driver import compile_module
from mdh_ir.schedule.config import Config
from mdh_ir.semantics.compare import compare
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config


def check_outputs(module, inputs, outputs) -> None:
    result = compare(module, inputs, outputs)
    assert result.ok, result.message


TEST_DEVICE = os.environ.get("MDH_TEST_DEVICE", "cpu")


def run_and_check(module, inputs, config: Config | None = None, device: str = TEST_DEVICE) -> None:
    program = compile_module(module, device, config)
    check_outputs(module, inputs, program(*inputs))


def draw_config(op, info: DeviceInfo, rng: np.random.Generator, tries: int = 200) -> Config | None:
    """A legal configuration of `op` drawn from the tuning space with `rng` (the first of
    `tries` draws that is), or None."""
    for _ in range(tries):
        try:
            return sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
    return None
