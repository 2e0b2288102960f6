"""The benchmark harness (`python -m benchmarks`): case selection, and a quick CPU run
whose CSV, run description and RESULTS.md section are checked, then merged with a
second run. CLBlast is pointed at a missing library: the harness must go on without it."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np
import pytest

from benchmarks import clblast, measure
from benchmarks.__main__ import main
from benchmarks.cases import BAR_CASES, parse_cases
from benchmarks.measure import Roofline, Sampler, settle, stream_kernel
from benchmarks.peers import copy_peer, stream_peer
from benchmarks.run import case_data
from mdh_ir.runtime import _context, select_device


def test_case_selection() -> None:
    assert [c.name for c in parse_cases(None, "cpu")] == BAR_CASES["cpu"]
    (named,) = parse_cases("matmul:1024", "cpu")
    assert named.sizes == dict(i=1024, j=1024, k=1024)
    (given,) = parse_cases("matmul:512x256x128", "gpu")
    assert given.sizes == dict(i=512, j=256, k=128)
    (dot,) = parse_cases("dot:2^20", "gpu")
    assert dot.sizes == dict(k=2**20)
    assert [c.name for c in parse_cases("matmul", "gpu")] == [c for c in BAR_CASES["gpu"] if c.startswith("matmul:")]
    assert [c.name for c in parse_cases("histogram", "cpu")] == ["histogram:paper"]
    (mcc,) = parse_cases("mcc:resnet50-n1", "gpu")
    assert mcc.sizes["stride"] == 2 and mcc.small().label == "small"
    with pytest.raises(ValueError, match="unknown computation"):
        parse_cases("nope", "cpu")
    with pytest.raises(ValueError, match="3 sizes"):
        parse_cases("matmul:12x3", "cpu")


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_quick_cpu_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLBLAST_LIBRARY", str(tmp_path / "missing" / "libclblast.so.1"))
    clblast.library.cache_clear()
    (tmp_path / "RESULTS.md").write_text("# Benchmark results\n\n<!-- begin gpu -->\nGPU TABLE\n<!-- end gpu -->\n")
    args = ["--device", "cpu", "--quick", "--out", str(tmp_path), "--peers", "naive,numpy,clblast,copy"]
    assert main([*args, "--cases", "matmul,reduce_sum", "--budget", "2evals"]) == 0

    rows = _csv(tmp_path / "results_cpu.csv")
    variants = ["ours tuned", "ours default", "naive", "numpy", "clblast", "clblast last kernel", "copy"]
    assert [(r["case"], r["variant"]) for r in rows] == [
        (case, v) for case in ("matmul:small", "reduce_sum:small") for v in variants
    ]
    for r in rows:
        if r["variant"].startswith("clblast"):
            assert r["status"] == "n/a" and ("libclblast" in r["note"] or "no routine" in r["note"])
            continue
        assert r["status"] == "ok", r
        assert r["variant"] != "copy" or "copy kernel" in r["note"]
        assert 0 < float(r["min_ms"]) <= float(r["median_ms"]) <= float(r["max_ms"])
        assert r["repeats"] == "5"
    tuned = [r for r in rows if r["variant"] == "ours tuned"]
    assert all(r["tuning"].startswith("2 evals") and "#mdh.config<" in r["note"] for r in tuned)
    first_run = rows[0]["run"]
    runs = json.loads((tmp_path / "results_cpu.json").read_text())
    assert list(runs) == [first_run] and runs[first_run]["roofline"]["copy_bandwidth"] > 0

    text = (tmp_path / "RESULTS.md").read_text()
    cpu = text[text.index("<!-- begin cpu -->") : text.index("<!-- end cpu -->")]
    assert text.index("<!-- end cpu -->") < text.index("<!-- begin gpu -->") and "GPU TABLE" in text
    assert "| computation | sizes | ours tuned (ms) | ours default (ms) | naive (ms) |" in cpu
    assert "| matmul | i=10 j=20 k=16 |" in cpu and "| reduce_sum | i=7 j=5 k=3 |" in cpu
    assert "| geometric mean |" in cpu and "CLBlast: not available" in cpu

    # a second run re-measures one case: it replaces that case's rows, keeps the other's
    assert main([*args, "--cases", "reduce_sum", "--budget", "1evals"]) == 0
    merged = _csv(tmp_path / "results_cpu.csv")
    assert [r["case"] for r in merged] == [r["case"] for r in rows]
    assert {r["run"] for r in merged if r["case"] == "matmul:small"} == {first_run}
    (second_run,) = {r["run"] for r in merged if r["case"] == "reduce_sum:small"}
    # one evaluation: the tuned configuration is the default, one program timed for both
    tuned, default = (
        next(r for r in merged if r["case"] == "reduce_sum:small" and r["variant"] == v)
        for v in ("ours tuned", "ours default")
    )
    assert tuned["median_ms"] == default["median_ms"] and "one program" in default["note"]
    assert sorted(json.loads((tmp_path / "results_cpu.json").read_text())) == sorted({first_run, second_run})
    assert (tmp_path / "RESULTS.md").read_text().count("<!-- begin cpu -->") == 1


def test_a_failing_program_shared_by_tuned_and_default_fails_both(monkeypatch) -> None:
    from benchmarks import ours, run

    (case,) = parse_cases("matvec", "cpu")
    data = case_data(case)
    kept = ours.Tuning(ours.default(data, "cpu"), "1 evals")
    monkeypatch.setattr(ours, "tune", lambda *args: kept)
    monkeypatch.setattr(ours, "sampler", lambda *args: 1 / 0)
    result = run.run_case(case, "cpu", "1evals", ":memory:", 2, [])
    assert [(m.variant, m.available) for m in result.measurements] == [
        ("ours tuned", False), ("ours default", False)
    ]
    assert all("ZeroDivisionError" in m.note for m in result.measurements)


def test_every_timed_run_follows_the_flush(monkeypatch: pytest.MonkeyPatch) -> None:
    """`interleave` calls `before` right before each run of each sampler, warm-up
    included; `run_case` passes the runtime's flush of the tuner's size."""
    from benchmarks import ours, run
    from mdh_ir import runtime
    from mdh_ir.tuning.evaluate import FLUSH_BYTES

    (case,) = parse_cases("matvec:64x32", "cpu")
    data = case_data(case)
    monkeypatch.setattr(ours, "tune", lambda *args: ours.Tuning(ours.default(data, "cpu"), "1 evals"))
    flushes: list[tuple] = []
    monkeypatch.setattr(runtime, "flush", lambda *args: flushes.append(args))
    run.run_case(case, "cpu", "1evals", ":memory:", 2, [])
    assert flushes == [("cpu", FLUSH_BYTES)] * 3  # one program (tuned = default), 1 + 2 runs

    events: list[str] = []
    samplers = [
        Sampler(lambda name=name: events.append(name) or {name: 1.0}, {name: ""}) for name in "ab"
    ]
    measured = measure.interleave(samplers, 3, idle=False, before=lambda: events.append("flush"))
    assert [len(m.times) for m in measured] == [3, 3]
    assert events[0::2] == ["flush"] * 8 and sorted(events[1::2]) == ["a"] * 4 + ["b"] * 4


def test_copy_peer_only_where_memory_bound() -> None:
    (case,) = parse_cases("matmul:64x64x64", "cpu")
    data = case_data(case)
    slow_fma = Roofline(copy_bandwidth=1e12, fma_peak=1e6)
    assert copy_peer(data, "cpu", slow_fma).note == "compute-bound case"
    sampler = copy_peer(data, "cpu", Roofline(copy_bandwidth=1e6, fma_peak=1e12))
    assert isinstance(sampler, Sampler) and str(data.nbytes // 2 // 16 * 16) in sampler.notes["copy"]
    assert sampler.sample()["copy"] > 0


def test_stream_reads_and_writes_the_case_traffic() -> None:
    """The stream kernel writes the first `writes` float4s it reads and nothing else; the
    stream peer reads the case's inputs and writes its outputs, where memory-bound."""
    import pyopencl as cl

    ctx, queue = _context(select_device("cpu"))
    src = np.arange(4 * 10, dtype=np.float32)
    for reads, writes in [(10, 3), (3, 10), (7, 7)]:
        dst = np.full(4 * 10, -2.0, np.float32)
        mf = cl.mem_flags
        a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=src)
        b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=dst)
        items = -(-max(reads, writes) // 2)
        stream_kernel(ctx)(queue, (items,), None, a, b, np.uint32(reads), np.uint32(writes))
        cl.enqueue_copy(queue, dst, b)
        copied = min(reads, writes)
        assert (dst[: 4 * copied] == src[: 4 * copied]).all()
        assert (dst[4 * copied : 4 * writes] == 0).all() and (dst[4 * writes :] == -2).all()
    (case,) = parse_cases("matvec:64x64", "cpu")
    data = case_data(case)
    assert stream_peer(data, "cpu", Roofline(copy_bandwidth=1e12, fma_peak=1e6)).note == "compute-bound case"
    sampler = stream_peer(data, "cpu", Roofline(copy_bandwidth=1e6, fma_peak=1e12))
    assert isinstance(sampler, Sampler) and sampler.sample()["stream"] > 0
    assert f"{data.input_bytes} bytes read, {data.output_bytes} written" in sampler.notes["stream"]


def test_settle_waits_for_busy_threads(monkeypatch) -> None:
    """A thread spinning on after a call (as OpenBLAS's workers do) delays the next run
    until it stops; an idle process is not delayed. The process's CPU time is simulated
    (a real spinning thread can miss whole probes on a loaded machine): busy for the
    first `busy` probes, then idle."""
    busy, probes = 7, []

    def cpu_time() -> float:
        probes.append(None)  # two readings per probe: before and after its sleep
        done = len(probes) // 2
        return 0.005 * min(done, busy)

    monkeypatch.setattr(measure.time, "process_time", cpu_time)
    settle(calm=3)
    assert len(probes) == 2 * (busy + 3)
    probes.clear()
    busy = 0
    start = time.perf_counter()
    settle(calm=3)
    assert len(probes) == 2 * 3 and time.perf_counter() - start < 0.1
