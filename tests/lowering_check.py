"""Shared checks for lowering tests: run a module on a device, compare with the oracle."""

from __future__ import annotations

from mdh_ir.config import Config
from mdh_ir.runtime import compile_module
from mdh_ir.semantics.compare import compare


def check_outputs(module, inputs, outputs) -> None:
    result = compare(module, inputs, outputs)
    assert result.ok, result.message


def run_and_check(module, inputs, config: Config | None = None, device: str = "cpu") -> None:
    program = compile_module(module, device, config)
    check_outputs(module, inputs, program(*inputs))
