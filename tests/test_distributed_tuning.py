"""Workers sharing one tuning (`mdh-tune --workers N`): one tuning database, in a
PostgreSQL server started by scripts/postgres.sh or in an SQLite file; each worker's
technique learns what the others stored, no configuration is evaluated twice, every
evaluation is stored once, and a killed worker loses nothing."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import OK, RUNNING, Database, Evaluation
from mdh_ir.device import PRESETS
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.distributed import Sharing, awaited, publish
from mdh_ir.tuning.space import Infeasible, RandomTrial, config_params, sample_config, space_names
from mdh_ir.tuning.transfer import seeds
from mdh_ir.tuning.tuner import Budget, Tuner

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "postgres.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """A PostgreSQL server on loopback in a fresh folder, stopped afterwards."""
    if shutil.which("pg_ctl") is None and not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs Debian's postgresql unless MDH_POSTGRES=0)")
    folder = tempfile.mkdtemp(prefix="mdh-pg-")  # not pytest's tmp_path: root-only, and PostgreSQL runs as postgres
    env = os.environ | {"MDH_PG_EPHEMERAL": "1"}
    started = subprocess.run([SCRIPT, "start", folder, str(free_port())], capture_output=True, text=True, env=env)
    if started.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"PostgreSQL could not be started: {started.stderr.strip()[-500:]}")
    yield started.stdout.strip()
    subprocess.run([SCRIPT, "stop", folder], capture_output=True, env=env)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres(server: str, request) -> str:
    """The URL of a fresh database on the server."""
    import psycopg

    name = "t_" + re.sub(r"\W", "_", request.node.name).lower()[:50]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "t.sqlite")
    return request.getfixturevalue("postgres")


def together(workers: int, work) -> list[str]:
    """`work(index)` in `workers` threads started at once; the errors they raised."""
    barrier = threading.Barrier(workers)
    errors: list[str] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=60)
            work(index)
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(f"worker {index}: {e!r}")
            barrier.abort()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_workers_opening_a_new_database_at_once_all_get_it(target: str) -> None:
    """Four workers opening the same new database at once all get it (SQLite answered
    the switch to its WAL journal "database is locked" at once, without waiting: 11 of
    300 times with a new file): 100 new files."""
    for _ in range(100 if target.endswith(".sqlite") else 5):
        if target.endswith(".sqlite"):
            target = target[: -len(".sqlite")] + "x.sqlite"
        assert together(4, lambda i: Database(target)) == []


def test_one_worker_of_concurrent_claims_wins(target: str) -> None:
    won: list[tuple[int, str]] = []

    def claim_all(index: int) -> None:
        db = Database(target)
        for c in range(20):
            if db.claim("k", "dev", f"c{c}", f"w{index}", lifetime=60, since=0):
                won.append((index, f"c{c}"))

    assert together(4, claim_all) == []
    assert sorted(c for _, c in won) == sorted(f"c{c}" for c in range(20))  # each exactly once


def test_concurrent_claims_never_exceed_the_budget(target: str) -> None:
    """Claims with a budget: of 4 workers claiming 20 configurations at once, exactly
    `budget` claims win (the count and the claim are one transaction); rows written
    before the run (`since`) do not count."""
    Database(target).record("k", "dev", Evaluation("earlier", OK, 1.0, [1.0]))
    since = time.time() + 0.01
    time.sleep(0.02)
    won: list[str] = []

    def claim_all(index: int) -> None:
        db = Database(target)
        won.extend(c for c in (f"c{c}" for c in range(20)) if db.claim("k", "dev", c, f"w{index}", 60, since, budget=7))

    assert together(4, claim_all) == []
    assert len(won) == len(set(won)) == 7
    assert Database(target).counted("k", "dev", since) == 7


def test_a_spent_budget_still_lets_a_claim_counted_in_it_be_claimed_again(target: str) -> None:
    """Once the budget is claimed, no new configuration is, but a claim the budget
    already counts is: a worker's own, and one whose worker died (its expiry)."""
    db, since = Database(target), time.time()
    assert db.claim("k", "dev", "a", "w1", 60, since, budget=2)
    assert db.claim("k", "dev", "b", "w2", 60, since, budget=2)
    assert not db.claim("k", "dev", "c", "w1", 60, since, budget=2)  # spent
    assert db.claim("k", "dev", "a", "w1", 60, since, budget=2)  # its own
    time.sleep(0.02)
    assert db.claim("k", "dev", "b", "w1", 0.01, since, budget=2)  # w2 died
    db.record("k", "dev", Evaluation("b", OK, 1.0, [1.0]))
    assert not db.claim("k", "dev", "c", "w1", 60, since, budget=2)  # a result counts as its claim did


