"""`python -m mdh_bench.transfer`: short tunings from the shipped configurations against long ones without.

Does a short tuning of a size never tuned, starting from the shipped configurations,
reach what a long tuning without them finds?

    python -m mdh_bench.transfer --device gpu [--cases C,...] [--long 15m] [--short 2m]
                                 [--gpus N] [--out DIR] [--results FILE] [--shipped FILE]
                                 [--repeats N] [--rounds N]

Per case two TPE tunings (seed 0, `--repeats` timed runs per candidate), each from a fresh tuning database of its own
(`OUT/jobs/MODE-CASE.sqlite`), candidates checked against the case's float64 reference:
`long` (`--long`, default 15 minutes) without any seeds (`Tuner(transfer=False)`, as
`mdh-tune --no-seeds`: the tuner before transfer, but with every later speed-up, so a
conservative baseline) and `short` (`--short`, default 2 minutes) starting from the
shipped configurations (`shipped.json`, or `--shipped FILE`) adapted to the case's sizes.
A case whose sizes the shipped file holds is refused (the question is about sizes never
tuned), and so is a device of which it holds nothing (`shipped.json` holds the H100's).

The jobs (case x {long, short}) are dealt over `--gpus` processes, one job per card at a
time (`CUDA_VISIBLE_DEVICES`), longest first, each building on its share of the host's
cores (one build worker per core of the share but one); each job is this command with
`--job`, writing its output to `OUT/jobs/MODE-CASE.log` (and, prefixed with its card, to
stderr) and its result to `OUT/jobs/MODE-CASE.json`. On `--device cpu`, `--gpus N` runs N
processes side by side on the CPU (their timings disturb each other: for tests). A job
whose result exists is not run again: a run stopped by a time limit goes on where it
stopped when the same command is started again; a job stopped halfway continues from its
database with what is left of its budget (its seconds less the time between its stored
results, `ran`; the evaluation cut off by the stop is lost).

Then one process on the first card times, per case, the long tuning's best, the short
tuning's best and the short tuning's first evaluation after the default (the first
transferred seed, where there is one) in turns (`Evaluator.interleave`: `--rounds`
rounds of `--repeats` runs each, the tuner's final check), and the report gives per case
both bests, `long / short` (the short tuning reaches at least 0.9x of the long one's
quality where this is >= 0.9), the first evaluation after the default, its ratio to the
long best (<= 1.5 wanted on the matrix products), the seeds the short tuning used (as
mdh-tune lists them) and the evaluation counts. Written as `OUT/transfer_<device>.json`,
`OUT/transfer_<device>.md` and the section `<device> transfer` of `--results` (default
`OUT/RESULTS.md`), which is also printed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from mdh_bench.cases import Case, parse_cases
from mdh_bench.log import log
from mdh_bench.report import write_section

CASES = (
    "matmul:1000,matmul:2000,matmul:3000,matmul:128x4096x4096,mcc:r50-conv3-3x3-n32,"
    "mcc:r50-conv4-3x3s2-n32,mcc:r50-conv4-1x1-1024to256-n32,tensor_contraction:ccsdt"
)
"""The default cases: `gpu` sweep cases at sizes `shipped.json` does not hold (matrix
products near and far from the shipped 4096³ and skinny ones, ResNet-50 convolutions
other than the shipped first layer and 7×7×512 layer, a contraction with no shipped
relative)."""
MODES = ("long", "short")
RATIO_WANTED = 0.9
"""long best / short best wanted at least this."""
FIRST_WANTED = 1.5
"""The first evaluation after the default over the long best wanted at most this on the
matrix products."""


def job_name(mode: str, case: str) -> str:
    return f"{mode}-{case.replace(':', '_')}"


def jobs_folder(out: Path) -> Path:
    return out / "jobs"


# --- one job: a tuning ----------------------------------------------------------------------


def run_job(args: argparse.Namespace, mode: str, case: Case) -> dict:
    """Tune `case` as `mode` into the job's database; its result (`job_name`'s JSON). A
    database that holds evaluations already (a job stopped halfway) is continued with
    what is left of the budget: its seconds less those the stopped runs tuned (`ran`)."""
    from mdh_bench.case_data import case_data
    from mdh_ir.database.store import Database
    from mdh_ir.tools.mdh_tune import summary
    from mdh_ir.tuning.tuner import Budget, Tuner

    data = case_data(case)
    budget = Budget.parse(args.long if mode == "long" else args.short)
    path = jobs_folder(args.out) / f"{job_name(mode, case.name)}.sqlite"
    db = Database(path)
    share = max(1, (os.cpu_count() or 2) // args.gpus - 1) if args.device == "gpu" else None
    tuner = Tuner(data.module, db, args.device, "tpe", seed=0, repeats=args.repeats, transfer=mode == "short",
                  shipped=args.shipped, build_workers=share)  # fmt: skip
    spent = ran(path)
    left = replace(budget, seconds=max(1.0, budget.seconds - spent)) if spent and budget.seconds else budget
    if spent:
        print(f"continuing after {spent:.1f} s of tuning: {left}", flush=True)
    p = tuner.run(left, inputs=data.inputs, reference=data.reference)
    print(summary(p, mode == "short"), flush=True)
    stored = db.evaluations(tuner.key, tuner.info.key)
    first = stored[1] if len(stored) > 1 else None
    return dict(
        case=case.name, mode=mode, budget=str(budget), device=f"{tuner.info.platform} | {tuner.info.name}",
        evaluations=len(stored), failures=sum(not e.ok for e in stored), tuning_seconds=spent + p.elapsed,
        continued_after=spent, last_run=dict(evaluations=p.evaluations, replayed=p.replayed, elapsed=p.elapsed),
        default=evaluation(p.default), best=evaluation(p.best), first=evaluation(first),
        seeds=[dict(seed=str(s), origin=s.origin, kin=s.kin, sizes=list(s.sizes), there=s.seconds,
                    **evaluation(e)) for s, e in p.seeds],  # type: ignore[arg-type]
        history=p.history,
    )  # fmt: skip


STOP_GAP = 120.0
"""Seconds between two stored results beyond which a stopped job's run ended there."""


