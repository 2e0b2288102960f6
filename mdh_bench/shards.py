"""`--gpus N`: a run's cases split over N processes, one per GPU, their results merged.

The cases are dealt round-robin in the run's order (case k to process k mod N): the slow
ones (a peer compiling, as `inductor`'s max-autotune does, or a long tuning) spread over
the cards instead of falling into one card's block. Process i runs the same command with
`CUDA_VISIBLE_DEVICES` naming one card (NVIDIA's OpenCL and torch then see that card
only), its share (`--shard i/N`), its own results folder `OUT/gpu<card>/` and its own
tuning database `gpu<card>/NAME` beside the `--db` file (an SQLite file is not shared
between processes; a PostgreSQL URL is). Each case is tuned and timed with all its
peers in one process on one card, so the ratios within a case are same-run ratios.

Its output goes to `OUT/gpu<card>/run.log` and, each line prefixed by the card, to
stderr. Once all have ended, their rows are merged into OUT in the run's case order
(`report.merge`: the CSV, the JSON and the RESULTS.md sections a single process writes);
a process that failed is named with its log, and the others' rows are kept.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

from mdh_bench.log import log
from mdh_bench.report import merge, read
from mdh_ir.database.backend import is_url

RESULTS = ("results_{}.csv", "results_{}.json", "RESULTS.md")
"""A process's results files (of its device): removed before it starts, so that its
folder holds its share of this run only."""


def share(items: list, index: int, count: int) -> list:
    """The items of process `index` of `count`: every `count`-th, from the `index`-th."""
    return items[index::count]


def cards(count: int) -> list[str]:
    """The `CUDA_VISIBLE_DEVICES` value of each of `count` processes: the first `count`
    GPUs of the OpenCL platform that `--device gpu` picks, which must be of one kind."""
    import pyopencl as cl

    from mdh_ir.runtime import select_device

    names = [d.name for d in select_device("gpu").platform.get_devices(cl.device_type.GPU)]
    if len(names) < count:
        raise SystemExit(f"--gpus {count}: {len(names)} GPUs visible ({', '.join(names)})")
    if len(set(names[:count])) > 1:
        raise SystemExit(f"--gpus {count}: the cards differ ({', '.join(names[:count])}); pick cards of one kind")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return visible.split(",")[:count] if visible else [str(i) for i in range(count)]


def folder(out: Path, card: str) -> Path:
    return out / f"gpu{card}"


def command(argv: list[str], args: argparse.Namespace, index: int, card: str, count: int) -> list[str]:
    """The harness's command line `argv` (parsed: `args`) as process `index` of `count`
    runs it on `card`."""
    db = args.db if is_url(args.db) else str(folder(Path(args.db).parent, card) / Path(args.db).name)
    out = str(folder(args.out, card))
    return [sys.executable, "-m", "mdh_bench", *argv, "--out", out, "--db", db, "--shard", f"{index}/{count}"]


def run(commands: list[list[str]], cards: list[str], out: Path, device: str, names: list[str],
        sweeps: dict[str, list[str]]) -> int:  # fmt: skip
    """Run `commands`, each on its card of `cards`, at once; then merge their results
    into `out` (the cases `names` in this order, the sections of `sweeps`). 0 if every
    one succeeded, else 1."""
    lock = threading.Lock()
    started: list[tuple[str, subprocess.Popen, threading.Thread]] = []
    try:
        for argv, card in zip(commands, cards):
            here = folder(out, card)
            here.mkdir(parents=True, exist_ok=True)
            for name in RESULTS:
                (here / name.format(device)).unlink(missing_ok=True)
            env = {**os.environ, "CUDA_VISIBLE_DEVICES": card, "PYTHONUNBUFFERED": "1"}
            child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            assert child.stdout is not None
            tee = threading.Thread(target=_tee, args=(child.stdout, here / "run.log", f"[gpu {card}] ", lock))
            tee.start()
            started.append((card, child, tee))
        for _, child, tee in started:
            child.wait()
            tee.join()
    finally:
        for _, child, _ in started:
            if child.poll() is None:
                child.terminate()
    runs, rows = [], []
    for card, _, _ in started:
        card_runs, card_rows = read(folder(out, card), device)
        runs += card_runs
        rows += card_rows
    order = {name: k for k, name in enumerate(names)}
    rows.sort(key=lambda r: order.get(r["case"], len(order)))
    if rows:
        merge(out, device, runs, rows, sweeps)
    failed = [(card, child.returncode) for card, child, _ in started if child.returncode != 0]
    for card, code in failed:
        log(f"gpu {card} failed (exit {code}): see {folder(out, card) / 'run.log'}")
    log(f"merged {len({r['case'] for r in rows})} of {len(names)} cases into {out / 'RESULTS.md'}")
    return 1 if failed else 0


def _tee(stream: IO[str], path: Path, prefix: str, lock: threading.Lock) -> None:
    """Copy `stream` to the file `path` and, each line after `prefix`, to stderr."""
    with path.open("w") as f:
        for line in stream:
            f.write(line)
            f.flush()
            with lock:
                sys.stderr.write(prefix + line)
                sys.stderr.flush()
