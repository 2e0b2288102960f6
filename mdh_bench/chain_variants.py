"""Our variants of a chain case (`mdh_bench.chains`): the chain fused, unfused, and its
single op alone, each compiled with explicit configurations (no database outside
`--db` changes what is measured).

- `ours tuned` / `ours default`: the chain after `mdh-fuse` (whatever it fuses), with
  its tuned configuration (where fusion leaves one op: the tuner takes one) and with
  the default configuration of each op;
- `ours unfused`: the chain as written, one kernel (or more) per op, each op with its
  default configuration except the single op, which has its tuned one where it was
  tuned;
- `single op tuned` / `single op default`: the chain's single op (`SINGLE`) alone, at
  the chain's sizes, tuned with the same budget.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from mdh_bench import ours
from mdh_bench.case_data import CaseData, case_data
from mdh_bench.cases import Case
from mdh_bench.chains import SINGLE
from mdh_bench.log import log
from mdh_bench.measure import Measurement, Sampler, attempt
from mdh_ir.driver.compiler import compute_ops
from mdh_ir.passes.fuse import FusionRemark, MDHFuse
from mdh_ir.runtime import device_info
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.default_config import default_config

VARIANTS = ("ours tuned", "ours default", "ours unfused", "single op tuned", "single op default")


def fused(module: ModuleOp) -> ModuleOp:
    """`module` after `mdh-fuse`, its remarks logged."""
    out = module.clone()
    with warnings.catch_warnings(record=True) as remarks:
        warnings.simplefilter("always", FusionRemark)
        MDHFuse().apply(Context(), out)
    for r in remarks:
        log(f"   {r.message}")
    return out


def defaults(module: ModuleOp, device: str) -> list[Config]:
    info = device_info(device)
    return [default_config(op, info) for op in compute_ops(module)]


def single_data(data: CaseData) -> CaseData | None:
    """The case of the chain's single op at the chain's sizes, or None."""
    single = SINGLE.get(data.case.entry)
    if single is None:
        return None
    return case_data(Case(single.entry, data.case.label, single.sizes(data.case.sizes)))


def tuned(data: CaseData, device: str, budget: str, db: str, tune: bool) -> tuple[Config | None, str]:
    """The tuned configuration of `data`'s module of one op (None where it was not
    tuned) and the budget used, or why not."""
    if not tune:
        return None, "not tuned"
    count = len(compute_ops(data.module))
    if count != 1:
        return None, f"not tuned ({count} ops: the tuner takes one)"
    try:
        tuning = ours.tune(data, device, budget, db)
    except Exception as e:  # noqa: BLE001 - the case is still measured untuned
        return None, f"tuning failed ({type(e).__name__}: {e})"
    return tuning.config, tuning.summary


def chain_variants(data: CaseData, device: str, budget: str, db: str, tune: bool) -> tuple[list[Sampler | Measurement], str]:
    """Our samplers of a chain case (module docstring) and the tuning given, as text."""
    fusion = replace(data, module=fused(data.module))
    log(f"   after mdh-fuse: {len(compute_ops(fusion.module))} ops ({len(compute_ops(data.module))} before)")
    single = single_data(data)
    fused_config, fused_tuning = tuned(fusion, device, budget, db, tune)
    prepared: list[Sampler | Measurement] = []
    if fused_config is None:
        prepared.append(Measurement.missing("ours tuned", fused_tuning))
    else:
        prepared.append(attempt("ours tuned", lambda: ours.sampler(("ours tuned",), fusion, device, fused_config)))
    prepared.append(attempt("ours default", lambda: ours.sampler(("ours default",), fusion, device, defaults(fusion.module, device))))
    unfused = defaults(data.module, device)
    tuning = [f"fused: {fused_tuning}"]
    if single is None:
        prepared += [Measurement.missing(v, f"{data.case.entry} has no single op") for v in VARIANTS[3:]]
    else:
        single_config, single_tuning = tuned(single, device, budget, db, tune)
        tuning.append(f"single op: {single_tuning}")
        if single_config is None:
            prepared.append(Measurement.missing("single op tuned", single_tuning))
        else:
            unfused[SINGLE[data.case.entry].index] = single_config
            prepared.append(attempt("single op tuned", lambda: ours.sampler(("single op tuned",), single, device, single_config)))
        prepared.append(attempt("single op default", lambda: ours.sampler(("single op default",), single, device, ours.default(single, device))))
    prepared.insert(2, attempt("ours unfused", lambda: ours.sampler(("ours unfused",), data, device, unfused)))
    return prepared, "; ".join(tuning)
