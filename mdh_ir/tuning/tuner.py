"""The tuning loop: search the space of one computation on one device within a budget.

The default configuration is evaluated first, then the best configuration the database
already knows, then the seeds (`mdh_ir.tuning.transfer`: the best configurations of the
same computation at other sizes and of similar computations, adapted to these sizes;
none with `transfer=False`, `mdh-tune --no-seeds`). The
technique starts from the fastest of the default (`Technique.start_from`), the seeds, and
the database's best where that is an earlier tuning's confirmed pick: a continued tuning
searches around it instead of starting over (a killed run left no confirmed pick, so its
restart starts where it did). Then the technique proposes draws;
draws that break a rule are never built; every other candidate is looked up in the
database before it is evaluated. A configuration stored by an earlier run counts as an
evaluation of this run (with its stored cost) without running again: a killed run,
restarted with the same seed and technique, replays its stored evaluations in moments
and goes on where it stopped, and duplicates are never measured twice. Only failures
caused by the configuration are replayed (`Evaluation.lasting`); one caused by the
earlier run's options or the machine's state (a timeout, a crash) is evaluated again.

Candidates are built ahead in a pool of processes (`mdh_ir.tuning.pool`, `build_workers`
of them) while the evaluation worker times: the default, the known best and the seeds are
handed to the pool at once, then the technique is asked for as many candidates as the
pool keeps in flight (`BuildPool.ahead`), and each is evaluated as its build finishes
and told to the technique (optuna's TPE treats the candidates still in flight as
`constant_liar` does: as bad as the worst, so it asks for others). The device waits only
for a build that is not done yet (`wait`). With no build workers (`build_workers=0`) the
evaluation worker compiles each candidate itself and the technique is asked for one at a
time, as before.

When the search ends, its best candidate, the default and an earlier tuning's pick are
timed again in turns (`CONFIRM_ROUNDS` rounds) and their stored times become the
interleaved ones: single timings on a busy machine can crown a candidate that is not
faster than the default, and a pick timed in another run is compared in this one. The
tuning's pick is then the database's best, so what it reports is what `compile_module`
uses afterwards.

Workers tuning one computation together (`sharing`, `mdh_ir.tuning.distributed`) share
the tuning database: each has its own technique, which learns the results the others
stored (`Technique.learn`) each time before it is asked for more candidates, and each
claims a configuration before evaluating it: a draw another worker holds or has stored
is skipped as a duplicate, and the default, the database's best and the seeds are
waited for while another worker evaluates them. A worker leaves the final check to its
command, which runs it once all its workers ended (`final_check`).

Budgets: `Budget.parse("60s")`, `"200evals"`, `"2m"`, or both (`"60s,200evals"`):
tuning stops at whichever is reached first. Seconds count evaluation costs (stored ones
included) plus the search's own time.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.schedule.config import Config
from mdh_ir.database.store import OK, RUNNING, Database, Evaluation, best_config, parse_config
from mdh_ir.schedule.default_config import default_config
from mdh_ir.runtime import device_info
from mdh_ir.semantics.compare import reference_outputs
from mdh_ir.semantics.host import host_function, random_arguments
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.distributed import Sharing
from mdh_ir.tuning.evaluate import Evaluator
from mdh_ir.tuning.pool import POOL_PHASES, BuildPool
from mdh_ir.tuning.model import ModelSearch
from mdh_ir.tuning.search import TECHNIQUES as SEARCHES
from mdh_ir.tuning.search import Technique, make_technique
from mdh_ir.tuning.space import Infeasible, config_params, sample_config, space_names
from mdh_ir.tuning.transfer import Seed, seeds

CONFIRM_ROUNDS = 5
"""Rounds of the final interleaved timing of the best candidate against the default."""
TECHNIQUES = (*SEARCHES, "model")
"""The search techniques (`search`) and the cost model's (`model`)."""
STALL_LIMIT = 500
"""Consecutive draws without a new candidate (infeasible or duplicate) that end tuning."""
OVERLAPPING = (*POOL_PHASES, "search_meanwhile")
"""The phases that overlap the tuning's time (`Progress.phases`), not part of `elapsed`:
the build pool's and the search's draws made while the evaluation worker ran."""


