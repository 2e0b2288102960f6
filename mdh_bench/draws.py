"""`python -m mdh_bench.draws`: TPE over the whole space against TPE over the names asked.

    python -m mdh_bench.draws [--device gpu] [--cases matmul:1000,...] [--evaluations 300] [--seeds 3]

The tuner's `tpe` draws every name of the space in each trial (`space.space_names`);
optuna's multivariate TPE models only the names every trial drew and samples the others
one by one, each over every trial. Per case, TPE both ways (`whole`: the tuner's;
`asked`: only the names `sample_config` asks for) draws from each seed until
`--evaluations` distinct legal configurations, each told a synthetic time: its squared
log2-distance from a random legal configuration (one per seed) in local and private tile sizes,
work-items and work-groups, plus one per other memory choice, vector width, unroll and
loop order. Printed: milliseconds per draw over the last 50 configurations, and the best
synthetic time after 50, 100, 200, ... configurations (means over the seeds). No device
runs: the space is the device model `--device` names (a preset).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mdh_bench.cases import parse_cases
from mdh_bench.entries import ENTRIES
from mdh_ir.device import PRESETS
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.search import make_technique
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config, space_names

MARKS = (50, 100, 200, 300, 500, 1000, 1500, 2000)


def distance(cfg: Config, target: Config) -> float:
    """The synthetic time of `cfg` when `target` is the fastest (module docstring)."""
    sizes = sum((math.log2(a) - math.log2(b)) ** 2 for key in ("lt_size", "pt_size", "num_wi", "num_wg")
                for a, b in zip(getattr(cfg, key), getattr(target, key)))  # fmt: skip
    memory = sum(a != b for a, b in zip(cfg.inp_mem[0] + cfg.inp_mem[1], target.inp_mem[0] + target.inp_mem[1]))
    rest = (cfg.vector_width != target.vector_width) + (cfg.unroll != target.unroll)
    return sizes + memory + rest + (cfg.loop_order != target.loop_order)


def target_config(op, info, seed: int) -> Config:
    """A random legal configuration: the fastest, for the synthetic times of `seed`."""
    rng = np.random.default_rng(1000 + seed)
    while True:
        try:
            return sample_config(op, info, RandomTrial(rng), default_config(op, info))
        except Infeasible:
            pass


def search(op, info, names: list[str], seed: int, target: Config, evaluations: int) -> tuple[float, dict[int, float]]:
    """Milliseconds per draw over the last 50 configurations, and the best synthetic
    time at each of `MARKS`."""
    tpe, default = make_technique("tpe", seed, names=names), default_config(op, info)
    seen, best, late, marks = set(), math.inf, [], {}
    while len(seen) < evaluations:
        started = time.perf_counter()
        trial = tpe.ask()
        try:
            cfg = sample_config(op, info, trial, default)
        except Infeasible:
            cfg = None
        if len(seen) >= evaluations - 50:
            late.append(time.perf_counter() - started)
        text = str(cfg.to_attr()) if cfg is not None else None
        if cfg is None or text in seen:
            tpe.tell(trial, None)
            continue
        seen.add(text)
        value = distance(cfg, target)
        best = min(best, value)
        tpe.tell(trial, value)
        if len(seen) in MARKS:
            marks[len(seen)] = best
    return 1e3 * float(np.mean(late)), marks


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.draws", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=sorted(PRESETS), default="gpu")
    parser.add_argument("--cases", default="matmul:1000,mcc:r50-conv4-3x3s2-n1")
    parser.add_argument("--evaluations", type=int, default=300)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    info = PRESETS[args.device]
    for case in parse_cases(args.cases, args.device):
        op = find_compute(ENTRIES[case.entry].build(**case.sizes))
        targets = [target_config(op, info, seed) for seed in range(args.seeds)]
        names = space_names(op, info)
        for label, drawn in (("asked", []), ("whole", names)):
            runs = [search(op, info, drawn, seed, targets[seed], args.evaluations) for seed in range(args.seeds)]
            bests = {m: float(np.mean([r[1][m] for r in runs])) for m in runs[0][1]}
            shown = ", ".join(f"{m}: {v:.2f}" for m, v in bests.items())
            print(f"{case.name} {label}: {np.mean([r[0] for r in runs]):.1f} ms a draw; best after {shown}", flush=True)


if __name__ == "__main__":
    main()
