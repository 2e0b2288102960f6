"""Auto-tuning: the space, budgets, the database, resuming a killed run, failing
candidates, reuse of tuned configurations, and `mdh-tune` end to end (small budgets)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.schedule.config import Config
from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.driver import Choice, compile_module
from mdh_ir.runtime import device_info
from mdh_ir.semantics.compare import reference_outputs
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.database.store import OK, Database, Evaluation, computation_key
from mdh_ir.tuning import evaluate
from mdh_ir.tuning.evaluate import Evaluator
from mdh_ir.tuning.search import NEIGHBOURS, make_technique
from mdh_ir.tuning.space import Infeasible, RandomTrial, config_params, sample_config, space_names
from mdh_ir.tuning.tuner import Budget, Progress, Tuner, best_config

ROOT = Path(__file__).parent.parent


def small_matvec():
    return CATALOG["matvec"].build(i=24, k=16)


# --- the space ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, sizes", [("matmul", dict(i=1024, j=1024, k=1024)), ("mcc", {})]
)  # fmt: skip
def test_space_of_large_computations_samples_fast_and_legal(name: str, sizes: dict) -> None:
    op = find_compute(CATALOG[name].build(**sizes))
    rng = np.random.default_rng(0)
    start, drawn = time.perf_counter(), 0
    for _ in range(300):
        try:
            cfg = sample_config(op, PRESETS["gpu"], RandomTrial(rng))
        except Infeasible:
            continue
        drawn += 1
        assert violations(op, cfg, PRESETS["gpu"]) == []
    assert drawn > 50
    assert time.perf_counter() - start < 20


@pytest.mark.parametrize("device", sorted(PRESETS))
def test_every_default_configuration_is_a_point_of_the_space(device: str) -> None:
    """The tuner starts its search from the default: its draws must reproduce it."""
    for name, entry in CATALOG.items():
        for sizes in [entry.small, *entry.paper]:
            op = find_compute(entry.build(**sizes))
            default = default_config(op, PRESETS[device])
            params = config_params(op, PRESETS[device], default)
            assert params is not None, f"{name} {sizes}: {default.to_attr()}"
            assert sample_config(op, PRESETS[device], optuna.trial.FixedTrial(params), default) == default


@pytest.mark.parametrize("name", ["matmul", "mcc_capsule", "dot", "prefix_sum", "jacobi1d"])
@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_space_names_are_every_name_a_draw_may_take(name: str, device: str) -> None:
    """`space_names` lists each name `sample_config` draws over many random draws, and
    no other; a `tpe` trial draws all of them, so optuna models one fixed space."""
    entry, info = CATALOG[name], PRESETS[device]
    op = find_compute(entry.build(**entry.small))
    default, rng, drawn = default_config(op, info), np.random.default_rng(0), set()
    for _ in range(1500):
        trial = RandomTrial(rng)
        try:
            sample_config(op, info, trial, default)
        except Infeasible:
            pass
        drawn |= trial.params.keys()
    names = space_names(op, info)
    assert sorted(names) == sorted(drawn)
    tpe = make_technique("tpe", 0, names=names)
    for _ in range(12):  # past the random start
        trial = tpe.ask()
        tpe.tell(trial, 1.0)
        assert trial.params.keys() == set(names)


def test_tpe_renews_its_study_with_its_best_and_latest_trials(monkeypatch) -> None:
    """Once its study holds twice `HISTORY` trials, `tpe` goes on from a study of its
    best quarter and its latest; a trial drawn before and told after is not lost."""
    from mdh_ir.tuning import search

    monkeypatch.setattr(search, "HISTORY", 20)
    op, info = find_compute(small_matvec()), PRESETS["cpu"]
    tpe = make_technique("tpe", 0, names=space_names(op, info))
    early = tpe.ask()
    values = [float(v) for v in np.random.default_rng(0).permutation(39) + 1]
    for value in values:
        tpe.tell(tpe.ask(), value)
    assert tpe.renewals == 0
    tpe.tell(tpe.ask(), 100.0)  # the 40th completed trial
    kept = sorted(t.value for t in tpe.study.trials)
    assert tpe.renewals == 1 and len(kept) <= 20
    assert kept[:5] == [1.0, 2.0, 3.0, 4.0, 5.0] and 100.0 in kept  # the best quarter, the latest
    tpe.tell(early, 0.5)
    assert min(t.value for t in tpe.study.trials) == 0.5
    assert tpe.ask().params.keys() == set(space_names(op, info))


def test_the_cached_tpe_sampler_draws_what_optunas_draws() -> None:
    """`CachedTPESampler` converts each finished trial once and draws exactly what
    optuna's `TPESampler` draws from the same trials and the same log of the normal CDF
    (`vectorized_log_ndtr`): told results, added trials (another worker's) and one that
    lacks some names (left out of the model by both)."""
    import optuna

    from mdh_ir.tuning.tpe import CachedTPESampler, vectorized_log_ndtr

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    unit = optuna.distributions.FloatDistribution(0.0, 1.0)
    names = [f"p{i}" for i in range(12)]
    studies = [optuna.create_study(sampler=kind(seed=3, multivariate=True, n_startup_trials=5))
               for kind in (optuna.samplers.TPESampler, CachedTPESampler)]  # fmt: skip
    rng = np.random.default_rng(0)
    for step in range(60):
        with vectorized_log_ndtr():
            trials = [study.ask() for study in studies]
            drawn = [[trial.suggest_float(n, 0.0, 1.0) for n in names] for trial in trials]
        assert drawn[0] == drawn[1], step
        value = float(np.sum((np.array(drawn[0]) - 0.3) ** 2))
        for study, trial in zip(studies, trials):
            study.tell(trial, value)
        if step % 10 == 3:
            params = dict(zip(names, rng.random(len(names))))
            if step == 13:
                params = dict(list(params.items())[:5])
            added = optuna.trial.create_trial(params=params, distributions=dict.fromkeys(params, unit),
                                              value=float(rng.random()))  # fmt: skip
            for study in studies:
                study.add_trial(added)


def test_the_vectorized_log_of_the_normal_cdf_is_optunas() -> None:
    """scipy's `log_ndtr`, which `CachedTPESampler` draws with, is optuna's scalar one
    within 1e-7 relative, from the far left tail to the right, and optuna's is back
    after the draw."""
    from optuna.samplers._tpe import _truncnorm

    from mdh_ir.tuning.tpe import vectorized_log_ndtr

    own = _truncnorm._log_ndtr
    x = np.concatenate([np.linspace(-40.0, 10.0, 5001), np.random.default_rng(0).normal(0.0, 5.0, 2000)])
    with vectorized_log_ndtr():
        assert _truncnorm._log_ndtr is not own
        np.testing.assert_allclose(_truncnorm._log_ndtr(x), own(x), rtol=1e-7)
    assert _truncnorm._log_ndtr is own


@pytest.mark.parametrize("technique", ["tpe", "ga", "anneal"])
def test_search_starts_around_the_default(technique: str) -> None:
    """After `start_from`, the first trials redraw one or two of the default's draws."""
    op = find_compute(CATALOG["matmul"].build(i=1024, j=1024, k=1024))
    device = PRESETS["cpu"]
    default = default_config(op, device)
    params = config_params(op, device, default)
    search = make_technique(technique, 0, names=space_names(op, device))
    search.start_from(params, 1.0)  # type: ignore[arg-type]
    for _ in range(NEIGHBOURS):
        trial = search.ask()
        try:
            sample_config(op, device, trial, default)
        except Infeasible:
            pass
        drawn = trial.params
        moved = [k for k, v in drawn.items() if k in params and v != params[k]]
        assert 1 <= len(moved) <= 2, moved
        search.tell(trial, None)


def test_budget_parsing() -> None:
    assert Budget.parse("60s") == Budget(None, 60.0)
    assert Budget.parse("2m") == Budget(None, 120.0)
    assert Budget.parse("200evals") == Budget(200, None)
    assert Budget.parse("30s, 10evals") == Budget(10, 30.0)
    with pytest.raises(ValueError, match="expected e.g."):
        Budget.parse("fast")


# --- the database -------------------------------------------------------------------


def test_database_keeps_one_evaluation_per_configuration(tmp_path) -> None:
    db = Database(tmp_path / "t.sqlite")
    op = find_compute(small_matvec())
    key = db.add_computation(op)
    assert key == computation_key(op) == computation_key(find_compute(small_matvec()))
    assert key != computation_key(find_compute(CATALOG["matvec"].build(i=24, k=17)))
    db.record(key, "dev", Evaluation("#mdh.config<a>", OK, 2.0, [2.0], "", 1.0, "random"))
    db.record(key, "dev", Evaluation("#mdh.config<a>", OK, 9.0, [9.0], "", 1.0, "random"))
    db.record(key, "dev", Evaluation("#mdh.config<b>", OK, 1.0, [1.0], "", 1.0, "random"))
    db.record(key, "dev", Evaluation("#mdh.config<c>", "wrong", None, [], "bad", 1.0, "tpe"))
    assert [e.config for e in db.evaluations(key, "dev")] == ["#mdh.config<a>", "#mdh.config<b>", "#mdh.config<c>"]
    assert db.lookup(key, "dev", "#mdh.config<a>").seconds == 2.0  # first write wins
    assert db.best(key, "dev").config == "#mdh.config<b>"
    assert db.best(key, "other device") is None


def test_a_confirmed_time_outranks_single_flattering_ones(tmp_path) -> None:
    """After the final check, the pick's careful time may exceed another candidate's
    single timing; the best (for the runtime and for shipping) is still the pick."""
    from mdh_ir.database.shipped import best_entries

    path = tmp_path / "t.sqlite"
    db = Database(path)
    for config, seconds in [("pick", 1.0), ("lucky", 1.5), ("default", 3.0)]:
        db.record("k", "dev", Evaluation(config, OK, seconds))
    assert db.best("k", "dev").config == "pick"
    db.confirm("k", "dev", "pick", 2.0)
    db.confirm("k", "dev", "default", 3.0)
    assert db.best("k", "dev") == Evaluation("pick", OK, 2.0, confirmed=True)
    assert best_entries(path) == [dict(computation="k", device="dev", config="pick", seconds=2.0)]


def test_a_database_from_before_confirmed_times_and_phases_is_upgraded(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE evaluations (id INTEGER PRIMARY KEY, computation TEXT NOT NULL,"
        " device TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, seconds REAL,"
        " times TEXT NOT NULL, message TEXT NOT NULL, cost REAL NOT NULL,"
        " technique TEXT NOT NULL, created REAL NOT NULL, UNIQUE (computation, device, config));"
        "INSERT INTO evaluations VALUES (1, 'k', 'dev', 'a', 'ok', 1.0, '[]', '', 0, '', 0);"
        "INSERT INTO evaluations VALUES (2, 'k', 'dev', 'b', 'ok', 2.0, '[]', '', 0, '', 0);"
    )
    conn.close()
    db = Database(path)
    assert db.best("k", "dev").config == "a"
    db.confirm("k", "dev", "b", 2.0)
    assert db.best("k", "dev").config == "b"
    assert db.tuned() == [("k", "dev")]
    assert db.lookup("k", "dev", "a").phases == {}
    db.record("k", "dev", Evaluation("c", OK, 3.0, [3.0], "", 0.5, "", phases={"build": 0.4, "timed": 0.1}))
    assert Database(path).lookup("k", "dev", "c").phases == {"build": 0.4, "timed": 0.1}


def test_concurrent_writers_do_not_corrupt_the_database(tmp_path) -> None:
    path = tmp_path / "shared.sqlite"
    Database(path)
    script = (
        "import sys; from mdh_ir.database.store import Database, Evaluation\n"
        "db = Database(sys.argv[1])\n"
        "for i in range(200):\n"
        "    db.record('k', 'd', Evaluation(f'cfg{i % 150}', 'ok', float(i), [], '', 0.0, sys.argv[2]))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), f"w{n}"]) for n in range(3)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    rows = sqlite3.connect(path).execute("SELECT config FROM evaluations").fetchall()
    assert sorted(r[0] for r in rows) == sorted(f"cfg{i}" for i in range(150))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


# --- tuning runs ---------------------------------------------------------------------


def test_an_evaluation_records_where_its_time_went(tmp_path) -> None:
    """Each phase of an evaluation is measured, the phases add up to its cost, and a
    tuning run sums them (with its search and final check) to its elapsed time."""
    module = small_matvec()
    op = find_compute(module)
    inputs = random_inputs(op, np.random.default_rng(0))
    reference = reference_outputs(module, inputs)
    with Evaluator(module, inputs, reference, "cpu", repeats=3) as ev:
        cfg = default_config(op, device_info("cpu"))
        first, second = ev.evaluate(cfg), ev.evaluate(cfg)
        broken = ev.evaluate(cfg.with_(num_wi=(7, 1)))
    for e in (first, second):
        assert e.ok and set(e.phases) == set(evaluate.PHASES) - {"stopped", "load", "gate"}, e.phases
        assert all(s >= 0 for s in e.phases.values())
        assert sum(e.phases.values()) == pytest.approx(e.cost)
        assert e.phases["build"] > 0 and e.phases["flush"] > 0 and e.phases["timed"] > 0
    assert first.phases["start"] > 10 * second.phases["start"], "one worker serves both"
    assert broken.status == "rule" and set(broken.phases) == {"start", "lower", "other"}

    tuner = Tuner(module, Database(tmp_path / "t.sqlite"), "cpu", "random", seed=3, repeats=2)
    progress = tuner.run(Budget.parse("5evals"))
    assert {"build", "timed", "search"} <= set(progress.phases)
    assert sum(progress.phases.values()) == pytest.approx(progress.elapsed)
    stored = tuner.db.evaluations(tuner.key, tuner.info.key)
    assert sum(sum(e.phases.values()) for e in stored) == pytest.approx(sum(e.cost for e in stored))
    again = Tuner(module, tuner.db, "cpu", "random", seed=3, repeats=2).run(Budget.parse("5evals"))
    assert again.phases["replayed"] == pytest.approx(sum(e.cost for e in stored))


def test_tuning_is_never_slower_than_the_default_and_is_reused(tmp_path, monkeypatch) -> None:
    module = small_matvec()
    db = Database(tmp_path / "t.sqlite")
    progress = Tuner(module, db, "cpu", "random", seed=3, repeats=3).run(Budget.parse("6evals"))
    assert progress.evaluations == 6
    assert progress.default is not None and progress.default.ok
    assert progress.best.seconds <= progress.default.seconds
    evaluations = [n for n, _, _ in progress.history]
    assert evaluations[:6] == list(range(1, 7)) and set(evaluations[6:]) <= {6}  # + the final check
    assert progress.history[-1][2] == progress.best.seconds
    op = find_compute(module)
    best = best_config(db, op, Tuner(module, db, "cpu").info)
    assert str(best.to_attr()) == progress.best.config
    monkeypatch.setenv("MDH_TUNING_DB", str(tmp_path / "t.sqlite"))
    program = compile_module(module, "cpu")  # no config anywhere: the tuned one is used
    assert program.config == best


def test_a_continued_tuning_starts_from_the_best_the_database_knows(tmp_path) -> None:
    """A second tuning with a budget of one evaluation replays the default and then the
    first tuning's pick, which is its best candidate before the final check, and its
    technique starts from that pick, not from the default. The worker's timer makes
    every other configuration faster than the default (`tests.timed_worker`): which of
    two real timings wins is not this test's business."""
    module = small_matvec()
    db = Database(tmp_path / "t.sqlite")
    timed = dict(repeats=3, worker="tests.timed_worker")
    first = Tuner(module, db, "cpu", "random", seed=3, **timed).run(Budget.parse("6evals"))
    assert first.default.seconds == 1e-3 and first.best.config != first.default.config
    tuner = Tuner(module, db, "cpu", "random", seed=4, **timed)
    known = best_config(db, tuner.op, tuner.info)
    bests, starts = [], []
    tuner.on_progress = lambda p: bests.append(p.best.config)
    tuner.technique.start_from = lambda params, seconds: starts.append(params)  # type: ignore[method-assign]
    again = tuner.run(Budget.parse("1evals"))
    assert (again.evaluations, again.replayed) == (2, 2)
    assert bests[1] == str(known.to_attr())
    assert starts == [config_params(tuner.op, tuner.info, known)]


def test_final_check_times_the_pick_against_the_default_in_turns(tmp_path) -> None:
    """A candidate crowned by a flattering single timing is timed in turns with the
    default when tuning ends; both stored times become the interleaved ones."""
    module = small_matvec()
    op = find_compute(module)
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(module, db, "cpu", "random", repeats=2)
    inputs = random_inputs(op, np.random.default_rng(0))
    lucky = default_config(op, tuner.info).with_(unroll=2)
    with Evaluator(module, inputs, reference_outputs(module, inputs), "cpu", 2) as ev:
        default = ev.evaluate(default_config(op, tuner.info))
        flattered = Evaluation(str(lucky.to_attr()), OK, 1e-12)
        for e in (default, flattered):
            db.record(tuner.key, tuner.info.key, e)
        progress = Progress(best=flattered, default=default)
        tuner.confirm(ev, progress)
    stored = {e.config: e.seconds for e in db.evaluations(tuner.key, tuner.info.key)}
    assert stored[flattered.config] > 1e-9  # measured, not the flattering time
    assert progress.default.seconds == stored[default.config]
    assert progress.best.seconds == min(stored.values())
    assert progress.history[-1][2] == progress.best.seconds  # the plot ends at the pick
    assert db.best(tuner.key, tuner.info.key).seconds == progress.best.seconds


def test_final_check_times_an_earlier_pick_too_and_picks_the_databases_best(tmp_path) -> None:
    """An earlier tuning's pick, confirmed in another run (here a flattering 1e-12 s),
    is timed in turns with this tuning's best and the default; the pick is then the
    database's best, the configuration `compile_module` takes."""
    module = small_matvec()
    op = find_compute(module)
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(module, db, "cpu", "random", repeats=2)
    inputs = random_inputs(op, np.random.default_rng(0))
    base = default_config(op, tuner.info)
    earlier = Evaluation(str(base.with_(unroll=2).to_attr()), OK, 1e-12)
    found = Evaluation(str(base.with_(unroll=4).to_attr()), OK, 1e-12)
    with Evaluator(module, inputs, reference_outputs(module, inputs), "cpu", 2) as ev:
        default = ev.evaluate(base)
        for e in (default, earlier, found):
            db.record(tuner.key, tuner.info.key, e)
        db.confirm(tuner.key, tuner.info.key, earlier.config, 1e-12)
        progress = Progress(best=found, default=default)
        tuner.confirm(ev, progress, db.lookup(tuner.key, tuner.info.key, earlier.config))
    stored = {e.config: e for e in db.evaluations(tuner.key, tuner.info.key)}
    assert all(e.confirmed and e.seconds > 1e-9 for e in stored.values())
    assert progress.best == db.best(tuner.key, tuner.info.key)
    assert progress.best.seconds == min(e.seconds for e in stored.values())


def test_same_seed_draws_the_same_candidates(tmp_path) -> None:
    runs = []
    for n in range(2):
        db = Database(tmp_path / f"{n}.sqlite")
        Tuner(small_matvec(), db, "cpu", "random", seed=11, repeats=1).run(Budget.parse("4evals"))
        key = computation_key(find_compute(small_matvec()))
        (device,) = {r[0] for r in db.conn.execute("SELECT device FROM evaluations")}
        runs.append([e.config for e in db.evaluations(key, device)])
    assert runs[0] == runs[1] and len(runs[0]) == 4


def test_failing_candidates_are_recorded_and_skipped(tmp_path, monkeypatch) -> None:
    """Build errors, wrong results, crashes, hangs and runs far slower than the best are
    recorded; tuning goes on."""
    module = CATALOG["matvec"].build(i=16, k=16)
    op = find_compute(module)
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(module, db, "cpu", "random", repeats=1, timeout=20, worker="tests.faulty_worker")
    # random draws give pt_size[0] in {1, 2, 4, 8, 16}: build errors and wrong results
    base = default_config(op, tuner.info)
    inputs = random_inputs(op, np.random.default_rng(0))
    reference = reference_outputs(module, inputs)
    with monkeypatch.context() as m, Evaluator(module, inputs, reference, "cpu", 1, 5, "tests.faulty_worker") as ev:
        m.setattr(evaluate, "RUN_SLACK", 1.0)
        scalar = base.with_(lt_size=(8, 16), num_wg=(1, 1), num_wi=(1, 1), vector_width=1)
        found = [ev.evaluate(scalar.with_(pt_size=(p, 1)), best=1e-3) for p in (4, 2, 3, 7, 5, 1)]
    assert [e.status for e in found] == ["build", "wrong", "crash", "timeout", "slow", OK]
    assert found[4].cost < 4, "a run far slower than the best is stopped before the time limit"

    progress = tuner.run(Budget.parse("20evals"))
    stored = db.evaluations(tuner.key, tuner.info.key)
    assert len(stored) == progress.evaluations == 20
    assert {e.status for e in stored} == {OK, "build", "wrong"}
    assert progress.failures == sum(not e.ok for e in stored)
    assert progress.best is not None and progress.best.ok


def test_killed_run_resumes_without_repeating_or_losing_evaluations(tmp_path) -> None:
    source = tmp_path / "mv.mlir"
    source.write_text(str(CATALOG["matvec"].build(i=20, k=12)))
    db = tmp_path / "t.sqlite"
    command = [
        sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(source), "--budget", "14evals",
        "--technique", "anneal", "--seed", "5", "--db", str(db), "--repeats", "2",
    ]  # fmt: skip
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def count() -> int:
        """Evaluations stored so far (none while the tool has created the file but not
        yet its tables)."""
        try:
            return sqlite3.connect(db).execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
        except sqlite3.OperationalError:
            return 0

    deadline = time.time() + 120
    while time.time() < deadline and (not db.exists() or count() < 5):
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait()
    before = sqlite3.connect(db).execute("SELECT config, seconds FROM evaluations").fetchall()
    assert 5 <= len(before) < 14
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    after = sqlite3.connect(db).execute("SELECT config, seconds FROM evaluations").fetchall()
    assert [c for c, _ in after[: len(before)]] == [c for c, _ in before]  # nothing lost
    retimed = [c for (c, s), (_, t) in zip(after, before) if s != t]
    assert len(retimed) <= 2  # only the final check re-times (the best and the default)
    assert len(after) == len({c for c, _ in after})  # nothing repeated
    assert f"evaluations: 14 ({len(before)} from the database" in resumed.stdout
    assert f"({14 - len(before)} evaluations measured)" in resumed.stdout
    assert any(line.split()[0] == "replayed" for line in resumed.stdout.splitlines() if line.startswith("  "))


def test_mdh_tune_writes_ir_that_reproduces_the_tuned_program(tmp_path) -> None:
    out, plot = tmp_path / "tuned.mlir", tmp_path / "run.png"
    r = subprocess.run(
        [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(ROOT / "examples" / "jacobi1d.mlir"),
         "--budget", "5evals", "--db", str(tmp_path / "t.sqlite"), "--repeats", "2",
         "-o", str(out), "--plot", str(plot)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    best = next(line for line in r.stdout.splitlines() if line.startswith("best: "))
    config = best.split(" ", 3)[3]
    assert config in out.read_text()
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run = subprocess.run(
        [sys.executable, "-m", "mdh_ir.tools.mdh_run", str(out), "--repeats", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert f"config: {config}" in run.stdout and "check: ok" in run.stdout


def test_compare_runs_each_technique_from_a_fresh_database(tmp_path) -> None:
    """Each technique measures its whole budget itself: none replays another's results
    (the default, evaluated first by each, would otherwise come from the database)."""
    r = subprocess.run(
        [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(ROOT / "examples" / "dot.mlir"),
         "--budget", "4evals", "--db", str(tmp_path / "t.sqlite"), "--repeats", "1",
         "--compare", "random,anneal,tpe", "--plot", str(tmp_path / "c.png")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stdout.splitlines() if line.startswith("== ")] == [
        "== random", "== anneal", "== tpe"
    ]  # fmt: skip
    assert r.stdout.count("evaluations: 4 (0 from the database") == 3, r.stdout
    assert (tmp_path / "c.png").exists() and not (tmp_path / "t.sqlite").exists()


def test_mdh_tune_errors_are_one_line() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(ROOT / "examples" / "dot.mlir"),
         "--budget", "soon"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert "error: budget 'soon': expected e.g. 60s, 2m or 200evals" in line
    assert os.linesep not in line


def test_shipped_configuration_used_without_tuning(tmp_path, monkeypatch) -> None:
    """A device's shipped entry (here measured with another driver) configures a
    computation the user's database does not know; the user's own result wins; the
    compiled module records which gave its configuration."""
    from mdh_ir import runtime
    from mdh_ir.database import shipped

    module = small_matvec()
    op = find_compute(module)
    info = DeviceInfo.from_cl(runtime.select_device("cpu"))
    cfg = default_config(op, info)
    cfg = Config(**{**cfg.__dict__, "unroll": 2 if cfg.unroll != 2 else 4})
    entry = dict(
        computation=computation_key(op), device=info.key + ".old", config=str(cfg.to_attr()), seconds=1.0
    )
    (tmp_path / "shipped.json").write_text(json.dumps([entry]))
    monkeypatch.setattr(shipped, "SHIPPED", tmp_path / "shipped.json")
    monkeypatch.setenv("MDH_TUNING_DB", str(tmp_path / "none.sqlite"))
    assert compile_module(module, "cpu").choices == [Choice(cfg, "shipped")]

    mine = default_config(op, info)
    Database(tmp_path / "mine.sqlite").record(
        computation_key(op), info.key, Evaluation(str(mine.to_attr()), OK, 0.5)
    )
    monkeypatch.setenv("MDH_TUNING_DB", str(tmp_path / "mine.sqlite"))
    assert compile_module(module, "cpu").choices == [Choice(mine, "database")]
    assert compile_module(module, "cpu", database=Database(tmp_path / "empty.sqlite")).choices == [
        Choice(cfg, "shipped")
    ]
    assert compile_module(module, "cpu", cfg.with_(unroll=1)).choices == [Choice(cfg.with_(unroll=1), "given")]