def test_a_worker_evaluates_what_is_left_of_the_shared_budget(tmp_path: Path) -> None:
    """A shared tuning's budget counts every worker's evaluations of this run: with two
    stored (and one of an earlier run, not counted) a worker evaluates two of a budget
    of four, then ends holding no claim."""
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(CATALOG["matvec"].build(i=36, k=8), db, "cpu", "random", seed=4, repeats=2,
                  transfer=False, sharing=Sharing(0, "w0", 60, 0, budget=4))  # fmt: skip
    db.record(tuner.key, tuner.info.key, Evaluation("#mdh.config<old>", OK, 1.0, [1.0]))
    since = time.time() + 0.01
    time.sleep(0.02)
    tuner.sharing = Sharing(0, "w0", 60, since, budget=4)
    for other in ("#mdh.config<x>", "#mdh.config<y>"):
        db.record(tuner.key, tuner.info.key, Evaluation(other, OK, 1.0, [1.0]))
    progress = tuner.run(Budget())
    assert progress.evaluations == 2 and progress.default is not None
    assert db.counted(tuner.key, tuner.info.key, since) == 4
    assert all(e.status != RUNNING for e in db.evaluations(tuner.key, tuner.info.key))


def test_workers_wait_for_the_reference_their_command_publishes(tmp_path: Path, monkeypatch) -> None:
    """A worker's reference result is its command's: waited for until the file is
    written whole (dtypes kept), and given up once the command is gone."""
    path, arrays = tmp_path / "reference.npz", [np.arange(6.0).reshape(2, 3), np.array([1.5], dtype=np.float32)]
    load = awaited(path)
    threading.Timer(0.3, publish, (path, arrays)).start()
    got = load()
    assert [(a.dtype, a.tolist()) for a in got] == [(a.dtype, a.tolist()) for a in arrays]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reference.npz"]
    orphaned = awaited(tmp_path / "never.npz")
    monkeypatch.setattr(os, "getppid", lambda: -1)
    with pytest.raises(RuntimeError, match="ended before writing"):
        orphaned()


def test_a_tuner_given_a_reference_to_wait_for_does_not_compute_one(tmp_path: Path, monkeypatch) -> None:
    import mdh_ir.tuning.tuner as tuner_module

    tuner = Tuner(CATALOG["matvec"].build(i=20, k=12), Database(":memory:"), "cpu", "random", repeats=2)
    inputs, reference = tuner.data()
    asked: list[int] = []

    def computed(*args):
        raise AssertionError("the reference semantics ran")

    monkeypatch.setattr(tuner_module, "reference_outputs", computed)
    progress = tuner.run(Budget.parse("2evals"), reference=lambda: asked.append(1) or reference)
    assert asked == [1] and progress.default is not None and progress.default.ok


def test_a_claim_is_released_by_its_result_or_by_expiry(target: str) -> None:
    db, other = Database(target), Database(target)
    assert db.claim("k", "dev", "a", "w1", lifetime=60, since=0)
    assert db.claim("k", "dev", "a", "w1", lifetime=60, since=0)  # its own
    assert not other.claim("k", "dev", "a", "w2", lifetime=60, since=0)
    assert other.lookup("k", "dev", "a").status == RUNNING
    time.sleep(0.02)
    assert other.claim("k", "dev", "a", "w2", lifetime=0.01, since=0)  # w1 died: its claim expired
    db.record("k", "dev", Evaluation("a", OK, 1.0, [1.0]))
    assert not other.claim("k", "dev", "a", "w2", lifetime=0, since=time.time())  # stored: never again
    db.record("k", "dev", Evaluation("b", "timeout", None))
    started = time.time() - 10
    assert not other.claim("k", "dev", "b", "w2", lifetime=60, since=started)  # this tuning's failure
    assert other.claim("k", "dev", "b", "w2", lifetime=60, since=time.time() + 1)  # an earlier run's


