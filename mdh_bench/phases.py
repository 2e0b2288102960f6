"""`python -m mdh_bench.phases`: where a tuning's time goes, case by case.

    python -m mdh_bench.phases --device gpu [--cases C,...] [--budget 30s]
                               [--build-workers N] [--out DIR]

For each case, TPE tunings (seed 0) as a new user's: from a fresh, in-memory database
(the shipped configurations still seed it), candidates checked against the case's
float64 reference; one with the evaluation worker compiling every candidate (pool off),
then one with `--build-workers` processes building ahead (`mdh_ir.tuning.pool`; default
the device's default, on a GPU min(8, cores - 1)), each from empty compiler caches of
its own (PoCL's and NVIDIA's, in a fresh folder: neither finds the other's builds).
Then, per tuning, the evaluations per minute and, per phase of its evaluations
(`mdh_ir.tuning.evaluate.PHASES`) and of the tuner (`wait`, `search`, `confirm`), and
of those that overlap the rest (`tuner.OVERLAPPING`: the pool's `pool.POOL_PHASES`, the
search's draws made while the evaluation worker ran, `search_meanwhile`), the seconds,
their share of the tuning's time and the milliseconds per evaluation. Written to `--out` (default `$OUT`)
as `phases_<device>.json` (with every evaluation's phases) and `phases_<device>.md`,
which is also printed.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mdh_bench.case_data import case_data
from mdh_bench.cases import parse_cases
from mdh_bench.log import log
from mdh_ir.database.store import Database
from mdh_ir.runtime import device_info
from mdh_ir.tuning.evaluate import PHASES
from mdh_ir.tuning.tuner import OVERLAPPING, Budget, Tuner, default_build_workers

CASES = "matmul:3000x3000x3000,mcc:r50-conv3-3x3-n32,tensor_contraction:ccsdt"
ORDER = [*PHASES, "wait", "search", "confirm", *OVERLAPPING]


@contextmanager
def fresh_caches() -> Iterator[None]:
    """PoCL's kernel cache and NVIDIA's compute cache in an empty folder, for the
    processes started meanwhile."""
    names = ("POCL_CACHE_DIR", "CUDA_CACHE_PATH")
    saved = {n: os.environ.get(n) for n in names}
    with tempfile.TemporaryDirectory() as folder:
        os.environ.update(dict.fromkeys(names, folder))
        try:
            yield
        finally:
            for n, value in saved.items():
                if value is None:
                    os.environ.pop(n, None)
                else:
                    os.environ[n] = value


def measure(name: str, device: str, budget: Budget, workers: int) -> dict:
    """The tuning of case `name` within `budget` with `workers` build workers, from
    empty compiler caches, and where its time went."""
    (case,) = parse_cases(name, device)
    data = case_data(case)
    with fresh_caches():
        tuner = Tuner(data.module, Database(":memory:"), device, "tpe", seed=0, build_workers=workers)
        p = tuner.run(budget, inputs=data.inputs, reference=data.reference)
    stored = tuner.db.evaluations(tuner.key, tuner.info.key)
    return dict(
        case=f"{name}, pool of {workers}" if workers else f"{name}, pool off",
        name=name,
        build_workers=workers,
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
    return "\n".join(lines + [""] + speedups(results)) + "\n"


def speedups(results: list[dict]) -> list[str]:
    """Per case, evaluations per minute with the pool off and on, and their ratio."""
    rate = {(r["name"], r["build_workers"]): 60 * r["evaluations"] / r["elapsed"] for r in results if r["elapsed"]}
    lines = []
    for (name, workers), on in rate.items():
        off = rate.get((name, 0))
        if workers and off:
            lines.append(f"- {name}: {off:.1f} evaluations per minute with the pool off, {on:.1f} with a pool "
                         f"of {workers} ({on / off:.2f}x)")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.phases", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    parser.add_argument("--cases", default=CASES, help=f"comma-separated ENTRY:SIZE (default {CASES})")
    parser.add_argument("--budget", default="30s", help="tuning budget per case (default 30s)")
    parser.add_argument(
        "--build-workers", type=int, help="build workers of the tuning with the pool (default: the device's)"
    )
    parser.add_argument("--out", type=Path, default=os.environ.get("OUT"), help="results folder (default $OUT)")
    args = parser.parse_args(argv)
    if args.out is None:
        parser.error("give --out or set $OUT")
    workers = args.build_workers
    if workers is None:
        workers = default_build_workers(device_info(args.device).kind) or 1
    results = []
    for name in args.cases.split(","):
        for n in dict.fromkeys((0, workers)):
            log(f"{name}: tuning {args.budget}, {n} build workers")
            results.append(measure(name, args.device, Budget.parse(args.budget), n))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"phases_{args.device}.json").write_text(json.dumps(results, indent=1) + "\n")
    text = markdown(results)
    (args.out / f"phases_{args.device}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
