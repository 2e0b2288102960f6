"""Our lowering: tuning, its three configurations (tuned, default, naive) and their timing.

Every configuration is passed explicitly to `compile_module`, so no tuning database
outside `--db` changes what is measured.
"""

from __future__ import annotations

from dataclasses import dataclass

from mdh_bench.case_data import CaseData
from mdh_bench.log import log
from mdh_bench.measure import Measurement, Sampler
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.default_config import complete_config, default_config
from mdh_ir.dialects.mdh import ConfigAttr
from mdh_ir.runtime import compile_module, device_info
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.database import Database
from mdh_ir.tuning.tuner import Budget, Progress, Tuner, parse_config


@dataclass(frozen=True)
class Tuning:
    config: Config | None
    """The best configuration of this tuning run (None if none was correct)."""
    summary: str
    """The budget used: evaluations (replayed from the database, failed) and seconds."""


def tune(data: CaseData, device: str, budget: str, db: str) -> Tuning:
    """Tune `data`'s computation with TPE within `budget`, checking candidates against
    the float64 reference; evaluations are stored in (and replayed from) `db`."""
    shown = [0]

    def progress(p: Progress) -> None:
        if p.evaluations >= shown[0] + 10:
            shown[0] = p.evaluations
            best = f"{p.best.seconds * 1e3:.4g} ms" if p.best and p.best.seconds else "-"
            log(f"   tuning: {p.evaluations} evaluations, {p.elapsed:.0f} s, best {best}")

    tuner = Tuner(data.module, Database(db), device, technique="tpe", seed=0, progress=progress)
    p = tuner.run(Budget.parse(budget), inputs=data.inputs, reference=data.reference)
    summary = f"{p.evaluations} evals ({p.replayed} replayed, {p.failures} failed), {p.elapsed:.0f} s"
    log(f"   tuning: {summary}")
    if p.best is None:
        return Tuning(None, summary)
    return Tuning(parse_config(p.best.config, find_compute(data.module)), summary)


def default(data: CaseData, device: str) -> Config:
    """The default configuration for the device (no measurement)."""
    return default_config(find_compute(data.module), device_info(device))


def naive(data: CaseData, device: str) -> Config:
    """One work-item per work-group and per output point: lt_size = pt_size = 1 and
    num_wg = N on kept dimensions, each pw dimension whole in one loop, num_wi = 1, no
    vectors or unrolling; every other key completed as the default would be."""
    module = data.module.clone()
    op = find_compute(module)
    kept = [c.kind != "pw" for c in op.combines]
    tile = [1 if k else n for n, k in zip(op.sizes, kept)]
    op.config = ConfigAttr.from_values(
        dict(
            num_wg=[n if k else 1 for n, k in zip(op.sizes, kept)],
            num_wi=[1] * op.rank,
            lt_size=tile,
            pt_size=tile,
            vector_width=1,
            unroll=1,
        )
    )
    return complete_config(op, device_info(device))


def sampler(
    variants: tuple[str, ...], data: CaseData, device: str, config: Config | list[Config]
) -> Sampler | Measurement:
    """`config` (a list: one per op of a chain) compiled and checked: a run's time is
    the program's time from OpenCL profiling events (`Program.run`), its inputs
    uploaded once (as the peers' are). Several `variants` (a tuned configuration that
    is the default) are one program: each run's time is theirs."""
    program = compile_module(data.module, device, config)
    resident = program.upload(data.inputs)
    outputs, _ = program.run(resident, repeats=1)
    wrong = data.check(outputs)
    if wrong is not None:
        return Measurement.missing(variants[0], f"wrong result: {wrong}")

    def sample() -> dict[str, float]:
        seconds = program.run(resident, repeats=1)[1][0]
        return dict.fromkeys(variants, seconds)

    note = "config " + "; ".join(str(c.config.to_attr()) for c in program.choices)
    if len(variants) > 1:
        note += f" ({', '.join(variants)}: one program, timed once a round)"
    return Sampler(sample, dict.fromkeys(variants, note))