def test_a_worker_releases_the_claims_it_did_not_evaluate(target: str) -> None:
    """A worker whose budget ends with draws claimed but not evaluated drops those
    claims (nothing waits for them to expire); another worker's claims stay."""
    db = Database(target)
    for config in ("a", "b"):
        assert db.claim("k", "dev", config, "w1", lifetime=60, since=0)
    assert db.claim("k", "dev", "c", "w2", lifetime=60, since=0)
    db.release("k", "dev", "w1")
    assert db.lookup("k", "dev", "a") is None and db.lookup("k", "dev", "b") is None
    assert db.lookup("k", "dev", "c").status == RUNNING


def tune(tmp_path: Path, evaluations: int, *options: str, **kwargs) -> subprocess.Popen:
    source = tmp_path / "mv.mlir"
    source.write_text(str(CATALOG["matvec"].build(i=20, k=12)))
    command = [
        sys.executable, "-m", "mdh_ir.tools.mdh_tune", str(source), "--device", "cpu", "--budget",
        f"{evaluations}evals", "--repeats", "2", "--timeout", "30", "--workers", "2", *options,
    ]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def measured(stdout: str) -> list[int]:
    """The evaluations each worker measured itself (not read from the database)."""
    return [int(n) - int(r) for n, r in re.findall(r"^evaluations: (\d+) \((\d+) from the database", stdout, re.M)]


def stored(target: str) -> dict[str, list[Evaluation]]:
    db = Database(target)
    (computation, device), *others = db.tuned()
    assert not others
    found: dict[str, list[Evaluation]] = {}
    for e in db.evaluations(computation, device):
        found.setdefault(e.status, []).append(e)
    return found


def test_two_workers_evaluate_each_configuration_once(target: str, tmp_path: Path) -> None:
    run = tune(tmp_path, 4, "--db", target)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    mine = measured(out)
    assert len(mine) == 2 and all(n > 0 for n in mine)  # both workers evaluated
    assert sum(mine) == 4  # the budget's evaluations, the default taken by one from the other
    by_status = stored(target)
    assert RUNNING not in by_status  # every claim ended in its result
    assert sum(len(v) for v in by_status.values()) == sum(mine)  # each evaluation stored once, none twice
    workers, final = out.split("== final check")
    assert "  confirm " not in workers and re.search(r"^best: ", final, re.M)  # checked once, by the command
    best, default = (re.search(rf"^{name}: (\S+)", final, re.M).group(1) for name in ("best", "default"))
    assert best == default or any(e.confirmed for e in by_status[OK])


def test_a_killed_worker_loses_nothing(postgres: str, tmp_path: Path) -> None:
    run = tune(tmp_path, 12, "--db", postgres)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(run.stderr.readline, "")), daemon=True)
    reader.start()
    deadline = time.time() + 180
    while time.time() < deadline and not any(line.startswith("worker 1: [1/") for line in lines):
        time.sleep(0.05)
    worker = next(
        pid for pid in Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()
        if b"\0--worker\x001" in Path(f"/proc/{pid}/cmdline").read_bytes()
    )  # fmt: skip
    os.kill(int(worker), signal.SIGKILL)
    last = [line for line in list(lines) if line.startswith("worker 1: [")][-1]
    out = run.stdout.read()
    run.wait(timeout=300)
    reader.join(timeout=10)
    assert run.returncode == 1 and "worker 1 exited with -9" in "".join(lines)
    done, replayed = map(int, re.search(r"\[(\d+)/\d+ evals\].*replayed (\d+)", last).groups())
    (others,) = measured(out)  # the summary of the worker that finished
    assert "== final check" in out
    by_status = stored(postgres)
    finished = sum(len(v) for s, v in by_status.items() if s != RUNNING)
    assert finished + len(by_status.get(RUNNING, [])) == 12  # the survivor took the rest of the budget
    # the killed worker's evaluations are all there (one more if it stored one after its last line)
    assert others + done - replayed <= finished <= others + done - replayed + 1
    db = Database(postgres)
    (computation, device), *_ = db.tuned()
    for claim in by_status.get(RUNNING, []):  # its unfinished claim: held until it expires, then free
        assert not db.claim(computation, device, claim.config, "next", lifetime=3600, since=0)
        assert db.claim(computation, device, claim.config, "next", lifetime=0, since=0)


