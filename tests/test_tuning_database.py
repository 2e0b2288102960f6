"""The tuning database is a cache: a failure whose cause was the run's options or the
machine's state is evaluated again, and a corrupt or foreign file never breaks running
(it falls back to the shipped or default configuration with one warning naming the file)
nor is written by the tuner (one line naming the file)."""

from __future__ import annotations

import contextlib
import io
import sqlite3
import warnings
from pathlib import Path

import pytest

from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import SCHEMA_VERSION, Database, DatabaseError, Evaluation, computation_key
from mdh_ir.device import PRESETS
from mdh_ir.driver import choose_config, configure
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tools import mdh_run, mdh_tune
from mdh_ir.tuning.tuner import Budget, Tuner

ROOT = Path(__file__).parent.parent
INFO = PRESETS["cpu"]


def small_matvec():
    return CATALOG["matvec"].build(i=24, k=16)


def foreign_schema(path: Path) -> None:
    sqlite3.connect(path).executescript("CREATE TABLE evaluations (computation TEXT, score REAL);")


def other_tables(path: Path) -> None:
    sqlite3.connect(path).executescript("CREATE TABLE photos (name TEXT, data BLOB);")


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 400)


def truncated(path: Path) -> None:
    db = Database(path)
    for i in range(200):
        db.record(f"k{i}", "dev", Evaluation("#mdh.config<>", "ok", 1.0, [1.0] * 20, "x" * 200))
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.conn.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def newer_version(path: Path) -> None:
    db = Database(path)
    db.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.conn.close()


BROKEN = {
    "garbage": garbage, "truncated": truncated, "foreign_schema": foreign_schema,
    "other_tables": other_tables, "newer_version": newer_version,
}  # fmt: skip


@pytest.mark.parametrize("kind", BROKEN)
def test_a_broken_database_is_refused_naming_the_file(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "tuning.sqlite"
    BROKEN[kind](path)
    before = path.read_bytes()
    with pytest.raises(DatabaseError) as e:
        Database(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", BROKEN)
def test_running_falls_back_with_one_warning(kind: str, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "tuning.sqlite"
    BROKEN[kind](path)
    monkeypatch.setenv("MDH_TUNING_DB", str(path))
    with pytest.warns(UserWarning, match=str(path)) as found:
        _, choices = configure(small_matvec(), INFO)
    assert len(found) == 1
    assert choices[0].origin in ("shipped", "default")


@pytest.mark.parametrize("config", ["#mdh.config<garbage", "#mdh.config<num_wg = [1, 1]>", "42"])
def test_an_unparsable_stored_configuration_falls_back(config: str, tmp_path: Path, monkeypatch) -> None:
    module = small_matvec()
    path = tmp_path / "tuning.sqlite"
    db = Database(path)
    key = db.add_computation(find_compute(module))
    db.record(key, INFO.key, Evaluation(config, "ok", 1e-6))
    monkeypatch.setenv("MDH_TUNING_DB", str(path))
    with pytest.warns(UserWarning, match=str(path)):
        _, choices = configure(module, INFO)
    assert choices[0].origin in ("shipped", "default")


def test_a_database_without_version_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    sqlite3.connect(path).executescript(
        "CREATE TABLE evaluations (id INTEGER PRIMARY KEY, computation TEXT NOT NULL,"
        " device TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, seconds REAL,"
        " times TEXT NOT NULL, message TEXT NOT NULL, cost REAL NOT NULL,"
        " technique TEXT NOT NULL, created REAL NOT NULL, UNIQUE (computation, device, config));"
        "INSERT INTO evaluations VALUES (1, 'k', 'dev', 'a', 'timeout', NULL, '[]', '', 0, '', 0);"
    )
    db = Database(path)
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    old = db.lookup("k", "dev", "a")
    assert (old.status, old.options, old.phases) == ("timeout", {}, {})


def tool(main, args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        with pytest.raises(SystemExit) as e:
            main(args)
    return e.value.code, err.getvalue()


@pytest.mark.parametrize("kind", BROKEN)
def test_mdh_tune_refuses_a_broken_database(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "tuning.sqlite"
    BROKEN[kind](path)
    before = path.read_bytes()
    args = [str(ROOT / "examples" / "dot.mlir"), "--budget", "1evals", "--db", str(path)]
    code, err = tool(mdh_tune.main, args)
    assert code == 1 and "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"{path}: error: ") and "move it aside" in line
    assert path.read_bytes() == before


@pytest.mark.parametrize("option", [["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "nan"],
                                    ["--repeats", "0"], ["--repeats", "-5"]])  # fmt: skip
def test_mdh_tune_refuses_options_up_front(option: list[str], tmp_path: Path) -> None:
    path = tmp_path / "tuning.sqlite"
    args = [str(ROOT / "examples" / "dot.mlir"), "--budget", "1evals", "--db", str(path), *option]
    code, err = tool(mdh_tune.main, args)
    (line,) = err.splitlines()
    assert code == 1 and f"error: {option[0]} {option[1]}: " in line
    assert not path.exists()


@pytest.mark.parametrize("repeats", ["0", "-5"])
def test_mdh_run_refuses_repeats_up_front(repeats: str) -> None:
    code, err = tool(mdh_run.main, [str(ROOT / "examples" / "dot.mlir"), "--repeats", repeats])
    (line,) = err.splitlines()
    assert code == 1 and f"error: --repeats {repeats}: " in line


def test_a_failure_of_the_runs_options_is_evaluated_again(tmp_path: Path) -> None:
    """A candidate that timed out under a tiny `--timeout` is stored with its cause and
    options, and evaluated again by a later run, which finds it correct."""
    module = small_matvec()
    db = Database(tmp_path / "t.sqlite")
    first = Tuner(module, db, "cpu", "random", repeats=1, timeout=1e-4).run(Budget.parse("1evals"))
    assert first.default.status == "timeout"
    key, device = first_key = computation_key(find_compute(module)), Tuner(module, db, "cpu").info.key
    stored = db.lookup(key, device, first.default.config)
    assert stored.status == "timeout" and stored.options == {"timeout": 1e-4, "repeats": 1}
    again = Tuner(module, db, "cpu", "random", repeats=1, timeout=60).run(Budget.parse("1evals"))
    assert again.replayed == 0 and again.default.ok
    assert db.lookup(key, device, again.default.config).ok


def test_a_failure_of_the_configuration_is_replayed(tmp_path: Path) -> None:
    """A wrong result (the configuration's own failure) is not evaluated again."""
    module = small_matvec()
    op = find_compute(module)
    db = Database(tmp_path / "t.sqlite")
    tuner = Tuner(module, db, "cpu", "random", repeats=1)
    text = str(default_config(op, tuner.info).to_attr())
    db.record(tuner.key, tuner.info.key, Evaluation(text, "wrong", None, message="differs"))
    progress = tuner.run(Budget.parse("1evals"))
    assert progress.replayed == 1 and progress.default.status == "wrong"
