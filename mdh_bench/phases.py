"""`python -m mdh_bench.phases`: where a tuning's time goes, case by case.

    python -m mdh_bench.phases --device gpu [--cases C,...] [--budget 30s] [--out DIR]

For each case, a TPE tuning (seed 0) as a new user's: from a fresh, in-memory database
(the shipped configurations still seed it), candidates checked against the case's
float64 reference. Then, per phase of its evaluations (`mdh_ir.tuning.evaluate.PHASES`)
and of the tuner (`search`, `confirm`), the seconds, their share of the tuning's time and
the milliseconds per evaluation. Written to `--out` (default `$OUT`) as
`phases_<device>.json` (with every evaluation's phases) and `phases_<device>.md`,
which is also printed.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from mdh_bench.case_data import case_data
from mdh_bench.cases import parse_cases
from mdh_bench.log import log
from mdh_ir.database.store import Database
from mdh_ir.tuning.evaluate import PHASES
from mdh_ir.tuning.tuner import Budget, Tuner

CASES = "matmul:3000x3000x3000,mcc:r50-conv3-3x3-n32,tensor_contraction:ccsdt"
ORDER = [*PHASES, "search", "confirm"]


def measure(name: str, device: str, budget: Budget) -> dict:
    """The tuning of case `name` within `budget` and where its time went."""
    (case,) = parse_cases(name, device)
    data = case_data(case)
    tuner = Tuner(data.module, Database(":memory:"), device, "tpe", seed=0)
    p = tuner.run(budget, inputs=data.inputs, reference=data.reference)
    stored = tuner.db.evaluations(tuner.key, tuner.info.key)
    return dict(
        case=name,
        device=f"{tuner.info.platform} | {tuner.info.name}",
        budget=str(budget),
        evaluations=p.evaluations,
        failures=p.failures,
        elapsed=p.elapsed,
        best_seconds=p.best.seconds if p.best else None,
        phases=p.phases,
        each=[dict(status=e.status, cost=e.cost, technique=e.technique, phases=e.phases) for e in stored],
    )


def markdown(results: list[dict]) -> str:
    """One table: per phase, per case its seconds, share and milliseconds per evaluation."""
    head = "| phase | " + " | ".join(r["case"] for r in results) + " |"
    lines = [f"Device: {results[0]['device']}; budget {results[0]['budget']} per case.", "", head]
    lines.append("|---" * (len(results) + 1) + "|")
    count = "| evaluations (failed) | " + " | ".join(f"{r['evaluations']} ({r['failures']})" for r in results)
    lines.append(count + " |")
    rate = (f"{60 * r['evaluations'] / r['elapsed']:.1f}" if r["elapsed"] else "-" for r in results)
    lines.append("| evaluations per minute | " + " | ".join(rate) + " |")
    names = [n for n in ORDER if any(n in r["phases"] for r in results)]
    for name in names:
        cells = []
        for r in results:
            seconds = r["phases"].get(name, 0.0)
            share = seconds / r["elapsed"] if r["elapsed"] else 0.0
            cells.append(f"{seconds:.2f} s, {share:.1%}, {1e3 * seconds / max(1, r['evaluations']):.0f} ms/eval")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| total | " + " | ".join(f"{r['elapsed']:.1f} s" for r in results) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.phases", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    parser.add_argument("--cases", default=CASES, help=f"comma-separated ENTRY:SIZE (default {CASES})")
    parser.add_argument("--budget", default="30s", help="tuning budget per case (default 30s)")
    parser.add_argument("--out", type=Path, default=os.environ.get("OUT"), help="results folder (default $OUT)")
    args = parser.parse_args(argv)
    if args.out is None:
        parser.error("give --out or set $OUT")
    results = []
    for name in args.cases.split(","):
        log(f"{name}: tuning {args.budget}")
        results.append(measure(name, args.device, Budget.parse(args.budget)))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"phases_{args.device}.json").write_text(json.dumps(results, indent=1) + "\n")
    text = markdown(results)
    (args.out / f"phases_{args.device}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
