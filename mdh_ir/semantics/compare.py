"""Compare computed outputs with the reference semantics.

The rules (BENCHMARKS.md): integer outputs exactly; float outputs of cc-only
computations within a few float32 ulp of the reference evaluated in the declared
precision; float outputs of computations that reduce or scan within relative L2 error
1e-4 of the float64 reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.semantics.reference import evaluate

ULP_TOLERANCE = 8 * float(np.finfo(np.float32).eps)
L2_TOLERANCE = 1e-4


@dataclass(frozen=True)
class Comparison:
    ok: bool
    error: float
    """The largest error over the outputs (relative L2 or relative element error)."""
    message: str


def reduces(module: ModuleOp) -> bool:
    """Whether a computation of `module` reduces or scans (compared in float64, by L2
    error)."""
    ops = [op for op in module.walk() if isinstance(op, ComputeOp)]
    return any(c.kind != "cc" for op in ops for c in op.combines)


def reference_outputs(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The reference result in the precision the comparison uses."""
    return evaluate(module, inputs, promote=reduces(module))


def compare(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    reference: Sequence[np.ndarray] | None = None,
) -> Comparison:
    """`outputs` against the reference (computed here unless given)."""
    if reference is None:
        reference = reference_outputs(module, inputs)
    l2 = reduces(module)
    worst, problems = 0.0, []
    for j, (got, want) in enumerate(zip(outputs, reference)):
        if got.shape != want.shape:
            problems.append(f"output {j}: shape {got.shape}, expected {want.shape}")
            continue
        if got.dtype.kind != "f":
            wrong = int(np.count_nonzero(got != want))
            if wrong:
                problems.append(f"output {j}: {wrong} of {got.size} integers differ")
            continue
        if l2:
            want64 = want.astype(np.float64)
            error = float(np.linalg.norm(got - want64) / max(float(np.linalg.norm(want64)), 1e-30))
            tolerance = L2_TOLERANCE
        else:
            scale = np.maximum(np.abs(want), 1.0)
            error = float(np.max(np.abs(got - want) / scale)) if got.size else 0.0
            tolerance = ULP_TOLERANCE
        if not np.isfinite(error) or error > tolerance:
            problems.append(f"output {j}: error {error:.3g} > {tolerance:.3g}")
        worst = max(worst, error if np.isfinite(error) else np.inf)
    if problems:
        return Comparison(False, worst, "; ".join(problems))
    return Comparison(True, worst, f"max error {worst:.3g}")
