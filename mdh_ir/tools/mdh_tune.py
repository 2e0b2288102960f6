"""`mdh-tune`: auto-tune the configuration of an `.mlir` file's computation.

    mdh-tune f.mlir [--device D] --budget 60s|200evals [--technique tpe|anneal|random|ga|model]
             [--seed S] [--db FILE|URL] [--repeats N] [--timeout SECONDS] [-o tuned.mlir]
             [--plot run.png] [--compare tpe,anneal,random] [--build-workers N]
             [--workers N] [--device D1,D2,...] [--allow-large] [--no-seeds]

Every evaluation is stored in the tuning database (`--db`, default `$MDH_TUNING_DB` or
`~/.cache/mdh_ir/tuning.sqlite`): a killed run resumes where it stopped, and a later run
or `mdh_ir.driver.compile_module` reuses the best configuration found. A size never tuned
starts from what is known of other sizes (the database's and the shipped configurations
of the same computation, then of similar ones, adapted to these sizes): the summary lists
these seeds, where each came from and its time here (`--no-seeds`: none, the tuning
starts from the default and the database's best of these sizes alone, as a tuner
without transfer does), and where the tuning's time went
(seconds and shares of lowering, the OpenCL build, the checked run, the cache flushes,
the timed runs, ...: `mdh_ir.tuning.evaluate.PHASES`; apart, `setup`: the seconds before
the first evaluation, the reference result among them). `-o` writes the
IR with the best configuration in the op's `config`, so `mdh-opt --lower-to-opencl` and
`mdh-run` reproduce the tuned program (a configuration the input already has must be
valid: it is checked like mdh-run checks it, then replaced). An input that no
configuration can run (sizes beyond the device's memory or the 32-bit index range) is
refused before anything is allocated or built. `--compare` runs several techniques, each
with the same budget and seed from a fresh (in-memory) database, so that none starts
from another's results, and plots their best-so-far curves; it neither reads nor writes
`--db`. A plot's last point is the best its run reports (after the final check).
`--build-workers N` builds candidates ahead in N processes while
one times (`mdh_ir.tuning.pool`; default: on a GPU one per core but one, at most 8, on a
CPU 0); the time block then shows the pool's phases apart (`pool_*`, overlapping the
rest) and the device's waiting for it (`wait`); on a GPU, the search's draws made while
the evaluation worker ran are shown apart too (`search_meanwhile`; `search` is the part
of the search's time the evaluations did not cover). `--timeout`, `--repeats` and the budget
must be positive, the `-o` and `--plot` files writable, a computation of more than 2^32
points needs `--allow-large` (as in mdh-run), and a database file that is not a tuning
database (or is damaged, or of a newer schema) is refused, naming the file, before
anything is evaluated or written.

`--workers N` tunes with N worker processes (one per device: `--device` takes a list of
devices of one kind, worker i uses the i-th modulo its length) that share the tuning
database (`mdh_ir.tuning.distributed`): each searches on its own and learns what the
others stored, no configuration is evaluated twice and a killed worker loses none of its
evaluations. A budget of evaluations is the whole tuning's (the workers claim until their
claims and results since the command started reach it: a faster worker evaluates more);
one of seconds holds for each.
Commands on several hosts given one PostgreSQL database as `--db`
(`postgresql://user@host:port/db`) and `--workers` (1 or more each) tune together (each
command's budget of evaluations counts every worker's since that command started). Once
its workers ended, the command runs the final check once, itself; it exits 1 if a worker
failed (after the check, which keeps what the others found).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from mdh_ir.schedule.constraints import input_violations, violations
from mdh_ir.database.backend import shown
from mdh_ir.database.store import Database, DatabaseError, default_path
from mdh_ir.device import DeviceInfo
from mdh_ir.schedule.default_config import complete_config
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError
from mdh_ir.runtime import device_info
from mdh_ir.tools.checks import check_plot, check_work, check_writable, read_input
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import diagnose, load_module, the_compute
from mdh_ir.tools.mdh_run import format_seconds
from mdh_ir.tuning.distributed import CLAIM_SLACK, Sharing, awaited, publish, worker_name
from mdh_ir.tuning.evaluate import PHASES
from mdh_ir.tuning.pool import POOL_PHASES
from mdh_ir.tuning.tuner import OVERLAPPING, TECHNIQUES, Budget, Progress, Tuner, parse_config


class ProgressBar:
    """One status line on stderr, rewritten after each evaluation (with `lines`, one
    line per evaluation, as workers sharing stderr write it)."""

    def __init__(self, budget: Budget, label: str = "", lines: bool = False, workers: int = 1):
        """`workers`: the workers sharing `budget`'s evaluations, each expected to do
        its part of them (the ETA's)."""
        self.budget, self.label, self.lines = budget, label, lines
        evaluations = None if budget.evaluations is None else -(-budget.evaluations // workers)
        self.part = replace(budget, evaluations=evaluations)
        self.drawn = False

    def __call__(self, p: Progress) -> None:
        self.drawn = True
        best = format_seconds(p.best.seconds) if p.best and p.best.seconds else "-"
        total = f"/{self.budget.evaluations}" if self.budget.evaluations else ""
        eta = p.eta(self.part)
        line = (
            f"{self.label}[{p.evaluations}{total} evals] failed {p.failures}, "
            f"replayed {p.replayed} | best {best} | {p.elapsed:.0f}s"
            + (f", ETA {eta:.0f}s" if eta is not None else "")
        )
        sys.stderr.write(line + "\n" if self.lines else "\r" + line.ljust(100))
        sys.stderr.flush()

    def close(self) -> None:
        if self.drawn and not self.lines:
            sys.stderr.write("\n")


def summary(p: Progress, transfer: bool = True) -> str:
    """The tuning's counts, default, seeds (`transfer`: whether it looked for any),
    best and where its time went."""
    d = p.default
    others = f", {p.others} from other workers" if p.others else ""
    lines = [f"evaluations: {p.evaluations} ({p.replayed} from the database, {p.failures} failed{others})"]
    lines.append(f"default: {format_seconds(d.seconds) if d and d.ok else f'failed ({d.status})' if d else 'failed'}")
    if not transfer:
        none = " (--no-seeds)"
    elif p.seeds_found:
        none = f" ({p.seeds_found} found; the budget ran out before them)"
    else:
        none = " (nothing known of other sizes or similar computations)"
    lines.append(f"seeds: {len(p.seeds)}" + ("" if p.seeds else none))
    for seed, e in p.seeds:
        here = format_seconds(e.seconds) if e.ok else e.status
        lines.append(f"  {here}  from {seed} ({format_seconds(seed.seconds)} there)")
    return "\n".join(lines + best_lines(p) + phase_lines(p))


def best_lines(p: Progress) -> list[str]:
    d, b = p.default, p.best
    if b is None:
        return []
    lines = [f"best: {format_seconds(b.seconds)} {b.config}"]  # type: ignore[arg-type]
    if d is not None and d.ok:
        lines.append(f"speedup over default: {d.seconds / b.seconds:.2f}x")  # type: ignore
    return lines


def phase_lines(p: Progress) -> list[str]:
    """Where the tuning's time went: seconds per phase (`Progress.phases`), their share,
    and per evaluation measured in this run."""
    measured = max(1, p.evaluations - p.replayed)
    order = [*PHASES, "wait", "search", "search_meanwhile", "confirm", "replayed", "others", *POOL_PHASES]
    named = sorted(p.phases.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    lines = [f"time: {p.elapsed:.1f} s ({measured} evaluations measured)"]
    if p.setup:
        lines.append(f"  {'setup':<10} {p.setup:8.2f} s         (before the first evaluation, not in the time)")
    for name, seconds in named:
        share = seconds / p.elapsed if p.elapsed else 0.0
        each = f"  {seconds / measured * 1e3:8.1f} ms each" if name in PHASES or name in OVERLAPPING else ""
        aside = ""
        if name in POOL_PHASES:
            aside = "  (in the build pool, beside the rest)"
        elif name in OVERLAPPING:
            aside = "  (while the evaluations ran, beside the rest)"
        lines.append(f"  {name:<10} {seconds:8.2f} s {share:6.1%}{each}{aside}")
    return lines


def plot(runs: dict[str, Progress], path: str, title: str) -> None:
    """Best-so-far time against evaluations and against seconds, one curve per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_evals, by_time) = plt.subplots(1, 2, figsize=(11, 4))
    for name, p in runs.items():
        points = [(n, t, b * 1e3) for n, t, b in p.history if b is not None]
        if points:
            n, t, b = zip(*points)
            by_evals.step(n, b, where="post", label=name)
            by_time.step(t, b, where="post", label=name)
    for ax, xlabel in ((by_evals, "evaluations"), (by_time, "tuning seconds")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel("best kernel time (ms)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def check_input(op: ComputeOp, device: str | None) -> DeviceInfo:
    """The device's model; refuse an input that no configuration can run on it, or whose
    own configuration (completed as mdh-run completes it) breaks a rule."""
    info = device_info(device)
    found = input_violations(op, info)
    if not found and op.config is not None:
        found = violations(op, complete_config(op, info), info)
    if found:
        raise MDHError(f'mdh.compute "{op.comp_name.data}": {found[0]}', op)
    return info


def check_options(args: argparse.Namespace) -> None:
    """Refuse options no run can use (`ValueError` naming the option)."""
    if not 0 < args.timeout < float("inf"):
        raise ValueError(f"--timeout {args.timeout:g}: expected a positive number of seconds")
    if args.repeats <= 0:
        raise ValueError(f"--repeats {args.repeats}: expected a positive number of runs")
    if args.build_workers is not None and args.build_workers < 0:
        raise ValueError(f"--build-workers {args.build_workers}: expected 0 or more processes")
    if args.output:
        check_writable(args.output, "-o")
    if args.plot:
        check_plot(args.plot)


def tuning_db(args: argparse.Namespace) -> Path | str:
    """The tuning database: `--db`, else the default."""
    return args.db or default_path()


def run_worker(args: argparse.Namespace, module: ModuleOp, budget: Budget, devices: list) -> int:
    """Worker `--worker` of a shared tuning (`run_shared` starts it): it claims
    evaluations until the workers' reach the budget's (`Sharing.budget`), within the
    budget's seconds; no final check; one progress line per evaluation (its own, of the
    tuning's budget), its summary at the end."""
    i = args.worker
    device, target = devices[i % len(devices)], tuning_db(args)
    sharing = Sharing(i, worker_name(i), args.timeout + CLAIM_SLACK, args.since, budget.evaluations, args.workers)
    mine = replace(budget, evaluations=None)
    bar = ProgressBar(budget, f"worker {i}: ", lines=True, workers=args.workers)
    tuner = Tuner(module, Database(target), device, args.technique, args.seed, args.repeats, args.timeout, bar,
                  sharing=sharing, build_workers=args.build_workers, transfer=not args.no_seeds)  # fmt: skip
    reference = awaited(Path(args.reference)) if args.reference else None
    print(summary(tuner.run(mine, reference=reference), not args.no_seeds))
    return 0


def check(args: argparse.Namespace, module: ModuleOp, devices: list) -> list[DeviceInfo]:
    """The models of `devices`; refuse an input that one of them cannot run, or too large
    a computation without `--allow-large`."""
    op = the_compute(module)
    infos = [check_input(op, device) for device in devices]
    if not args.allow_large:
        check_work(module)
    return infos


def run_shared(args: argparse.Namespace, argv: list[str], module: ModuleOp, devices: list) -> tuple[Progress, bool]:
    """Start `--workers` workers (this command with `--worker I`), check the input while
    they start (they do not check it again; stopped if it is refused), compute the
    reference result for them and the final check (`distributed.publish`), wait for
    them, then run the final check once: its progress, and whether every worker
    succeeded."""
    folder = Path(tempfile.mkdtemp(prefix="mdh-tune-"))
    shared = folder / "reference.npz"
    command = [sys.executable, "-m", "mdh_ir.tools.mdh_tune", *argv, "--since", repr(time.time()),
               "--reference", str(shared)]  # fmt: skip
    workers = [subprocess.Popen([*command, "--worker", str(i)], stdout=subprocess.PIPE, text=True)
               for i in range(args.workers)]  # fmt: skip
    try:
        try:
            infos = check(args, module, devices)
            if len({info.key for info in infos}) > 1:
                raise ValueError("--device: the workers of one tuning need devices of one kind (model and driver)")
            target = tuning_db(args)
            db = Database(target)
            print(f"device: {infos[0].platform} | {infos[0].name}")
            print(f"workers: {args.workers}, database {shown(target)}", flush=True)
            checker = Tuner(module, db, devices[0], args.technique, args.seed, args.repeats, args.timeout)
            inputs, reference = checker.data()
            publish(shared, reference)  # the workers wait for it
            ev = checker.evaluator(inputs, reference)  # started while the workers tune
        except BaseException:
            for worker in workers:
                worker.kill()
                worker.wait()
            raise
        outputs = [worker.communicate()[0] for worker in workers]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    succeeded = True
    for i, (worker, out) in enumerate(zip(workers, outputs)):
        print(f"== worker {i} (pid {worker.pid}, device {devices[i % len(devices)] or 'default'})")
        print(out.rstrip() or "(no summary)")
        if worker.returncode != 0:
            print(f"mdh-tune: worker {i} exited with {worker.returncode}; its evaluations are kept", file=sys.stderr)
            succeeded = False
    with ev:
        progress = checker.final_check(ev)
    print("== final check")
    default = progress.default
    print(f"evaluations stored: {progress.evaluations} ({progress.failures} failed)")
    print(f"default: {format_seconds(default.seconds) if default and default.ok else 'failed'}")
    print("\n".join(best_lines(progress)))
    return progress, succeeded


def run_alone(args: argparse.Namespace, module: ModuleOp, budget: Budget) -> dict[str, Progress]:
    """Tune in this process: the technique, or each of `--compare`'s (and plot them)."""
    techniques = args.compare.split(",") if args.compare else [args.technique]
    runs: dict[str, Progress] = {}
    for name in techniques:
        db = Database(":memory:") if args.compare else Database(tuning_db(args))
        bar = ProgressBar(budget, f"{name}: " if args.compare else "")
        tuner = Tuner(
            module, db, args.device, name, args.seed, args.repeats, args.timeout, bar,
            build_workers=args.build_workers, transfer=not args.no_seeds,
        )  # fmt: skip
        try:
            runs[name] = tuner.run(budget)
        finally:
            bar.close()
        print(f"== {name}" if args.compare else f"device: {tuner.info.platform} | {tuner.info.name}")
        print(summary(runs[name], not args.no_seeds))
    if args.plot:
        each = f"{budget} each, from a fresh database" if args.compare else str(budget)
        plot(runs, args.plot, f"{the_compute(module).comp_name.data} on {tuner.info.name} ({each})")
        print(f"plot: {args.plot}")
    return runs


def run(args: argparse.Namespace, argv: list[str]) -> int:
    check_options(args)
    with open(args.input, "rb") as f:
        module = load_module(make_context(), read_input(f, args.input), args.input)
    op = the_compute(module)
    budget = Budget.parse(args.budget)
    devices = args.device.split(",") if args.device else [None]
    if args.worker is not None:  # its command checked the input
        return run_worker(args, module, budget, devices)
    succeeded = True
    if args.workers is not None:
        shared, succeeded = run_shared(args, argv, module, devices)
        runs = {args.technique: shared}
    else:
        check(args, module, devices)
        runs = run_alone(args, module, budget)
    best = min(
        (p.best for p in runs.values() if p.best is not None), key=lambda e: e.seconds, default=None
    )  # type: ignore[arg-type]
    if best is None:
        print(f"{args.input}: error: no configuration passed the check", file=sys.stderr)
        return 1
    if args.output:
        op.config = parse_config(best.config, op).to_attr()
        try:
            Path(args.output).write_text(str(module) + "\n")
        except OSError as e:
            print(f"{args.output}: error: cannot write: {e.strerror}", file=sys.stderr)
            return 1
        print(f"tuned IR: {args.output}")
    return 0 if succeeded else 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="mdh-tune", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="an .mlir file holding one mdh.compute")
    parser.add_argument(
        "--device", help="cpu, gpu or PLATFORM:DEVICE (default: $MDH_DEVICE or cpu); with --workers a list D1,D2,..."
    )
    parser.add_argument("--budget", default="60s", help="e.g. 60s, 2m, 200evals, 60s,200evals")
    parser.add_argument("--technique", default="tpe", choices=TECHNIQUES)
    parser.add_argument(
        "--compare", help="comma-separated techniques, each run with the budget from a fresh database"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--db", help="tuning database: a file or a postgresql:// URL")
    parser.add_argument("--repeats", type=int, default=10, help="timed runs per candidate")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per candidate")
    parser.add_argument(
        "--build-workers", type=int,
        help="processes building candidates ahead (default: GPU min(8, cores / workers - 1), CPU 0)",
    )
    parser.add_argument(
        "--no-seeds", action="store_true",
        help="start from the default alone: no configurations of other sizes (database or shipped)",
    )  # fmt: skip
    parser.add_argument("-o", "--output", help="write the tuned IR here")
    parser.add_argument("--plot", help="write a PNG of best time against evaluations/seconds")
    parser.add_argument("--workers", type=int, help="worker processes sharing the tuning database")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)  # the index of a started worker
    parser.add_argument("--since", type=float, help=argparse.SUPPRESS)  # when its command started
    parser.add_argument("--reference", help=argparse.SUPPRESS)  # the file its command writes the reference result to
    argv = sys.argv[1:] if argv is None else argv
    parser.add_argument("--allow-large", action="store_true", help="tune computations of more than 2^32 points")
    args = parser.parse_args(argv)
    if args.compare and any(t not in TECHNIQUES for t in args.compare.split(",")):
        parser.error(f"--compare: techniques are {', '.join(TECHNIQUES)}")
    if (args.worker is None) != (args.since is None):
        parser.error("--worker and --since come together (a worker that mdh-tune --workers started)")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers {args.workers}: expected a positive number of workers")
    if args.workers is not None and (args.compare or args.plot):
        parser.error("--compare and --plot tune alone: not with --workers")
    if args.device and "," in args.device and args.workers is None:
        parser.error("--device: a list of devices is for --workers")
    try:
        sys.exit(run(args, argv))
    except DatabaseError as e:
        print(f"{e.path}: error: {e.reason}; move it aside or pass another --db", file=sys.stderr)
    except OSError as e:
        print(f"{args.input}: error: {e.strerror}: {e.filename}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001 - every failure is one diagnostic
        print(diagnose(e, args.input), file=sys.stderr)
    sys.exit(1)


if __name__ == "__main__":
    main()