def ran(path: Path) -> float:
    """Seconds the runs of a stopped job tuned: the time between consecutive results in
    its database, a gap over `STOP_GAP` taken as the stop between two runs. (The
    results' costs leave out the waits for builds and the draws, most of a tuning's
    time where builds are slow.)"""
    with closing(sqlite3.connect(path)) as conn:
        times = sorted(t for (t,) in conn.execute("SELECT created FROM evaluations WHERE status != 'running'"))
    return sum(b - a for a, b in zip(times, times[1:]) if b - a <= STOP_GAP)


def evaluation(e) -> dict | None:
    """An evaluation as a job's result holds it."""
    return None if e is None else dict(config=e.config, status=e.status, seconds=e.seconds, technique=e.technique)


# --- the jobs over the cards ----------------------------------------------------------------


def slots(args: argparse.Namespace) -> list[str]:
    """One `CUDA_VISIBLE_DEVICES` value per process on a GPU (`shards.cards`), on a CPU
    the processes' numbers."""
    if args.device == "gpu":
        from mdh_bench.shards import cards

        return cards(args.gpus)
    return [str(i) for i in range(args.gpus)]


def order(cases: list[Case], args: argparse.Namespace) -> list[tuple[str, Case]]:
    """The jobs, longest first (the long tunings, then the short ones; larger cases first)."""
    from mdh_ir.tuning.tuner import Budget

    seconds = {m: Budget.parse(getattr(args, m)).seconds or 0.0 for m in MODES}
    jobs = [(m, c) for m in MODES for c in cases]
    return sorted(jobs, key=lambda j: (-seconds[j[0]], -j[1].points))


def command(argv: list[str], *what: str) -> list[str]:
    """This command line (`argv`, the user's) run as one job, or as the final timing."""
    return [sys.executable, "-m", "mdh_bench.transfer", *argv, *what]


