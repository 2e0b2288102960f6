"""`python -m mdh_bench.workers`: wall time of a tuning of a fixed number of evaluations,
alone and by workers sharing it (`mdh-tune --workers N`).

    python -m mdh_bench.workers [--device cpu] [--size 256] [--evaluations 24]
                                [--workers 1,2] [--rounds 2] [--server URL]

Each run tunes a matrix product of `--size`^3 (TPE, seed 0) from a fresh tuning database: `alone` in one process with
an SQLite file, `N workers` with the database in a fresh PostgreSQL database of the
server at `--server` (default: one started by scripts/postgres.sh in a
temporary folder). The runs take turns, `--rounds` times over, in reversed order every
other round. Printed per run: wall seconds, the evaluations each worker measured and the
evaluations stored. On PoCL, set POCL_KERNEL_CACHE=0: the runs draw many of the same
candidates (one seed), and a later run would find their kernels in PoCL's cache.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import Database

ROOT = Path(__file__).parent.parent


def fresh_database(server: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


def tune(source: Path, args: argparse.Namespace, workers: int, target: str) -> tuple[float, list[int], int]:
    """Wall seconds, evaluations each worker measured, evaluations stored."""
    sharing = ["--workers", str(workers)] if workers else []
    command = [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(source), "--device", args.device,
               "--budget", f"{args.evaluations}evals", "--db", target, *sharing]  # fmt: skip
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    found = re.findall(r"^evaluations: (\d+) \((\d+) from the database", run.stdout, re.M)
    measured = [int(n) - int(r) for n, r in found]
    db = Database(target)
    stored = sum(len(db.evaluations(c, d)) for c, d in db.tuned())
    return wall, measured, stored


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.workers", description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--evaluations", type=int, default=24)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--server", help="a PostgreSQL server's URL (default: start one)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mdh-workers-"))
    source = folder / "case.mlir"
    source.write_text(str(CATALOG["matmul"].build(i=args.size, j=args.size, k=args.size)))
    server = args.server
    if server is None:
        pg = tempfile.mkdtemp(prefix="mdh-pg-")
        server = subprocess.run([ROOT / "scripts" / "postgres.sh", "start", pg, "55431"], check=True,
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
    try:
        for r in range(args.rounds):
            order = [0, *map(int, args.workers.split(","))]
            for workers in order if r % 2 == 0 else order[::-1]:
                name = f"alone_{r}" if not workers else f"w{workers}_{r}"
                target = str(folder / f"{name}.sqlite") if not workers else fresh_database(server, name)
                wall, measured, stored = tune(source, args, workers, target)
                label = "alone" if not workers else f"{workers} workers"
                print(f"round {r}: {label:<10} {wall:6.1f} s  measured {measured}  stored {stored}", flush=True)
    finally:
        if args.server is None:
            subprocess.run([ROOT / "scripts" / "postgres.sh", "stop", pg], capture_output=True)
            shutil.rmtree(pg, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
