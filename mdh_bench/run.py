"""One case end to end: tuning, and the interleaved timing of ours and of every peer
in this process."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import partial

from mdh_bench import ours, peers as peer_module
from mdh_bench.case_data import CaseData, case_data
from mdh_bench.chain_variants import chain_variants
from mdh_bench.chains import CHAINS
from mdh_bench.cases import Case
from mdh_bench.log import log
from mdh_bench.measure import Measurement, Roofline, Sampler, attempt, interleave

NO_TUNING = "none"
"""The budget that skips tuning: ours is timed with the default configuration only."""


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
    lines that run wrote. With the budget `NO_TUNING`, ours is not tuned. A chain
    (`mdh_bench.chains`) is timed fused, unfused and as its single op
    (`mdh_bench.chain_variants`)."""
    from mdh_ir.runtime import flush
    from mdh_ir.tuning.evaluate import FLUSH_BYTES

    log(f"== {case.name} ({case.size_text})")
    data = case_data(case)
    result = CaseResult(case, data.nbytes, data.flops)
    if case.entry in CHAINS:
        prepared, result.tuning = chain_variants(data, device, budget, db, budget != NO_TUNING)
    else:
        prepared, result.tuning = ours_variants(data, device, budget, db)
    for name in peers:
        prepared += peer_module.prepare(name, data, device, repeats, roofline)
    flushed = partial(flush, device, FLUSH_BYTES)
    result.measurements = interleave(prepared, repeats, idle=device == "cpu", before=flushed)
    result.load = os.getloadavg()[0]
    for m in result.measurements:
        log(f"   {m.variant:>19}: " + (f"{m.median * 1e3:.4g} ms" if m.times else f"n/a ({m.note})"))
    return result


def ours_variants(data: CaseData, device: str, budget: str, db: str) -> tuple[list[Sampler | Measurement], str]:
    """Ours tuned (within `budget`) and default: their samplers (one where tuning kept
    the default configuration) and the tuning budget used, as text."""
    untuned = f"not tuned (budget {NO_TUNING})"
    if budget == NO_TUNING:
        tuning, summary = None, untuned
    else:
        try:
            tuning = ours.tune(data, device, budget, db)
            summary = tuning.summary
        except Exception as e:  # noqa: BLE001 - the case is still measured untuned
            tuning, summary = None, f"tuning failed ({type(e).__name__}: {e})"
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
    return prepared, summary