@pytest.mark.parametrize("technique", ["tpe", "ga"])
def test_a_worker_learns_the_results_the_others_stored(technique: str, tmp_path: Path) -> None:
    """Before drawing, a shared worker's technique learns each result stored since it
    last looked, once, as a completed trial (a failure as the penalty); claims under way
    and configurations that do not parse are no results."""
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(CATALOG["matvec"].build(i=20, k=12), db, "cpu", technique, sharing=Sharing(0, "w0", 60, 0))
    default, rng, points = default_config(tuner.op, tuner.info), np.random.default_rng(0), []
    while len(points) < 3:
        try:
            cfg = sample_config(tuner.op, tuner.info, RandomTrial(rng), default)
        except Infeasible:
            continue
        params = config_params(tuner.op, tuner.info, cfg)
        if params is not None and all(str(cfg.to_attr()) != text for text, _ in points):
            points.append((str(cfg.to_attr()), params))
    (fast, fast_params), (wrong, wrong_params), (running, running_params) = points
    db.record(tuner.key, tuner.info.key, Evaluation(fast, OK, 0.5, [0.5]))
    db.record(tuner.key, tuner.info.key, Evaluation(wrong, "wrong", None))
    db.record(tuner.key, tuner.info.key, Evaluation("#mdh.config<garbage>", OK, 0.1, [0.1]))
    assert db.claim(tuner.key, tuner.info.key, running, "w1", lifetime=60, since=0)
    learned: set[str] = set()
    tuner.learn_others(set(), learned)

    def told(trials, points) -> list:
        """Each trial's draws of its point's names, and its value."""
        return [({k: t.params[k] for k in p}, t.value) for t, p in zip(trials, points, strict=True)]

    trials = tuner.technique.study.trials
    assert told(trials, [fast_params, wrong_params]) == [(fast_params, 0.5), (wrong_params, 5.0)]
    assert technique != "tpe" or all(set(space_names(tuner.op, tuner.info)) <= t.params.keys() for t in trials)
    assert learned == {fast, wrong, "#mdh.config<garbage>"}
    db.record(tuner.key, tuner.info.key, Evaluation(running, OK, 0.25, [0.25]))
    tuner.learn_others(learned, learned)
    assert told(tuner.technique.study.trials[2:], [running_params]) == [(running_params, 0.25)]


def test_the_compile_driver_reads_a_postgresql_database(postgres: str, monkeypatch) -> None:
    """`$MDH_TUNING_DB` may name a PostgreSQL database: `compile_module`'s configuration
    then comes from it, as from a file."""
    from mdh_ir.database.store import computation_key
    from mdh_ir.driver.choose import Choice, known_config

    op, info = find_compute(CATALOG["matvec"].build(i=20, k=12)), PRESETS["cpu"]
    mine = default_config(op, info).with_(unroll=2)
    Database(postgres).record(computation_key(op), info.key, Evaluation(str(mine.to_attr()), OK, 0.5))
    monkeypatch.setenv("MDH_TUNING_DB", postgres)
    assert known_config(op, info) == Choice(mine, "database")


