"""Compare computed outputs with the reference semantics.

The rules (BENCHMARKS.md): integer outputs exactly; float outputs of cc-only
computations within a few float32 ulp of the reference evaluated in the declared
precision; float outputs of computations that reduce or scan within relative L2 error
1e-4 of the float64 reference.

Float outputs in detail:
- NaN and infinities are compared by position: where the reference holds NaN the output
  must hold NaN, where it holds an infinity the same infinity, and a non-finite value
  where the reference is finite is wrong. The tolerance applies to the finite rest.
- The tolerance grows with the scalar function's operation count `n` (float ops, called
  functions' included): a chain of `n` rounded operations may lose `n` ulp (the
  standard bound n*u on a sum, with margin), so each tolerance above is raised by
  `n * eps` of the output's type. A function of 20,000 float32 additions loses ~2e-4.
- An op with reduced-precision inputs (f16, bf16, `precision = "tf32"`) is allowed the
  error tensor cores may add on top (`precision.precision_tolerance`: a TF32 input
  rounded by another rule, a truncating accumulation growing with the reduction
  length); f32 ops keep the rules above.
- Zeros compare by value: -0.0 equals +0.0 (IEEE). The sign of a zero result depends on
  the neutral element and order a kernel combines in (a sum over -0.0 that starts from
  +0.0 gives +0.0, the reference -0.0), which no configuration should be judged by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import AnyFloat, ModuleOp
from xdsl.traits import SymbolTable

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.semantics.host import evaluate_host
from mdh_ir.semantics.precision import precision_tolerance
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
    """The reference result in the precision the comparison uses: the host function's,
    for a chain, or an op with row statistics (its operands repeat the host's arguments)."""
    ops = [op for op in module.walk() if isinstance(op, ComputeOp)]
    if len(ops) != 1 or ops[0].stats is not None:
        return evaluate_host(module, inputs, promote=reduces(module))
    return evaluate(module, inputs, promote=reduces(module))


def operation_count(module: ModuleOp) -> int:
    """The float operations one point of `module`'s computations performs in their
    scalar functions and epilogues (calls expanded, each function counted once per call
    site)."""
    counts: dict[str, int] = {}

    def count(f: func.FuncOp) -> int:
        name = f.sym_name.data
        if name not in counts:
            counts[name] = 0  # a recursive call counts nothing more (the verifier refuses it)
            n = 0
            for op in f.walk():
                if isinstance(op, func.CallOp):
                    callee = SymbolTable.lookup_symbol(f, op.callee)
                    n += count(callee) if isinstance(callee, func.FuncOp) else 0
                elif not isinstance(op, arith.ConstantOp) and op.dialect_name() in ("arith", "math"):
                    n += any(isinstance(r.type, AnyFloat) for r in op.results)
            counts[name] = n
        return counts[name]

    total = 0
    for op in module.walk():
        if isinstance(op, ComputeOp):
            funcs = [SymbolTable.lookup_symbol(op, n) for n in (op.scalar_func, op.epilogue_func) if n]
            total = max(total, sum(count(f) for f in funcs if isinstance(f, func.FuncOp)))
    return total


def compare(
    module: ModuleOp,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    reference: Sequence[np.ndarray] | None = None,
) -> Comparison:
    """`outputs` against the reference (computed here unless given)."""
    if reference is None:
        reference = reference_outputs(module, inputs)
    return Expected(module, reference).compare(outputs)


CHUNK = 1 << 20
"""Elements compared at a time: the differences of a chunk stay in the caches."""


class Expected:
    """The reference outputs of `module`, prepared once to be compared with many
    candidates' outputs (the tuner checks every candidate against the same reference):
    the finite positions where some are not, and the reference's norms and scales, so
    that a comparison reads each output once, a chunk at a time. (Computed per
    comparison, these took a contraction's 37.7 M outputs 0.9 s a candidate on the GPU
    host, the most of its evaluation.)"""

    def __init__(self, module: ModuleOp, reference: Sequence[np.ndarray], rounding: float = 0.0):
        """`rounding`: a relative error allowed on top (outputs that a peer rounds to a
        16-bit type)."""
        self.reference = list(reference)
        self.l2 = reduces(module)
        self.ops = operation_count(module)
        self.reduced = rounding + max(
            (precision_tolerance(op) for op in module.walk() if isinstance(op, ComputeOp)), default=0.0
        )
        self.finite: list[np.ndarray | None] = []
        self.flat: list[np.ndarray] = []
        self.norms: list[float] = []
        for want in self.reference:
            finite = np.isfinite(want) if want.dtype.kind == "f" else None
            if finite is not None and finite.all():
                finite = None
            flat = (want[finite] if finite is not None else want.ravel()) if want.dtype.kind == "f" else want
            if want.dtype.kind == "f" and self.l2:
                flat = flat.astype(np.float64, copy=False)
            self.finite.append(finite)
            self.flat.append(flat)
            self.norms.append(float(np.linalg.norm(flat)) if want.dtype.kind == "f" and self.l2 else 0.0)

    def tolerance(self, dtype: np.dtype) -> float:
        """The largest error (relative L2, or relative element error) a float output of
        `dtype` may have (module docstring)."""
        grown = self.ops * float(np.finfo(dtype).eps) + self.reduced
        return (L2_TOLERANCE if self.l2 else ULP_TOLERANCE) + grown

    def compare(self, outputs: Sequence[np.ndarray]) -> Comparison:
        """`outputs` against the reference (module docstring)."""
        worst, problems = 0.0, []
        for j, (got, want) in enumerate(zip(outputs, self.reference)):
            if got.shape != want.shape:
                problems.append(f"output {j}: shape {got.shape}, expected {want.shape}")
                continue
            if got.dtype.kind != "f":
                wrong = int(np.count_nonzero(got != want))
                if wrong:
                    problems.append(f"output {j}: {wrong} of {got.size} integers differ")
                continue
            finite = self.finite[j]
            if (finite is not None or not np.isfinite(got).all()) and (
                mismatch := non_finite_mismatch(got, want)
            ) is not None:
                problems.append(f"output {j}: {mismatch}")
                worst = np.inf
                continue
            got = got[finite] if finite is not None else got.ravel()
            if self.l2:
                error = _distance(got, self.flat[j]) / max(self.norms[j], 1e-30)
            else:
                error = _relative_error(got, self.flat[j])
            tolerance = self.tolerance(got.dtype)
            if error > tolerance:
                problems.append(f"output {j}: error {error:.3g} > {tolerance:.3g}")
            worst = max(worst, error)
        if problems:
            return Comparison(False, worst, "; ".join(problems))
        return passed(worst)


def passed(error: float) -> Comparison:
    """The comparison of outputs within the tolerance, `error` the largest error."""
    return Comparison(True, error, f"max error {error:.3g}")


def _distance(got: np.ndarray, want: np.ndarray) -> float:
    """The L2 norm of `got - want` (flat arrays; `want` float64), a chunk at a time."""
    buf = np.empty(min(CHUNK, got.size), np.float64)
    total = 0.0
    for i in range(0, got.size, CHUNK):
        b = buf[: min(CHUNK, got.size - i)]
        np.subtract(got[i : i + CHUNK], want[i : i + CHUNK], out=b)
        total += float(np.dot(b, b))
    return total**0.5


def _relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max(|want|, 1) (flat arrays), a chunk at a time."""
    buf = np.empty(min(CHUNK, got.size), np.result_type(got, want))
    worst = 0.0
    for i in range(0, got.size, CHUNK):
        b, w = buf[: min(CHUNK, got.size - i)], want[i : i + CHUNK]
        np.subtract(got[i : i + CHUNK], w, out=b)
        np.abs(b, out=b)
        np.divide(b, np.maximum(np.abs(w), 1.0), out=b)
        worst = max(worst, float(b.max()))
    return worst


def non_finite_mismatch(got: np.ndarray, want: np.ndarray) -> str | None:
    """Where `got` and `want` differ in a NaN or an infinity (module docstring), if they
    do: how many, and the first position."""
    got_nan, want_nan = np.isnan(got), np.isnan(want)
    differ = (got_nan != want_nan) | ((np.isinf(got) | np.isinf(want)) & (got != want))
    if not differ.any():
        return None
    first = tuple(int(i) for i in np.argwhere(differ)[0])
    return (
        f"{int(np.count_nonzero(differ))} of {got.size} values differ in NaN or Inf"
        f" (first at {first}: {got[first]}, expected {want[first]})"
    )
