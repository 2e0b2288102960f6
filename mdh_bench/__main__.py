"""`python -m mdh_bench`: tune and measure the benchmark cases against their peers.

    python -m mdh_bench --device cpu|gpu [--cases matmul:1024,matvec:4096,... | --sweep NAME]
        [--budget 2m|none] [--db FILE] [--out mdh_bench/] [--repeats 20] [--peers P,...] [--quick]
        [--gpus N]

For each case, in this process: build the module, make seeded inputs and the float64
reference (the catalog's numpy twin), tune ours (TPE, `--budget`, evaluations stored in
`--db` so that reruns replay them), then time ours with the tuned and the default
configuration and every peer, each checked against the reference first. The device's
roofline (copy bandwidth, FMA peak) is measured once at the start of the run. Results go
to `--out`: `results_<device>.csv` and `.json` (merged: re-measured cases are replaced)
and that device's section of RESULTS.md; they are saved after every case.

`--sweep NAME` runs a size sweep of `mdh_bench.cases.SWEEPS` (`gpu`, `cpu`, or a part
such as `gpu-matmul`) and writes its own RESULTS.md section: per case our default's and
tuned time's ratios against every peer, their geometric means and the counts below 0.5x
and 0.3x (a part's run also updates its device's whole sweep's section). `--budget none`
times ours with the default configuration only.

`--quick` is a smoke run: the catalog's small sizes, a budget of a few evaluations,
5 repeats, and results under `mdh_bench/quick/` unless `--out` is given.

`--gpus N` (`--device gpu`) splits the cases over N processes, one per GPU (each with
`CUDA_VISIBLE_DEVICES` set to its card), dealt round-robin in the run's order; each case
with all its peers is timed on one card. Each process has its results folder
`OUT/gpu<card>/` (with its log, `run.log`) and its tuning database `gpu<card>/NAME` beside
`--db`; once all have ended, their results are merged into OUT as one process would have
written them (`mdh_bench.shards`), and the run lines say which card each case ran on.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from datetime import datetime
from pathlib import Path

from mdh_bench import shards
from mdh_bench.cases import SWEEPS, Case, parse_cases, quick, sweep_cases, sweeps_including
from mdh_bench.log import log
from mdh_bench.peers import PEERS
from mdh_bench.report import RunInfo, save, written_sweeps
from mdh_bench.run import NO_TUNING, run_case

HERE = Path(__file__).parent


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument("--cases", help="comma-separated ENTRY[:SIZE] (default: the device's bar cases)")
    selection.add_argument("--sweep", choices=list(SWEEPS), help="a size sweep (mdh_bench/cases.py)")
    parser.add_argument(
        "--budget", help=f"tuning budget per case (default 2m; --quick: 3evals,30s; {NO_TUNING}: no tuning)"
    )
    parser.add_argument("--db", help="tuning database (default OUT/tuning.sqlite)")
    parser.add_argument("--out", type=Path, help="results folder (default mdh_bench/, --quick: mdh_bench/quick/)")
    parser.add_argument("--repeats", type=int, help="timed runs per variant (default 20; --quick: 5)")
    parser.add_argument("--peers", help="comma-separated peers (default: all of the device's)")
    parser.add_argument("--quick", action="store_true", help="small sizes and a tiny budget")
    parser.add_argument(
        "--gpus", type=int, default=1, metavar="N", help="split the cases over N processes, one per GPU (--device gpu)"
    )
    parser.add_argument("--shard", help=argparse.SUPPRESS)  # I/N: process I's share of --gpus N
    args = parser.parse_args(argv)
    if args.gpus > 1 and args.device != "gpu":
        parser.error("--gpus needs --device gpu")
    args.budget = args.budget or ("3evals,30s" if args.quick else "2m")
    args.repeats = args.repeats or (5 if args.quick else 20)
    args.out = args.out or (HERE / "quick" if args.quick else HERE)
    args.db = args.db or str(args.out / "tuning.sqlite")
    args.peers = args.peers.split(",") if args.peers else PEERS[args.device]
    unknown = [p for p in args.peers if p not in PEERS[args.device]]
    if unknown:
        parser.error(f"unknown peer {unknown[0]} (on {args.device}: {', '.join(PEERS[args.device])})")
    return args


def libraries(device: str) -> list[str]:
    """What the peers are built on, as text for the report."""
    import numpy as np

    from mdh_bench.clblast import library, library_path
    from mdh_bench.openblas import openblas_info

    found = [f"numpy {np.__version__}"]
    blas = openblas_info()
    found.append(f"OpenBLAS: {blas.describe()}" if blas else "numpy does not use OpenBLAS")
    try:
        library()
        found.append(f"CLBlast: {library_path()}")
    except OSError as e:
        found.append(f"CLBlast: n/a ({e})")
    if device == "gpu":
        try:
            import torch

            found.append(f"torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()})")
        except ImportError:
            found.append("torch: n/a (not installed)")
    return found


def selection(args: argparse.Namespace) -> tuple[list[Case], dict[str, list[str]]]:
    """The run's cases, and the sweeps whose sections it writes (name: its case names):
    its own and every other whose section the results folder's RESULTS.md holds for the
    device (`written_sweeps`)."""
    resolve = quick if args.quick else list
    cases = resolve(sweep_cases(args.sweep, args.device) if args.sweep else parse_cases(args.cases, args.device))
    names = sweeps_including(args.sweep) if args.sweep else []
    names += [n for n in written_sweeps(args.out / "RESULTS.md", args.device) if n in SWEEPS and n not in names]
    sweeps = {name: [c.name for c in resolve(sweep_cases(name, args.device))] for name in names}
    return cases, sweeps


def main(argv: list[str] | None = None) -> int:
    from mdh_bench.measure import measure_roofline
    from mdh_ir.device import DeviceInfo
    from mdh_ir.runtime import _context, select_device

    args = parse_args(argv)
    warnings.filterwarnings("ignore", message="Non-empty compiler output")  # pyopencl: PoCL's notes
    cases, sweeps = selection(args)
    if args.gpus > 1 and not args.shard:
        cards = shards.cards(min(args.gpus, len(cases)))
        given = sys.argv[1:] if argv is None else argv
        commands = [shards.command(given, args, i, card, len(cards)) for i, card in enumerate(cards)]
        log(f"{len(cases)} cases over {len(cards)} GPUs ({', '.join(cards)}), dealt round-robin")
        return shards.run(commands, cards, args.out, args.device, [c.name for c in cases], sweeps)
    index, count = map(int, (args.shard or "0/1").split("/"))
    cases = shards.share(cases, index, count)
    card = os.environ.get("CUDA_VISIBLE_DEVICES", "") if args.shard else ""
    device = select_device(args.device)
    info = DeviceInfo.from_cl(device)
    log(f"{info.name} ({info.platform}, driver {info.driver}): {len(cases)} cases, budget {args.budget}")
    ctx, queue = _context(device)
    roofline = measure_roofline(ctx, queue, device, nbytes=(64 if args.quick else 512) << 20)
    log(
        f"copy bandwidth {roofline.copy_bandwidth / 1e9:.1f} GB/s,"
        f" FMA peak {roofline.fma_peak / 1e9:.1f} GFLOP/s,"
        f" empty kernel {roofline.empty_kernel * 1e6:.1f} us"  # type: ignore[operator]
    )
    run = RunInfo(
        run=datetime.now().isoformat(timespec="seconds") + (f" gpu{card}" if args.shard else ""),
        device=info.name, platform=info.platform,
        driver=info.driver, budget=args.budget, repeats=args.repeats, quick=args.quick,
        roofline=roofline, libraries=libraries(args.device), load=os.getloadavg()[0],
        sweep=args.sweep or "", card=card, cards=count,
    )  # fmt: skip
    for case in cases:
        result = run_case(case, args.device, args.budget, args.db, args.repeats, args.peers, roofline)
        save(args.out, args.device, run, [result], sweeps)
    log(f"results: {args.out / 'RESULTS.md'}, {args.out / f'results_{args.device}.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
