"""`python -m mdh_bench.transfer`: per case a long tuning without seeds and a short one
from the shipped configurations, run as jobs over two processes (on the CPU, as `--gpus 2`
deals them over two cards), then both bests timed in turns and reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mdh_bench import transfer
from mdh_bench.cases import parse_cases
from mdh_ir.catalog import CATALOG
from mdh_ir.database.store import computation_key, describe
from mdh_ir.runtime import device_info
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.reference import find_compute

CASES = "matmul:40x36x24,matvec:96x64"


def _shipped(path: Path) -> None:
    """A shipped file holding a matrix product of other sizes on this CPU, with a
    configuration other than the default (so its adaptation is evaluated after it)."""
    info = device_info("cpu")
    op = find_compute(CATALOG["matmul"].build(i=32, j=32, k=32))
    config = str(default_config(op, info).with_(unroll=2).to_attr())
    entry = dict(computation=computation_key(op), device=info.key, config=config, seconds=1e-5) | describe(op)
    path.write_text(json.dumps([entry]))


def test_orders_longest_first_and_refuses_shipped_sizes(tmp_path: Path) -> None:
    args = transfer.parse_args(["--device", "cpu", "--cases", CASES, "--out", str(tmp_path)])
    jobs = transfer.order(parse_cases(CASES, "cpu"), args)
    assert [(m, c.name) for m, c in jobs] == [
        ("long", "matmul:40x36x24"), ("long", "matvec:96x64"), ("short", "matmul:40x36x24"), ("short", "matvec:96x64")
    ]  # fmt: skip
    _shipped(tmp_path / "shipped.json")
    with pytest.raises(SystemExit, match="matmul:32x32x32: the shipped configurations hold these sizes"):
        transfer.check_cases(parse_cases("matmul:32x32x32", "cpu"), tmp_path / "shipped.json", "cpu")
    transfer.check_cases(parse_cases(CASES, "cpu"), tmp_path / "shipped.json", "cpu")
    with pytest.raises(SystemExit, match="the shipped configurations hold nothing of Portable Computing Language"):
        transfer.check_cases(parse_cases(CASES, "cpu"), None, "cpu")  # the package's: the H100's only


def test_two_processes_tune_both_ways_and_report_the_ratios(tmp_path: Path) -> None:
    shipped = tmp_path / "shipped.json"
    _shipped(shipped)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "mdh_bench.transfer", "--device", "cpu", "--cases", CASES, "--long", "6s",
               "--short", "4s", "--gpus", "2", "--out", str(out), "--shipped", str(shipped), "--repeats", "3",
               "--rounds", "2"]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((out / "transfer_cpu.json").read_text())
    rows = {r["case"]: r for r in report["cases"]}
    assert list(rows) == CASES.split(",")
    for row in rows.values():
        long, short = row["long"], row["short"]
        assert (long["mode"], long["budget"], short["mode"], short["budget"]) == ("long", "6s", "short", "4s")
        assert long["seeds"] == [] and long["evaluations"] >= 2 and short["evaluations"] >= 2
        assert long["first"]["technique"] != "transfer"
        assert row["long_best"] > 0 and row["short_best"] > 0 and row["first"] > 0
        assert row["ratio"] == pytest.approx(row["long_best"] / row["short_best"])
        assert row["first_ratio"] == pytest.approx(row["first"] / row["long_best"])
    seeds = rows["matmul:40x36x24"]["short"]["seeds"]
    assert [(s["origin"], s["kin"], s["sizes"]) for s in seeds] == [("shipped", "same", [32, 32, 32])]
    first = rows["matmul:40x36x24"]["short"]["first"]
    assert (first["technique"], first["config"]) == ("transfer", seeds[0]["config"])
    assert rows["matvec:96x64"]["short"]["seeds"] == []  # nothing shipped of its shape
    for mode in transfer.MODES:  # every job's evaluations in its own database
        assert (out / "jobs" / f"{mode}-matmul_40x36x24.sqlite").exists()
    section = (out / "RESULTS.md").read_text()
    assert "<!-- begin cpu transfer -->" in section and "| matmul:40x36x24 |" in section
    assert "from the shipped configurations" in section and "shipped: same computation at 32x32x32" in section

    # run again, one job's result gone (as if stopped halfway): only that job runs, and
    # it continues its database with what is left of its budget
    (out / "jobs" / "long-matvec_96x64.json").unlink()
    others = {p: p.stat().st_mtime for p in (out / "jobs").glob("*.log") if "long-matvec" not in p.name}
    again = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "continuing after" in (out / "jobs" / "long-matvec_96x64.log").read_text()
    assert {p: p.stat().st_mtime for p in others} == others
    resumed = json.loads((out / "jobs" / "long-matvec_96x64.json").read_text())
    assert resumed["continued_after"] > 0 and resumed["evaluations"] >= rows["matvec:96x64"]["long"]["evaluations"]


def test_a_stopped_job_counts_the_time_between_its_results(tmp_path: Path) -> None:
    """What a stopped job tuned is the time between its consecutive stored results (the
    waits for builds included, which the results' costs leave out); a gap over
    `STOP_GAP` is the stop between two runs, and a claim under way is no result."""
    from mdh_ir.database.store import OK, RUNNING, Database, Evaluation

    path = tmp_path / "job.sqlite"
    db = Database(path)
    key = db.add_computation(find_compute(CATALOG["matvec"].build(i=8, k=8)))
    for i, status in enumerate([OK] * 5 + [RUNNING]):
        db.record(key, "d", Evaluation(f"c{i}", status, 1e-3 if status == OK else None, cost=0.5))
    created = [100.0, 110.0, 130.0, 131.0 + transfer.STOP_GAP, 141.0 + transfer.STOP_GAP, 151.0 + transfer.STOP_GAP]
    for i, t in enumerate(created):
        db._execute("UPDATE evaluations SET created = ? WHERE config = ?", (t, f"c{i}"))
    assert transfer.ran(path) == pytest.approx(10 + 20 + 10)
