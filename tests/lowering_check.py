"""Shared checks for lowering tests: run a module on a device, compare with the oracle."""

from __future__ import annotations

import numpy as np

from mdh_ir.config import Config
from mdh_ir.runtime import compile_module
from mdh_ir.semantics.reference import evaluate, find_compute

F32_ULP = float(np.finfo(np.float32).eps)


def check_outputs(module, inputs, outputs) -> None:
    """Integers exact; cc-only floats within a few ulp of the float32 reference;
    reductions within relative L2 error 1e-4 of the float64 reference."""
    op = find_compute(module)
    reduces = any(c.kind != "cc" for c in op.combines)
    reference = evaluate(module, inputs, promote=reduces)
    for j, (got, want) in enumerate(zip(outputs, reference)):
        assert got.shape == want.shape, f"output {j}: shape {got.shape} != {want.shape}"
        if got.dtype.kind != "f":
            np.testing.assert_array_equal(got, want, err_msg=f"output {j}")
        elif not reduces:
            np.testing.assert_allclose(got, want, rtol=8 * F32_ULP, atol=8 * F32_ULP, err_msg=f"output {j}")
        else:
            want = want.astype(np.float64)
            error = np.linalg.norm(got - want) / max(float(np.linalg.norm(want)), 1e-30)
            assert error < 1e-4, f"output {j}: relative L2 error {error:.3g}"


def run_and_check(module, inputs, config: Config | None = None, device: str = "cpu") -> None:
    program = compile_module(module, device, config)
    check_outputs(module, inputs, program(*inputs))
