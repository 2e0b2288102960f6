"""One case end to end: its data (module, seeded inputs, float64 reference, bytes and
FLOPs), tuning, and the interleaved timing of ours and of every peer in this process."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_bench.cases import Case
from mdh_bench.entries import ENTRIES, REDUCTIONS
from mdh_bench.measure import Measurement, Roofline, Sampler, interleave
from mdh_ir.semantics.compare import compare
from mdh_ir.semantics.reference import find_compute
from mdh_ir.semantics.scalar_eval import numpy_dtype

SEED = 0

NO_TUNING = "none"
"""The budget that skips tuning: ours is timed with the default configuration only."""

FLOPS_PER_POINT = {
    "dot": 2, "matvec": 2, "matmul": 2, "matmul_t": 2, "bmatmul": 2, "tensor_contraction": 2,
    "mcc": 2, "mcc_capsule": 2, "gaussian": 2, "jacobi1d": 3, "jacobi3d": 6,
    **dict.fromkeys(REDUCTIONS, 1), "prefix_sum": 1, "bias_add": 1, "exp": 1,
}  # fmt: skip
"""Floating-point operations per point of the iteration space (an FMA counts 2; a
7-point sum 6 additions); computations without float arithmetic count none."""


@dataclass
class CaseData:
    """Everything every variant of one case shares."""

    case: Case
    module: ModuleOp
    inputs: list[np.ndarray]
    reference: list[np.ndarray]
    """The catalog's numpy twin, in float64."""

    @property
    def nbytes(self) -> int:
        """Bytes moved once: every input read once, every output written once."""
        return self.input_bytes + self.output_bytes

    @property
    def input_bytes(self) -> int:
        return sum(x.nbytes for x in self.inputs)

    @property
    def output_bytes(self) -> int:
        types = find_compute(self.module).output_element_types
        return sum(r.size * numpy_dtype(t).itemsize for r, t in zip(self.reference, types))

    @property
    def flops(self) -> int:
        return FLOPS_PER_POINT.get(self.case.entry, 0) * self.case.points

    def check(self, outputs: list[np.ndarray]) -> str | None:
        """None if `outputs` match the reference, else what is wrong."""
        result = compare(self.module, self.inputs, outputs, self.reference)
        return None if result.ok else result.message


def case_data(case: Case) -> CaseData:
    """The module, seeded inputs and float64 reference of `case`."""
    entry = ENTRIES[case.entry]
    inputs = entry.inputs(np.random.default_rng(SEED), **case.sizes)
    reference = entry.expected(inputs, **case.sizes)
    return CaseData(case, entry.build(**case.sizes), inputs, reference)


@dataclass
class CaseResult:
    case: Case
    nbytes: int
    flops: int
    measurements: list[Measurement] = field(default_factory=list)
    tuning: str = ""
    """The budget used: evaluations and seconds."""
    load: float = 0.0
    """The 1-minute load average after the timing (other work on the machine skews it)."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def attempt(variant: str, prepare: Callable[[], Sampler | Measurement]) -> Sampler | Measurement:
    """`prepare()`, or an unavailable measurement naming the error it raised."""
    try:
        return prepare()
    except Exception as e:  # noqa: BLE001 - a failing variant must not stop the run
        reason = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        return Measurement.missing(variant, f"failed ({reason[:300]})")


def run_case(
    case: Case,
    device: str,
    budget: str,
    db: str,
    repeats: int,
    peers: list[str],
    roofline: Roofline | None = None,
) -> CaseResult:
    """Tune ours, then time ours (tuned and default) and `peers` on `case`, interleaved
    (`roofline` tells the copy peer whether the case is memory-bound). Every run starts
    from flushed caches, as the tuner's runs do (`FLUSH_BYTES` of scratch memory read):
    a run would otherwise find the previous run's data in the caches, or write back the
    lines that run wrote. With the budget `NO_TUNING`, ours is not tuned."""
    from mdh_bench import ours, peers as peer_module
    from mdh_ir.runtime import flush
    from mdh_ir.tuning.evaluate import FLUSH_BYTES

    log(f"== {case.name} ({case.size_text})")
    data = case_data(case)
    result = CaseResult(case, data.nbytes, data.flops)
    untuned = f"not tuned (budget {NO_TUNING})"
    if budget == NO_TUNING:
        tuning, result.tuning = None, untuned
    else:
        try:
            tuning = ours.tune(data, device, budget, db)
            result.tuning = tuning.summary
        except Exception as e:  # noqa: BLE001 - the case is still measured untuned
            tuning, result.tuning = None, f"tuning failed ({type(e).__name__}: {e})"
    prepared: list[Sampler | Measurement] = []
    default = ours.default(data, device)
    tuned = tuning.config if tuning is not None else None
    shared = tuned == default
    if tuned is None:
        reason = untuned if budget == NO_TUNING else "no correct tuned configuration"
        prepared.append(Measurement.missing("ours tuned", reason))
    elif not shared:
        prepared.append(attempt("ours tuned", lambda: ours.sampler(("ours tuned",), data, device, tuned)))
    variants = ("ours tuned", "ours default") if shared else ("ours default",)
    timed = attempt(variants[0], lambda: ours.sampler(variants, data, device, default))
    prepared.append(timed)
    if shared and isinstance(timed, Measurement):  # one program failed: both columns
        prepared.append(replace(timed, variant="ours default"))
    for name in peers:
        prepared += peer_module.prepare(name, data, device, repeats, roofline)
    flushed = partial(flush, device, FLUSH_BYTES)
    result.measurements = interleave(prepared, repeats, idle=device == "cpu", before=flushed)
    result.load = os.getloadavg()[0]
    for m in result.measurements:
        log(f"   {m.variant:>19}: " + (f"{m.median * 1e3:.4g} ms" if m.times else f"n/a ({m.note})"))
    return result
