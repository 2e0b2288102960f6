"""Shared checks for lowering tests: run a module on a device, compare with the oracle.

The device is `$MDH_TEST_DEVICE` (default "cpu": PoCL), so the same tests run elsewhere,
e.g. `MDH_TEST_DEVICE=gpu` or `MDH_TEST_DEVICE=Oclgrind`.
"""

from __future__ import annotations

import os

from mdh_ir.schedule.config import Config
from mdh_ir.driver import compile_module
from mdh_ir.semantics.compare import compare


def check_outputs(module, inputs, outputs) -> None:
    result = compare(module, inputs, outputs)
    assert result.ok, result.message


TEST_DEVICE = os.environ.get("MDH_TEST_DEVICE", "cpu")


def run_and_check(module, inputs, config: Config | None = None, device: str = TEST_DEVICE) -> None:
    program = compile_module(module, device, config)
    check_outputs(module, inputs, program(*inputs))
