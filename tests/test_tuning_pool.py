"""The build pool: candidates built in other processes and timed by the evaluation
worker (`mdh_ir.tuning.pool`), and the gate that keeps builds away from timed runs."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import OK, Database
from mdh_ir.driver import compile_module
from mdh_ir.runtime import Program, device_info
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.compare import reference_outputs
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from mdh_ir.tuning import evaluate
from mdh_ir.tuning.evaluate import Evaluator
from mdh_ir.tuning.gate import Gate
from mdh_ir.tuning.pool import POOL_PHASES, BuildPool
from mdh_ir.tuning.distributed import Sharing
from mdh_ir.tuning.tuner import OVERLAPPING, Budget, Tuner, default_build_workers


def matvec():
    module = CATALOG["matvec"].build(i=16, k=16)
    op = find_compute(module)
    inputs = random_inputs(op, np.random.default_rng(0))
    return module, op, inputs, reference_outputs(module, inputs)


def test_a_candidate_built_in_the_pool_runs_identically_in_the_evaluator(tmp_path) -> None:
    """The pool's build (lowered IR, source, binaries) loads in the evaluation worker,
    checks ok there, and its program computes bit for bit what a build of the source in
    this process computes; the pool's phases are kept apart from the evaluation's cost."""
    module, op, inputs, reference = matvec()
    cfg = default_config(op, device_info("cpu")).with_(unroll=2)
    with BuildPool(module, "cpu", 1, 60.0, inputs, reference) as pool:
        built = pool.take("c", cfg)
    assert built.status == OK and built.artifact is not None
    assert {"pool_lower", "pool_build", "pool_check"} <= set(built.phases) <= set(POOL_PHASES)
    lowered, source, binaries = built.artifact
    here = compile_module(module, "cpu", cfg)
    assert source == here.source
    carried = Program(load_module(make_context(), lowered, "<pool>"), source, "cpu", binaries)
    assert all(np.array_equal(a, b) for a, b in zip(carried(*inputs), here(*inputs)))
    with Evaluator(module, inputs, reference, "cpu", repeats=2) as ev:
        e = ev.evaluate(cfg, built=built)
    assert e.ok, e.message
    assert "load" in e.phases and not {"lower", "build"} & set(e.phases)
    own = {k: v for k, v in e.phases.items() if k not in POOL_PHASES}
    assert set(own) <= set(evaluate.PHASES) and sum(own.values()) == pytest.approx(e.cost)


def test_failed_and_crashed_builds_are_recorded_and_a_killed_builder_loses_nothing() -> None:
    """A build error in the pool is a `build` evaluation (never sent to the evaluation
    worker); a builder killed while building is replaced and the candidate rebuilt; a
    candidate that kills every builder it is given to is recorded as `crash`."""
    module, op, inputs, reference = matvec()
    base = default_config(op, device_info("cpu")).with_(
        lt_size=(8, 16), num_wg=(2, 1), num_wi=(1, 1), vector_width=1
    )
    with BuildPool(module, "cpu", 1, 60.0, worker="tests.faulty_builder") as pool:
        failed = pool.take("build", base.with_(pt_size=(4, 1)))
        crashed = pool.take("crash", base.with_(pt_size=(3, 1)))
        pool.submit("ok", base.with_(pt_size=(1, 1)))
        victim = pool.builders[0].process
        victim.kill()
        rebuilt = pool.take("ok", base.with_(pt_size=(1, 1)))
        assert pool.builders[0].process is not victim
    assert failed.status == "build" and "injected build failure" in failed.message
    assert crashed.status == "crash"
    assert rebuilt.status == OK and rebuilt.artifact is not None
    with Evaluator(module, inputs, reference, "cpu", repeats=1) as ev:
        recorded = ev.evaluate(base.with_(pt_size=(4, 1)), built=failed)
        assert ev.process is None, "a failed build never reaches the evaluation worker"
    assert recorded.status == "build" and recorded.cost == 0.0


def test_the_gate_keeps_builds_away_from_timed_runs(tmp_path) -> None:
    """A timing waits for the build under way, and no build starts while it waits."""
    builder, timer, late = (Gate(tmp_path / "gate") for _ in range(3))
    events: list[str] = []

    def time_runs() -> None:
        with timer.exclusive():
            events.append("timed")

    def build_late() -> None:
        with late.shared():
            events.append("late build")

    with builder.shared():
        first = threading.Thread(target=time_runs)
        first.start()
        time.sleep(0.3)
        second = threading.Thread(target=build_late)
        second.start()
        time.sleep(0.3)
        assert events == []
        events.append("build done")
    first.join()
    second.join()
    assert events == ["build done", "timed", "late build"]
    assert timer.waited >= 0.5


def test_a_tuning_with_a_build_pool_stores_every_evaluation(tmp_path) -> None:
    """On a CPU device with two builders (and the gate): the budget is kept, every
    evaluation is stored once and ok, built in the pool, and the device's waiting for the
    pool is counted."""
    module, op, inputs, reference = matvec()
    tuner = Tuner(module, Database(tmp_path / "t.sqlite"), "cpu", "tpe", seed=1, repeats=2, build_workers=2)
    progress = tuner.run(Budget.parse("8evals"), inputs, reference)
    stored = tuner.db.evaluations(tuner.key, tuner.info.key)
    assert progress.evaluations == len(stored) == 8
    assert len({e.config for e in stored}) == 8
    assert all(e.status == OK for e in stored), [e.message for e in stored if not e.ok]
    assert all("load" in e.phases and "pool_build" in e.phases for e in stored)
    assert {"wait", "gate", "pool_build"} <= set(progress.phases)
    assert progress.elapsed == pytest.approx(
        sum(v for k, v in progress.phases.items() if k not in OVERLAPPING)
    )


def test_meanwhile_runs_while_the_worker_evaluates() -> None:
    """`Evaluator.evaluate`'s `meanwhile` is called once, after the worker has the
    candidate; its time is not the evaluation's cost, which is the worker's phases."""
    module, op, inputs, reference = matvec()
    cfg = default_config(op, device_info("cpu"))
    calls = []
    with Evaluator(module, inputs, reference, "cpu", repeats=2) as ev:
        ev.evaluate(cfg)  # the worker started
        started = time.perf_counter()
        e = ev.evaluate(cfg, meanwhile=lambda: (calls.append(ev.process.poll()), time.sleep(3.0)))
        wall = time.perf_counter() - started
    assert e.ok, e.message
    assert calls == [None]
    assert wall >= 3.0 and e.cost < wall - 1.5  # the worker's phases (~1 s under load), not the 3 s
    assert e.cost == pytest.approx(sum(e.phases.values()))


def test_a_search_drawing_while_the_device_runs_evaluates_each_candidate_once(tmp_path) -> None:
    """Where the search overlaps the evaluations (a device other than a CPU; here PoCL
    taken for one), every evaluation is stored once and ok, and the search's time is
    counted."""
    from dataclasses import replace

    module, op, inputs, reference = matvec()
    tuner = Tuner(module, Database(tmp_path / "t.sqlite"), "cpu", "tpe", seed=2, repeats=2, build_workers=2)
    tuner.info = replace(tuner.info, kind="gpu")
    progress = tuner.run(Budget.parse("14evals"), inputs, reference)
    stored = tuner.db.evaluations(tuner.key, tuner.info.key)
    assert progress.evaluations == len(stored) == 14
    assert len({e.config for e in stored}) == 14
    assert all(e.status == OK for e in stored), [e.message for e in stored if not e.ok]
    assert progress.phases.get("search", 0.0) + progress.phases.get("search_meanwhile", 0.0) > 0.0
    assert progress.elapsed == pytest.approx(sum(v for k, v in progress.phases.items() if k not in OVERLAPPING))


def test_draws_while_the_worker_evaluates_count_only_where_they_outlast_it(tmp_path) -> None:
    """Where the search overlaps the evaluations, the tuning's time (its budget's clock)
    is no more than the wall time: draws made while the worker ran count apart
    (`search_meanwhile`), and to the tuning's time only where they outlasted the
    evaluation (here each draw takes 0.3 s, a PoCL evaluation of matvec as long or
    longer: counted twice, the draws' time added seconds the tuning never spent)."""
    from dataclasses import replace

    module, op, inputs, reference = matvec()
    tuner = Tuner(module, Database(tmp_path / "t.sqlite"), "cpu", "tpe", seed=2, repeats=2, build_workers=0)
    tuner.info = replace(tuner.info, kind="gpu")
    ask = tuner.technique.ask
    tuner.technique.ask = lambda: (time.sleep(0.3), ask())[1]
    started = time.perf_counter()
    progress = tuner.run(Budget.parse("8evals"), inputs, reference)
    wall = time.perf_counter() - started
    assert progress.evaluations == 8
    assert progress.phases["search_meanwhile"] >= 0.3 * 4
    assert progress.phases.get("search", 0.0) < progress.phases["search_meanwhile"]
    assert progress.elapsed <= wall
    assert progress.elapsed == pytest.approx(sum(v for k, v in progress.phases.items() if k not in OVERLAPPING))


def test_the_candidate_under_evaluation_leaves_the_pool_room_for_the_next_draws() -> None:
    """While a candidate is evaluated (`_Draws.current`) the search may draw as many as
    the pool keeps besides it: it is no longer the pool's; an evaluation budget still
    counts it."""
    from types import SimpleNamespace

    from mdh_ir.tuning.tuner import Progress, _Draws

    pool = SimpleNamespace(ahead=2)
    draws = _Draws(None, Budget.parse("60s"), pool, None, {}, None, None, Progress())  # type: ignore[arg-type]
    draws.pending = {"a": (None, []), "b": (None, [])}
    assert draws.full()
    draws.current = "a"
    assert not draws.full()
    counted = _Draws(None, Budget.parse("2evals"), pool, None, {}, None, None, Progress())  # type: ignore[arg-type]
    counted.pending, counted.current = {"a": (None, []), "b": (None, [])}, "a"
    assert counted.full()


@pytest.mark.parametrize("kind", ["gpu", "cpu"])
def test_a_gpu_pool_builds_the_default_while_the_reference_is_computed(kind: str, monkeypatch) -> None:
    """On a GPU the pool starts, with the default submitted, before the reference is
    computed (its builds check nothing); on a CPU it runs and checks each build, so it
    starts after."""
    import mdh_ir.tuning.tuner as tuner_module

    events: list[str] = []
    tuner = Tuner(CATALOG["matvec"].build(i=16, k=8), Database(":memory:"), "cpu", "random", build_workers=1)
    monkeypatch.setattr(tuner, "info", replace(tuner.info, kind=kind))
    data = tuner.data

    def recorded_data(*args):
        events.append("data")
        return data(*args)

    class RecordedPool(BuildPool):
        def submit(self, key, cfg) -> None:
            events.append("submit")
            super().submit(key, cfg)

    monkeypatch.setattr(tuner, "data", recorded_data)
    monkeypatch.setattr(tuner_module, "BuildPool", RecordedPool)
    progress = tuner.run(Budget.parse("2evals"))
    assert progress.default is not None and progress.default.ok
    first = events.index("data")
    assert ("submit" in events[:first]) == (kind == "gpu"), events


def test_the_time_before_the_first_evaluation_is_shown_apart(monkeypatch) -> None:
    """The seconds before the first evaluation (here a slow reference) are the run's
    `setup`, shown apart from the tuning's time."""
    from mdh_ir.tools.mdh_tune import phase_lines

    tuner = Tuner(CATALOG["matvec"].build(i=16, k=8), Database(":memory:"), "cpu", "random")
    data = tuner.data

    def slow_data(*args):
        time.sleep(0.5)
        return data(*args)

    monkeypatch.setattr(tuner, "data", slow_data)
    progress = tuner.run(Budget.parse("1evals"))
    assert progress.setup >= 0.5
    (line,) = [line for line in phase_lines(progress) if line.split()[0] == "setup"]
    assert float(line.split()[1]) >= 0.5


def test_workers_of_one_command_divide_the_hosts_cores_among_their_builders(monkeypatch) -> None:
    """On a GPU a tuning builds with one process per host core but one (at most 8); the
    workers of one command divide the cores first. A CPU device builds in none."""
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert [default_build_workers("gpu", n) for n in (1, 2, 4, 32)] == [8, 7, 3, 1]
    assert default_build_workers("cpu", 2) == 0
    import mdh_ir.tuning.tuner as tuner_module

    cpu = device_info("cpu")
    monkeypatch.setattr(tuner_module, "device_info", lambda device: replace(cpu, kind="gpu"))
    monkeypatch.setattr("os.cpu_count", lambda: 32)
    for local, builders in ((1, 8), (4, 7)):
        tuner = Tuner(CATALOG["matvec"].build(i=16, k=8), Database(":memory:"), "cpu", "random",
                      sharing=Sharing(0, "w0", 60, 0, local=local))  # fmt: skip
        assert tuner.build_workers == builders


def test_an_evaluator_starts_before_its_inputs_and_reference_are_given() -> None:
    """The evaluation worker starts (imports, parse, opening the device) before the
    tuner has its inputs and reference (`Evaluator.supply`), and evaluates once they
    come; no request goes out before them. One that died before they came is started
    again by the next request."""
    module = CATALOG["matvec"].build(i=16, k=8)
    op = find_compute(module)
    inputs = random_inputs(op, np.random.default_rng(0))
    with Evaluator(module, None, None, "cpu", repeats=2) as ev:
        ev.start()
        with pytest.raises(AssertionError, match="supply"):
            ev.prepare([default_config(op, device_info("cpu"))])
        time.sleep(0.2)
        ev.supply(inputs, reference_outputs(module, inputs))
        assert ev.evaluate(default_config(op, device_info("cpu"))).ok
    with Evaluator(module, None, None, "cpu", repeats=2) as ev:  # one that dies before it gets them
        ev.start()
        ev.process.kill()
        ev.process.wait()
        ev.supply(inputs, reference_outputs(module, inputs))
        assert ev.evaluate(default_config(op, device_info("cpu"))).ok