def default_build_workers(kind: str, tunings: int = 1) -> int:
    """Build workers for a device of `kind`, one of `tunings` processes tuning on this
    host (the workers of one `mdh-tune --workers` command): on a GPU, their share of the
    host's cores but one each (for the evaluation worker), at most 8; on a CPU none:
    there builds must wait while candidates run (`mdh_ir.tuning.gate`), so the evaluation
    worker waits for the builds under way before each run, and on PoCL (2 cores) a pool
    of 1 or 2 made tuning slower (mdh_bench/RESULTS.md)."""
    return min(8, max(1, (os.cpu_count() or 2) // tunings - 1)) if kind == "gpu" else 0


@dataclass(frozen=True)
class Budget:
    evaluations: int | None = None
    seconds: float | None = None

    @staticmethod
    def parse(text: str) -> Budget:
        evaluations = seconds = None
        for part in text.replace(" ", "").split(","):
            m = re.fullmatch(r"(\d+(?:\.\d+)?)(evals?|s|m|min)", part)
            if not m:
                raise ValueError(f"budget '{part}': expected e.g. 60s, 2m or 200evals")
            value, unit = float(m.group(1)), m.group(2)
            if value < (1 if unit.startswith("eval") else 1e-9):
                raise ValueError(f"budget '{part}': expected a positive budget, e.g. 60s, 2m or 200evals")
            if unit.startswith("eval"):
                evaluations = int(value)
            else:
                seconds = value * (60 if unit.startswith("m") else 1)
        return Budget(evaluations, seconds)

    def __str__(self) -> str:
        parts = [f"{self.seconds:g}s"] if self.seconds is not None else []
        parts += [f"{self.evaluations}evals"] if self.evaluations is not None else []
        return ",".join(parts)


@dataclass
class Progress:
    evaluations: int = 0
    failures: int = 0
    replayed: int = 0
    others: int = 0
    """Results a worker of a shared tuning took from the database instead of measuring
    (the others', waited for where under way; an earlier run's); `evaluations` counts
    only what this worker evaluated."""
    skipped: int = 0
    """Draws never built: infeasible or duplicates."""
    elapsed: float = 0.0
    setup: float = 0.0
    """Seconds before the first evaluation, not in `elapsed`: the reference result, the
    seeds, starting the build pool and the evaluation worker."""
    best: Evaluation | None = None
    default: Evaluation | None = None
    seeds: list[tuple[Seed, Evaluation]] = field(default_factory=list)
    """The transferred configurations tried before the search, and their results (one
    already evaluated, such as the default, is not evaluated again)."""
    seeds_found: int = 0
    """The transferred configurations found; those past the budget are not tried."""
    phases: dict[str, float] = field(default_factory=dict)
    """Where `elapsed` went, in seconds: the phases of the evaluations measured in this
    run (`evaluate.PHASES`), `replayed` (the stored costs of those replayed from the
    database), `others` (a shared tuning's worker waiting for and reading `others`),
    `search` (the technique's draws, skipped ones included, where the evaluation worker
    did not run meanwhile), `wait` (waiting for the pool to finish a candidate's build)
    and `confirm` (the final check); and, not part of `elapsed` as they overlap it
    (`OVERLAPPING`), the seconds spent in the build pool (`pool.POOL_PHASES`) and the
    draws made while the evaluation worker ran (`search_meanwhile`; the part of them
    that outlasted it is `search`)."""
    history: list[tuple[int, float, float | None]] = field(default_factory=list)
    """(evaluations, elapsed seconds, best time so far) after each evaluation, and after
    the final check (`Tuner.confirm`): the last point is the best the run reports."""

    def spend(self, phase: str, seconds: float) -> None:
        """Count `seconds` to `elapsed` and to `phase` (`phases`); those of the
        overlapping phases (`OVERLAPPING`) only to the phase."""
        self.elapsed += seconds if phase not in OVERLAPPING else 0.0
        self.phases[phase] = self.phases.get(phase, 0.0) + seconds

    def eta(self, budget: Budget) -> float | None:
        left = []
        if budget.seconds is not None:
            left.append(max(0.0, budget.seconds - self.elapsed))
        if budget.evaluations is not None and self.evaluations:
            per = self.elapsed / self.evaluations
            left.append(max(0, budget.evaluations - self.evaluations) * per)
        return min(left) if left else None

    def done(self, budget: Budget, pending: int = 0) -> bool:
        """Whether `budget` is spent, counting `pending` evaluations under way as done."""
        return (budget.evaluations is not None and self.evaluations + pending >= budget.evaluations) or (
            budget.seconds is not None and self.elapsed >= budget.seconds
        )


class Tuner:
    def __init__(
        self,
        module: ModuleOp,
        db: Database,
        device: str | None = None,
        technique: str = "tpe",
        seed: int = 0,
        repeats: int = 10,
        timeout: float = 60.0,
        progress: Callable[[Progress], None] | None = None,
        worker: str = "mdh_ir.tuning.evaluate",
        build_workers: int | None = None,
        sharing: Sharing | None = None,
        transfer: bool = True,
        shipped: Path | None = None,
    ):
        """`build_workers`: processes building candidates ahead (`default_build_workers`
        by default; 0: the evaluation worker compiles each). `transfer`: start from the
        seeds (`mdh_ir.tuning.transfer`); without it, from the default and the database's
        best of these sizes only, as before transfer existed. `shipped`: the shipped
        configurations' file the seeds are read from (default: the package's)."""
        self.module = module
        self.op = find_compute(module)
        self.db = db
        self.device = device
        self.info = device_info(device)
        self.sharing = sharing
        self.technique = self.make_technique(technique, seed)
        self.seed = seed
        self.repeats, self.timeout, self.worker = repeats, timeout, worker
        tunings = sharing.local if sharing is not None else 1
        self.build_workers = default_build_workers(self.info.kind, tunings) if build_workers is None else build_workers
        self.on_progress = progress or (lambda p: None)
        self.transfer, self.shipped = transfer, shipped
        self.key = db.add_computation(self.op)

    def make_technique(self, name: str, seed: int) -> Technique:
        """The technique `name` (`TECHNIQUES`); the cost model's learns from the database."""
        if name == "model":
            return ModelSearch(seed + (self.sharing.index if self.sharing else 0), self.op, self.info, self.db)
        return make_technique(name, seed, self.sharing, space_names(self.op, self.info))

    def run(
        self,
        budget: Budget,
        inputs: list[np.ndarray] | None = None,
        reference: list[np.ndarray] | Callable[[], list[np.ndarray]] | None = None,
    ) -> Progress:
        """Tune within `budget`. Candidates are checked on `inputs` (seeded random ones
        by default) against `reference` (by default the reference semantics; pass an
        independent float64 result where evaluating the semantics would be too slow, or
        a function that returns one computed elsewhere: a shared tuning's workers wait
        for their command's, `distributed.awaited`).
        The default is evaluated first, then the best configuration the database
        already knows (a replay), so that a tuning that continues a database never
        ends with a worse pick than the database had; not by a worker of a shared
        tuning, whose command checks the database's best once at the end. Then the
        transferred seeds; a worker of a shared tuning leaves those another worker is
        evaluating to it (their results reach its technique as the others' do) and
        takes those stored (`Progress.others`), so that workers split the seeds; one
        that finds the default claimed by another evaluates its seeds before it waits
        for the default's result."""
        began = time.perf_counter()
        progress = Progress()
        seen: dict[str, Evaluation] = {}
        default = default_config(self.op, self.info)
        found = seeds(self.op, self.info, self.db, shipped_path=self.shipped) if self.transfer else []
        progress.seeds_found = len(found)

        def stored(text: str) -> Evaluation | None:
            """The database's evaluation of `text` that a run replays, if any."""
            hit = self.db.lookup(self.key, self.info.key, text)
            return hit if hit is not None and hit.lasting else None

        with ExitStack() as stack:

            def start_pool(*checked) -> BuildPool:
                """The build pool, building the default and the seeds."""
                pool = stack.enter_context(BuildPool(self.module, self.device, self.build_workers, self.timeout, *checked))
                for cfg in (default, *(seed.config for seed in found)):
                    if stored(str(cfg.to_attr())) is None:
                        pool.submit(str(cfg.to_attr()), cfg)
                return pool

            cpu = self.info.kind == "cpu"
            # on a GPU the pool builds the first candidates while the reference is computed;
            # on a CPU it runs and checks each build, and holds the gate with the evaluations
            pool = None if cpu else start_pool()
            gate = None
            if self.build_workers and cpu:
                gate = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "gate")
            ev = stack.enter_context(
                Evaluator(self.module, None, None, self.device, self.repeats, self.timeout, self.worker, gate)
            )
            ev.start()  # its imports, parse and opening the device overlap the reference and the first builds
            inputs, reference = self.data(inputs, reference)
            ev.supply(inputs, reference)
            if pool is None:
                pool = start_pool(inputs, reference, gate)
            progress.setup = time.perf_counter() - began

            def measure(cfg: Config, technique: str = self.technique.name, meanwhile=None) -> Evaluation:
                text = str(cfg.to_attr())
                started = time.perf_counter()
                result = stored(text)
                if result is None and self.sharing is not None:
                    result = self.sharing.claim_or_wait(self.db, self.key, self.info.key, text)
                theirs = result is not None and self.sharing is not None
                if theirs:  # another worker's (or an earlier run's): not this worker's evaluation
                    progress.others += 1
                    progress.spend("others", time.perf_counter() - started)
                elif result is not None:
                    progress.replayed += 1
                    progress.spend("replayed", result.cost)
                else:
                    started = time.perf_counter()
                    built = pool.take(text, cfg)
                    if pool.workers:
                        progress.spend("wait", time.perf_counter() - started)
                    best = progress.best.seconds if progress.best else None
                    started = time.perf_counter()
                    result = ev.evaluate(cfg, technique, best, built, meanwhile)
                    if meanwhile is not None:  # what the evaluation did not cover of it
                        progress.spend("search", max(0.0, time.perf_counter() - started - result.cost))
                    self.db.record(self.key, self.info.key, result)
                    for phase, seconds in result.phases.items():
                        progress.spend(phase, seconds)
                seen[text] = result
                progress.evaluations += not theirs
                progress.failures += not theirs and not result.ok
                if result.ok and (progress.best is None or result.seconds < progress.best.seconds):  # type: ignore
                    progress.best = result
                best = progress.best.seconds if progress.best else None
                progress.history.append((progress.evaluations, progress.elapsed, best))
                self.on_progress(progress)
                return result

            # a worker finding the default claimed evaluates its seeds first, then waits for it
            later = self.sharing is not None and not self._claim(str(default.to_attr()))
            if not later:
                progress.default = measure(default)
            known = best_config(self.db, self.op, self.info) if self.sharing is None else None
            earlier = None
            if known is not None and str(known.to_attr()) not in seen:
                replayed = measure(known)
                if replayed.ok and replayed.confirmed:
                    earlier = replayed
            for seed in found:
                text = str(seed.config.to_attr())
                if text not in seen and progress.done(budget):
                    break
                if text not in seen and stored(text) is None and not self._claim(text):
                    continue  # another worker's: its result reaches the technique (`learn_others`)
                progress.seeds.append((seed, seen[text] if text in seen else measure(seed.config, "transfer")))
            if later:
                progress.default = measure(default)
            origin, at_origin = default, progress.default
            if earlier is not None and (not at_origin.ok or earlier.seconds < at_origin.seconds):  # type: ignore
                origin, at_origin = known, earlier
            for seed, result in progress.seeds:
                if result.ok and (not at_origin.ok or result.seconds < at_origin.seconds):  # type: ignore
                    origin, at_origin = seed.config, result
            pool.discard()
            params = config_params(self.op, self.info, origin)
            if at_origin.ok and params is not None:
                self.technique.start_from(params, at_origin.seconds)  # type: ignore[arg-type]
            self.search(budget, pool, measure, seen, stored, default, progress)
            pool.close()
            if self.sharing is None:  # a shared tuning's command checks once (`final_check`)
                self.confirm(ev, progress, earlier)
            else:
                self.sharing.release(self.db, self.key, self.info.key)
        return progress

    def search(self, budget: Budget, pool: BuildPool, measure, seen, stored, default: Config, progress: Progress) -> None:
        """Ask the technique for candidates, as many at a time as `pool` keeps in flight,
        until `budget` is spent (`_Draws`); evaluate each as its build finishes
        (`measure`) and tell the technique. On a GPU the next candidates are drawn while
        the evaluation worker runs the current one (`Evaluator.evaluate`'s `meanwhile`):
        the search's time overlaps the device's, and counts to the tuning's time only
        where it outlasts the evaluation (on a CPU device it would disturb the timed
        runs). Waiting for the pool to finish a build counts as `wait`."""
        draws = _Draws(self, budget, pool, measure, seen, stored, default, progress)
        meanwhile = (lambda: draws.refill(overlapping=True)) if self.info.kind != "cpu" else None
        while True:
            draws.refill()
            if not draws.pending or progress.done(budget):
                return
            started = time.perf_counter()
            text = draws.current = pool.ready()
            if pool.workers:
                progress.spend("wait", time.perf_counter() - started)
            cfg, trials = draws.pending[text]
            result = measure(cfg, meanwhile=meanwhile)
            del draws.pending[text]
            draws.current = None
            for trial in trials:
                self.technique.tell(trial, result.seconds if result.ok else None)

    def learn_others(self, known: set[str], learned: set[str]) -> None:
        """Tell the technique the results stored for this computation and device whose
        configurations are not `known` (the other workers'; `Sharing.news`), and add
        them to `learned`. A configuration that does not parse, or that the space cannot
        draw, is skipped."""
        for e in self.sharing.news(self.db, self.key, self.info.key, known):  # type: ignore[union-attr]
            learned.add(e.config)
            try:
                params = config_params(self.op, self.info, parse_config(e.config, self.op))
            except Exception:  # noqa: BLE001 - a damaged row teaches nothing
                continue
            if params is not None:
                self.technique.learn(params, e.seconds if e.ok else None)

    def data(self, inputs: list[np.ndarray] | None = None, reference=None) -> tuple[list, list]:
        """`inputs` (seeded random ones by default: the host function's arguments, the
        op's inputs' draws where they are its operands) and `reference` (by default the
        reference semantics' outputs; a function: its result)."""
        if inputs is None:
            inputs = random_arguments(host_function(self.module), np.random.default_rng(self.seed))
        if callable(reference):
            reference = reference()
        if reference is None:
            reference = reference_outputs(self.module, inputs)
        return inputs, reference

    def _claim(self, text: str) -> bool:
        """Whether this tuner may evaluate `text`: always alone, while sharing where it
        holds the claim (`Database.claim`)."""
        return self.sharing is None or self.sharing.claim(self.db, self.key, self.info.key, text)

    def evaluator(
        self, inputs: list[np.ndarray] | None = None, reference: list[np.ndarray] | None = None
    ) -> Evaluator:
        """The final check's evaluator of this tuner's computation on `inputs` against
        `reference` (`run`'s defaults), its worker started and compiling the default: a
        shared tuning's command starts it while its workers tune (the start took 3 s
        after them)."""
        inputs, reference = self.data(inputs, reference)
        ev = Evaluator(self.module, inputs, reference, self.device, self.repeats, self.timeout, self.worker)
        ev.prepare([default_config(self.op, self.info)])
        return ev

    def final_check(self, ev: Evaluator) -> Progress:
        """The final check of a shared tuning, once its workers ended, with `ev` (an
        `evaluator` of it): the fastest configuration they stored, the default and an
        earlier tuning's pick, timed in turns (`confirm`)."""
        stored = [e for e in self.db.evaluations(self.key, self.info.key) if e.status != RUNNING]
        progress = Progress(evaluations=len(stored), failures=sum(not e.ok for e in stored))
        default = str(default_config(self.op, self.info).to_attr())
        progress.default = next((e for e in stored if e.config == default), None)
        progress.best = min((e for e in stored if e.status == OK), key=lambda e: e.seconds, default=None)  # type: ignore
        earlier = self.db.best(self.key, self.info.key)
        self.confirm(ev, progress, earlier if earlier is not None and earlier.confirmed else None)
        return progress

    def confirm(self, ev: Evaluator, progress: Progress, earlier: Evaluation | None = None) -> None:
        """Time the best candidate, the default and `earlier` (an earlier tuning's pick)
        in turns; keep those times. The pick is then the database's best, the
        configuration `compile_module` takes from now on."""
        default = progress.default
        if progress.best is None or default is None or not default.ok:
            return
        configs = list(dict.fromkeys(e.config for e in (progress.best, default, earlier) if e is not None))
        if len(configs) < 2:
            return
        started = time.perf_counter()
        medians = ev.interleave([parse_config(c, self.op) for c in configs], CONFIRM_ROUNDS)
        progress.spend("confirm", time.perf_counter() - started)
        if medians is None:
            return
        retimed = dict(zip(configs, medians))
        for config, seconds in retimed.items():
            self.db.confirm(self.key, self.info.key, config, seconds)
        progress.default = replace(default, seconds=retimed[default.config], confirmed=True)
        progress.best = self.db.best(self.key, self.info.key)
        progress.history.append((progress.evaluations, progress.elapsed, progress.best.seconds))  # type: ignore
        self.on_progress(progress)


class _Draws:
    """The candidates a search has in flight (`pending`: configuration text -> its
    configuration and the technique's trials that drew it; `current`: the one being
    evaluated, kept there until its result is told, so that a draw of it waits for it)
    and how it draws more."""

    def __init__(self, tuner: Tuner, budget: Budget, pool: BuildPool, measure, seen, stored, default, progress):
        self.tuner, self.budget, self.pool, self.measure = tuner, budget, pool, measure
        self.seen, self.stored, self.default, self.progress = seen, stored, default, progress
        self.pending: dict[str, tuple[Config, list]] = {}
        self.learned: set[str] = set()
        self.current: str | None = None
        self.stalled = 0
        self.spent = False
        """A shared tuning's budget is claimed (`Sharing.spent`): nothing more is drawn."""

    def refill(self, overlapping: bool = False) -> None:
        """Draw until `pool` has as many candidates in flight as it keeps, the budget is
        spent or draws stall; `overlapping`: while the evaluation worker runs (the time
        counted as `search_meanwhile`). While sharing, the technique first learns what
        the other workers stored since it last looked (`Tuner.learn_others`)."""
        tuner, progress = self.tuner, self.progress
        phase = "search_meanwhile" if overlapping else "search"
        if self.full():
            return
        if tuner.sharing is not None:
            started = time.perf_counter()
            tuner.learn_others(self.seen.keys() | self.learned, self.learned)
            progress.spend(phase, time.perf_counter() - started)
        while not self.full() and self.stalled < STALL_LIMIT:
            started = time.perf_counter()
            replay = self.draw()
            progress.spend(phase, time.perf_counter() - started)
            if replay is not None:
                cfg, trial = replay
                result = self.measure(cfg)
                tuner.technique.tell(trial, result.seconds if result.ok else None)

    def full(self) -> bool:
        """Whether the pool has as many builds in flight as it keeps (the candidate being
        evaluated is no longer the pool's) or the budget is spent (this tuner's, or a
        shared tuning's)."""
        building = len(self.pending) - (self.current is not None)
        return self.spent or building >= self.pool.ahead or self.progress.done(self.budget, len(self.pending))

    def draw(self) -> tuple[Config, Any] | None:
        """One draw of the technique: one that breaks a rule, or was evaluated already,
        is told at once and never built; one being built is told with it; one another
        worker claimed is told what it stored (nothing while it runs); a new one is
        built; one stored in the database is returned with its trial, to be replayed."""
        tuner = self.tuner
        trial = tuner.technique.ask()
        try:
            cfg = sample_config(tuner.op, tuner.info, trial, self.default)
        except Infeasible:
            cfg = None
        text = str(cfg.to_attr()) if cfg is not None else None
        if cfg is None or text in self.seen or text in self.pending:
            if text in self.pending:
                self.pending[text][1].append(trial)  # type: ignore[index]
            else:
                earlier = self.seen.get(text) if text else None  # type: ignore[arg-type]
                tuner.technique.tell(trial, earlier.seconds if earlier and earlier.ok else None)
            self.skip()
        elif not tuner._claim(text):  # type: ignore[arg-type]
            self.spent = tuner.sharing.spent(tuner.db, tuner.key, tuner.info.key)  # type: ignore[union-attr]
            taken = tuner.db.lookup(tuner.key, tuner.info.key, text)  # type: ignore[arg-type]
            tuner.technique.tell(trial, taken.seconds if taken and taken.ok else None)
            if taken is not None and taken.status != RUNNING:
                self.learned.add(text)  # type: ignore[arg-type]
            self.skip()
        elif self.stored(text) is None:
            self.stalled = 0
            self.pending[text] = (cfg, [trial])  # type: ignore[index]
            self.pool.submit(text, cfg)  # type: ignore[arg-type]
        else:
            self.stalled = 0
            return cfg, trial  # type: ignore[return-value]
        return None

    def skip(self) -> None:
        self.progress.skipped += 1
        self.stalled += 1
