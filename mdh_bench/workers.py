"""`python -m mdh_bench.workers`: wall time of a tuning of a fixed number of evaluations,
alone and by workers sharing it (`mdh-tune --workers N`).

    python -m mdh_bench.workers [--device cpu] [--case matmul:256] [--evaluations 24]
                                [--workers 1,2] [--rounds 2] [--server URL | --sqlite]
                                [--tune-args "MDH-TUNE OPTIONS"] [--logs DIR]

Each run tunes the benchmark case `--case` (TPE, seed 0) from a fresh tuning database:
`alone` in one process with an SQLite file on the first device of `--device` (a
comma-separated list, e.g. `NVIDIA:0,NVIDIA:1`: N workers use its first N; one device
serves them all), `N workers` with the database in a fresh PostgreSQL database of the
server at `--server` (default: one started by scripts/postgres.sh in a temporary
folder), or with `--sqlite` in a fresh SQLite file (workers of one host). The runs take
turns, `--rounds` times over, in reversed order every other round, each with an empty
kernel cache. Printed per run: wall seconds, the evaluations each worker measured and
the evaluations stored, and each tuning's seconds before its first evaluation (`setup`)
and in its loop.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mdh_bench.cases import parse_cases
from mdh_bench.entries import ENTRIES
from mdh_ir.database.store import Database

ROOT = Path(__file__).parent.parent


def fresh_database(server: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def phases(output: str) -> tuple[list[float], list[float]]:
    """Each tuning's (alone: one; shared: each worker's) seconds before its first
    evaluation (`setup`) and in its loop (`time`), from mdh-tune's time blocks."""
    setups = [float(s) for s in re.findall(r"^\s*setup\s+([\d.]+) s", output, re.M)]
    loops = [float(s) for s in re.findall(r"^time: ([\d.]+) s \(", output, re.M)]
    return setups, loops


def tune(source: Path, args: argparse.Namespace, workers: int, target: str, name: str) -> tuple:
    """Wall seconds, evaluations each worker measured, evaluations stored, and each
    tuning's setup and loop seconds (`phases`) (the output,
    each line prefixed with the seconds since the command started, kept as
    `--logs`/NAME.log). Each run builds into an empty kernel cache of its own
    (NVIDIA's OpenCL and PoCL keep built programs; one seed draws many of the same
    candidates, which a later run would find built)."""
    devices = args.device.split(",")
    sharing = ["--workers", str(workers)] if workers else []
    device = ",".join((devices * workers)[:workers]) if workers else devices[0]
    command = [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(source), "--device", device,
               "--budget", f"{args.evaluations}evals", "--db", target, *sharing, *shlex.split(args.tune_args)]  # fmt: skip
    kernels = str(source.parent / f"{name}.kernels")
    env = {**os.environ, "CUDA_CACHE_PATH": kernels, "POCL_CACHE_DIR": kernels}
    started = time.perf_counter()
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert run.stdout is not None
    lines = [(time.perf_counter() - started, line) for line in run.stdout]
    run.wait()
    wall = time.perf_counter() - started
    output = "".join(line for _, line in lines)
    if args.logs:
        Path(args.logs).mkdir(parents=True, exist_ok=True)
        (Path(args.logs) / f"{name}.log").write_text("".join(f"{t:7.2f} {line}" for t, line in lines))
    if run.returncode != 0:
        raise RuntimeError(output[-2000:])
    found = re.findall(r"^evaluations: (\d+) \((\d+) from the database", output, re.M)
    measured = [int(n) - int(r) for n, r in found]
    db = Database(target)
    stored = sum(len(db.evaluations(c, d)) for c, d in db.tuned())
    return wall, measured, stored, *phases(output)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.workers", description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--case", default="matmul:256", help="a benchmark case (python -m mdh_bench --list)")
    parser.add_argument("--evaluations", type=int, default=24)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--server", help="a PostgreSQL server's URL (default: start one)")
    parser.add_argument("--tune-args", default="", help="more options of mdh-tune, e.g. '--repeats 5'")
    parser.add_argument("--logs", help="a folder to keep each run's mdh-tune output in (its time blocks)")
    parser.add_argument("--sqlite", action="store_true", help="share an SQLite file instead of PostgreSQL")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mdh-workers-"))
    source = folder / "case.mlir"
    (case,) = parse_cases(args.case, "gpu" if "NVIDIA" in args.device or args.device == "gpu" else "cpu")
    source.write_text(str(ENTRIES[case.entry].build(**case.sizes)))
    server = args.server
    if server is None and not args.sqlite:
        pg = tempfile.mkdtemp(prefix="mdh-pg-")
        server = subprocess.run([ROOT / "scripts" / "postgres.sh", "start", pg, "55431"], check=True,
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
    try:
        for r in range(args.rounds):
            order = [0, *map(int, args.workers.split(","))]
            for workers in order if r % 2 == 0 else order[::-1]:
                name = f"alone_{r}" if not workers else f"w{workers}_{r}"
                shared = not workers or args.sqlite
                target = str(folder / f"{name}.sqlite") if shared else fresh_database(server, name)
                wall, measured, stored, setups, loops = tune(source, args, workers, target, name)
                label = "alone" if not workers else f"{workers} workers"
                print(f"round {r}: {label:<10} {wall:6.1f} s  measured {measured}  stored {stored}"
                      f"  setup {setups} s  loops {loops} s", flush=True)  # fmt: skip
    finally:
        if server is not None and args.server is None:
            subprocess.run([ROOT / "scripts" / "postgres.sh", "stop", pg], capture_output=True)
            shutil.rmtree(pg, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