def deal(argv: list[str], args: argparse.Namespace, jobs: list[tuple[str, Case]], cards: list[str]) -> list[str]:
    """Run the `jobs` not done yet, one per card at a time; the names of those that failed."""
    here = jobs_folder(args.out)
    todo: queue.Queue = queue.Queue()
    for mode, case in jobs:
        if not (here / f"{job_name(mode, case.name)}.json").exists():
            todo.put((mode, case))
    failed: list[str] = []
    lock = threading.Lock()

    def work(card: str) -> None:
        while not STOPPING.is_set():
            try:
                mode, case = todo.get_nowait()
            except queue.Empty:
                return
            name = job_name(mode, case.name)
            with lock:
                log(f"[{args.device} {card}] {mode} tuning of {case.name}")
            code = launch(command(argv, "--job", f"{mode}/{case.name}"), args.device, card, here / f"{name}.log", lock)
            if code != 0:
                with lock:
                    failed.append(name)
                    log(f"[{args.device} {card}] {name} failed (exit {code}): see {here / name}.log")

    threads = [threading.Thread(target=work, args=(card,), daemon=True) for card in cards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failed


RUNNING: set[subprocess.Popen] = set()
"""The jobs running now, stopped (their process groups) when this command is."""
STOPPING = threading.Event()
"""Set when this command is stopped: no further job starts."""


def launch(argv: list[str], device: str, card: str, path: Path, lock: threading.Lock) -> int:
    """Run `argv` on `card` (on a GPU: the only card it sees, with a kernel cache of
    its own, `OUT/kernel_caches/MODE-CASE`: NVIDIA's OpenCL caches built programs, and
    a short tuning must not build fast what the long one of its case built), its output
    to `path` and, prefixed with the card, to stderr; its exit status."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if device == "gpu":
        env["CUDA_VISIBLE_DEVICES"] = card
        env["CUDA_CACHE_PATH"] = str(path.parent.parent / "kernel_caches" / path.stem)
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)  # fmt: skip
    RUNNING.add(child)
    assert child.stdout is not None
    with path.open("w") as f:
        for line in child.stdout:
            f.write(line)
            f.flush()
            with lock:
                sys.stderr.write(f"[{device} {card}] {line}")
                sys.stderr.flush()
    code = child.wait()
    RUNNING.discard(child)
    return code


def stop_running(*_) -> None:
    """Stop the running jobs' process groups (their evaluation and build workers too)."""
    STOPPING.set()
    for child in list(RUNNING):
        try:
            os.killpg(child.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    raise SystemExit(1)


# --- the final timing in turns --------------------------------------------------------------


def retime(args: argparse.Namespace, cases: list[Case]) -> dict:
    """Per case, the long and short bests and the short tuning's first evaluation after
    the default, timed in turns in this process: {case: {config: seconds}}."""
    from mdh_bench.case_data import case_data
    from mdh_ir.database.store import parse_config
    from mdh_ir.semantics.reference import find_compute
    from mdh_ir.tuning.evaluate import Evaluator

    timed = {}
    for case in cases:
        results = [read_job(args.out, m, case) for m in MODES]
        configs = [r["best"]["config"] for r in results if r and r["best"]]
        first = results[1]["first"] if results[1] else None
        if first and first["status"] == "ok":
            configs.append(first["config"])
        configs = list(dict.fromkeys(configs))
        if not configs:
            continue
        log(f"timing {len(configs)} configurations of {case.name} in turns")
        data = case_data(case)
        op = find_compute(data.module)
        with Evaluator(data.module, data.inputs, data.reference, args.device, args.repeats) as ev:
            medians = ev.interleave([parse_config(c, op) for c in configs], args.rounds)
        if medians is not None:
            timed[case.name] = dict(zip(configs, medians))
    return timed


def read_job(out: Path, mode: str, case: Case) -> dict | None:
    path = jobs_folder(out) / f"{job_name(mode, case.name)}.json"
    return json.loads(path.read_text()) if path.exists() else None


# --- the report -----------------------------------------------------------------------------


def results(args: argparse.Namespace, cases: list[Case], timed: dict) -> list[dict]:
    """Per case its tunings and the times in turns (`retime`), with the ratios."""
    rows = []
    for case in cases:
        long, short = (read_job(args.out, m, case) for m in MODES)
        times = timed.get(case.name, {})
        at = lambda r, key: times.get(r[key]["config"]) if r and r[key] else None  # noqa: E731
        row = dict(case=case.name, matmul=case.entry == "matmul", long=long, short=short,
                   long_best=at(long, "best"), short_best=at(short, "best"), first=at(short, "first"))  # fmt: skip
        lb, sb, first = row["long_best"], row["short_best"], row["first"]
        row["ratio"] = lb / sb if lb and sb else None
        row["first_ratio"] = first / lb if first and lb else None
        rows.append(row)
    return rows


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:.4g} ms" if seconds is not None else "n/a"


def _ratio(value: float | None, good: bool) -> str:
    return "n/a" if value is None else f"{value:.2f}" + (" ✓" if good else " ✗")


def _count(job: dict | None) -> str:
    return f"{job['evaluations']} ({job['failures']}), {job['tuning_seconds']:.0f} s" if job else "n/a"


def _plain(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _seeds(job: dict | None) -> str:
    if job is None:
        return "n/a"
    if not job["seeds"]:
        return "none"
    return "; ".join(f"{s['seed']} ({_ms(s['seconds']) if s['status'] == 'ok' else s['status']})" for s in job["seeds"])


def _first(job: dict | None) -> str:
    f = job and job["first"]
    return f"{f['technique']}, {_ms(f['seconds']) if f['status'] == 'ok' else f['status']} in tuning" if f else "n/a"


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    """The section: per case both tunings, the times in turns, the ratios and the seeds."""
    device = next((r[m]["device"] for r in rows for m in MODES if r[m]), args.device)
    lines = [
        f"Device: {device}; `long`: {args.long} of TPE without seeds (`mdh-tune --no-seeds`), `short`: {args.short} "
        f"from the shipped configurations; each from a fresh database. Bests and the short tuning's first "
        f"evaluation after the default timed in turns ({args.rounds} rounds of {args.repeats} runs) on one card. "
        f"long/short >= {RATIO_WANTED} wanted; first/long <= {FIRST_WANTED} wanted on matmul.",
        "",
        "| case | long: evals (failed), s | short: evals (failed), s | long best | short best | long/short "
        "| first after default | first / long best | short's seeds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = _ratio(r["ratio"], r["ratio"] is not None and r["ratio"] >= RATIO_WANTED)
        good = r["first_ratio"] is not None and r["first_ratio"] <= FIRST_WANTED
        first_ratio = _ratio(r["first_ratio"], good) if r["matmul"] else _plain(r["first_ratio"])
        lines.append(
            f"| {r['case']} | {_count(r['long'])} | {_count(r['short'])} | {_ms(r['long_best'])} "
            f"| {_ms(r['short_best'])} | {ratio} | {_ms(r['first'])} ({_first(r['short'])}) | {first_ratio} "
            f"| {_seeds(r['short'])} |"
        )
    reached = sum(r["ratio"] is not None and r["ratio"] >= RATIO_WANTED for r in rows)
    matmuls = [r for r in rows if r["matmul"]]
    close = sum(r["first_ratio"] is not None and r["first_ratio"] <= FIRST_WANTED for r in matmuls)
    lines += [
        "",
        f"- short reaches >= {RATIO_WANTED}x of long's best on {reached} of {len(rows)} cases",
        f"- the first evaluation after the default is within {FIRST_WANTED}x of long's best on {close} of "
        f"{len(matmuls)} matmul cases",
    ]
    return "\n".join(lines) + "\n"


def report(args: argparse.Namespace, cases: list[Case], timed: dict) -> str:
    rows = results(args, cases, timed)
    text = markdown(rows, args)
    settings = dict(long=args.long, short=args.short, rounds=args.rounds, repeats=args.repeats,
                    shipped=str(args.shipped) if args.shipped else None)  # fmt: skip
    (args.out / f"transfer_{args.device}.json").write_text(json.dumps(dict(settings, cases=rows), indent=1) + "\n")
    (args.out / f"transfer_{args.device}.md").write_text(text)
    write_section(args.results or args.out / "RESULTS.md", f"{args.device} transfer", text)
    return text


# --- the command line -----------------------------------------------------------------------


def check_cases(cases: list[Case], shipped_path: Path | None, device: str) -> None:
    """Refuse a case whose computation the shipped file holds at the case's sizes, and a
    device of which it holds nothing (the short tunings would have no seeds)."""
    from mdh_bench.entries import ENTRIES
    from mdh_ir.database import shipped
    from mdh_ir.database.store import describe
    from mdh_ir.runtime import device_info
    from mdh_ir.semantics.reference import find_compute

    entries = shipped.load(shipped_path)
    model = device_info(device).key.rsplit("|", 1)[0]
    if not any(e["device"].rsplit("|", 1)[0] == model for e in entries):
        held = sorted({e["device"].rsplit("|", 1)[0] for e in entries}) or ["nothing"]
        raise SystemExit(f"the shipped configurations hold nothing of {model} (they hold {', '.join(held)})")
    known = {(e["family"], tuple(e["sizes"])) for e in entries if "family" in e}
    for case in cases:
        mine = describe(find_compute(ENTRIES[case.entry].build(**case.sizes)))
        if (mine["family"], tuple(mine["sizes"])) in known:
            raise SystemExit(f"{case.name}: the shipped configurations hold these sizes; pick a size never tuned")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m mdh_bench.transfer", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    parser.add_argument("--cases", default=CASES, help=f"comma-separated ENTRY:SIZE (default {CASES})")
    parser.add_argument("--long", default="15m", help="the tuning without seeds (default 15m)")
    parser.add_argument("--short", default="2m", help="the tuning from the shipped configurations (default 2m)")
    parser.add_argument("--gpus", type=int, default=1, help="processes, one per card (default 1)")
    parser.add_argument("--out", type=Path, default=os.environ.get("OUT"), help="results folder (default $OUT)")
    parser.add_argument("--results", type=Path, help="the RESULTS.md to write the section to (default OUT/RESULTS.md)")
    parser.add_argument("--shipped", type=Path, help="shipped configurations (default: the package's shipped.json)")
    parser.add_argument("--repeats", type=int, default=10, help="timed runs per candidate, and per round in turns")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the timing in turns")
    parser.add_argument("--job", help=argparse.SUPPRESS)  # MODE/CASE: one job
    parser.add_argument("--retime", action="store_true", help=argparse.SUPPRESS)  # the final timing
    args = parser.parse_args(argv)
    if args.out is None:
        parser.error("give --out or set $OUT")
    if args.gpus < 1:
        parser.error(f"--gpus {args.gpus}: expected 1 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    cases = parse_cases(args.cases, args.device)
    if args.job:
        mode, _, name = args.job.partition("/")
        (case,) = [c for c in cases if c.name == name]
        result = run_job(args, mode, case)
        (jobs_folder(args.out) / f"{job_name(mode, name)}.json").write_text(json.dumps(result, indent=1) + "\n")
        return 0
    if args.retime:
        (args.out / "retimed.json").write_text(json.dumps(retime(args, cases), indent=1) + "\n")
        return 0
    check_cases(cases, args.shipped, args.device)
    jobs_folder(args.out).mkdir(parents=True, exist_ok=True)
    cards = slots(args)
    signal.signal(signal.SIGTERM, stop_running)
    try:
        failed = deal(argv, args, order(cases, args), cards)
        retimed = args.out / "retimed.json"
        retimed.unlink(missing_ok=True)
        lock = threading.Lock()
        code = launch(command(argv, "--retime"), args.device, cards[0], args.out / "retime.log", lock)
    except KeyboardInterrupt:
        stop_running()
    timed = json.loads(retimed.read_text()) if code == 0 and retimed.exists() else {}
    print(report(args, cases, timed))
    if failed or code != 0:
        log(f"failed: {', '.join(failed + ([] if code == 0 else ['the timing in turns']))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