def test_workers_split_the_transferred_seeds(tmp_path: Path) -> None:
    """A shared worker leaves a transferred seed that another worker is evaluating (its
    claim) to that worker and takes one another worker stored, counting neither among
    its evaluations (its budget): the workers split the seeds instead of
    evaluating them in turn."""
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(CATALOG["matvec"].build(i=36, k=8), db, "cpu", "random", seed=4, repeats=3,
                  sharing=Sharing(0, "w0", 60, 0))  # fmt: skip
    for i, unroll in ((32, 2), (40, 4), (48, 8)):  # three tunings of other sizes: three seeds
        op = find_compute(CATALOG["matvec"].build(i=i, k=8))
        cfg = default_config(op, tuner.info).with_(unroll=unroll)
        db.record(db.add_computation(op), tuner.info.key, Evaluation(str(cfg.to_attr()), OK, 1e-3, [1e-3]))
    found = seeds(tuner.op, tuner.info, db)
    texts = [str(s.config.to_attr()) for s in found]
    assert len({*texts, str(default_config(tuner.op, tuner.info).to_attr())}) == 4
    assert db.claim(tuner.key, tuner.info.key, texts[0], "w1", lifetime=60, since=0)  # under way
    db.record(tuner.key, tuner.info.key, Evaluation(texts[2], OK, 2e-3, [2e-3], technique="transfer"))  # stored
    progress = tuner.run(Budget.parse("3evals"))
    assert [str(s.config.to_attr()) for s, _ in progress.seeds] == [texts[1], texts[2]]
    assert progress.seeds[1][1].seconds == 2e-3  # the other worker's result
    assert (progress.evaluations, progress.others) == (3, 1)  # the default, one seed, one draw measured
    assert db.lookup(tuner.key, tuner.info.key, texts[0]).status == RUNNING  # left to its worker
    assert db.lookup(tuner.key, tuner.info.key, texts[1]).technique == "transfer"


def test_a_worker_finding_the_default_claimed_evaluates_its_seeds_first(tmp_path: Path) -> None:
    """The default every worker starts from is evaluated by the worker that claimed it;
    another evaluates the seeds meanwhile and then waits for the default's result (here
    the claim expires, its worker gone, and this worker evaluates the default last)."""
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(CATALOG["matvec"].build(i=36, k=8), db, "cpu", "random", seed=4, repeats=3,
                  sharing=Sharing(0, "w0", 1.0, 0))  # fmt: skip
    for i, unroll in ((32, 2), (40, 4)):  # two tunings of other sizes: two seeds
        op = find_compute(CATALOG["matvec"].build(i=i, k=8))
        cfg = default_config(op, tuner.info).with_(unroll=unroll)
        db.record(db.add_computation(op), tuner.info.key, Evaluation(str(cfg.to_attr()), OK, 1e-3, [1e-3]))
    texts = [str(s.config.to_attr()) for s in seeds(tuner.op, tuner.info, db)]
    default = str(default_config(tuner.op, tuner.info).to_attr())
    assert len({*texts, default}) == 3
    assert db.claim(tuner.key, tuner.info.key, default, "w1", lifetime=60, since=0)
    recorded: list[str] = []
    record = db.record
    db.record = lambda key, device, e: (recorded.append(e.config), record(key, device, e))[1]  # type: ignore
    progress = tuner.run(Budget.parse("3evals"))
    assert recorded == [*texts, default]
    assert progress.default is not None and progress.default.config == default and progress.default.ok


def test_a_workers_progress_line_counts_its_part_of_the_shared_budget(capsys) -> None:
    """A worker's line shows its evaluations of the tuning's budget, and an ETA for its
    part of them: at 10 of 100 evaluations in 10 s, one of 2 workers has 40 left."""
    from mdh_ir.tools.mdh_tune import ProgressBar
    from mdh_ir.tuning.tuner import Progress

    progress = Progress(evaluations=10, elapsed=10.0)
    for workers, eta in ((1, 90), (2, 40)):
        ProgressBar(Budget.parse("100evals"), "worker 0: ", lines=True, workers=workers)(progress)
        assert capsys.readouterr().err == f"worker 0: [10/100 evals] failed 0, replayed 0 | best - | 10s, ETA {eta}s\n"
