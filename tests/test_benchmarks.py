"""The benchmark harness (`python -m mdh_bench`): case selection, and a quick CPU run
whose CSV, run description and RESULTS.md section are checked, then merged with a
second run. CLBlast is pointed at a missing library: the harness must go on without it."""

from __future__ import annotations

import csv
import json
import time
from math import prod
from pathlib import Path

import numpy as np
import pytest

from mdh_bench import clblast, measure
from mdh_bench.__main__ import main
from mdh_bench.case_data import case_data
from mdh_bench.cases import BAR_CASES, parse_cases
from mdh_bench.draws import distance, search, target_config
from mdh_bench.measure import Roofline, Sampler, settle, stream_kernel
from mdh_bench.peers import copy_peer, stream_peer
from mdh_ir.catalog import CATALOG
from mdh_ir.device import PRESETS
from mdh_ir.runtime import _context, select_device
from mdh_ir.semantics.reference import find_compute
from mdh_ir.tuning.space import space_names


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
    first_run = rows[0]["run"]
    runs = json.loads((tmp_path / "results_cpu.json").read_text())
    roofline = measure.Roofline(**runs[first_run]["roofline"])
    for r in rows:
        if r["variant"].startswith("clblast"):
            assert r["status"] == "n/a" and ("libclblast" in r["note"] or "no routine" in r["note"])
            continue
        if r["variant"] == "copy" and roofline.bound(int(r["bytes"]), int(r["flops"])) == "compute":
            # the measured roofline decides (matmul:small, 2.4 flops a byte, on a loaded
            # 2-core machine: 59 GB/s against 112 GFLOP/s)
            assert r["status"] == "n/a" and r["note"] == "compute-bound case", r
            continue
        assert r["status"] == "ok", r
        assert r["variant"] != "copy" or "copy kernel" in r["note"]
        assert 0 < float(r["min_ms"]) <= float(r["median_ms"]) <= float(r["max_ms"])
        assert r["repeats"] == "5"
    tuned = [r for r in rows if r["variant"] == "ours tuned"]
    assert all(r["tuning"].startswith("2 evals") and "#mdh.config<" in r["note"] for r in tuned)
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
    from mdh_bench import ours, run

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
    from mdh_bench import ours, run
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


# --- size sweeps, the report's sweep section, the Triton and Inductor peers -----------------


def test_every_sweep_case_parses_and_builds() -> None:
    """Every case of every sweep names a known size; its module builds at full size, and
    at the small size its inputs and reference are made. ResNet-50's layers are valid
    convolutions over the padded input, (p-1)·stride + r wide. `gpu-random` is the same
    40 sizes every time, of every kind and precision."""
    from mdh_bench.cases import SWEEPS, _random_cases, quick, sweep_cases, sweeps_including
    from mdh_bench.entries import ENTRIES

    for name in SWEEPS:
        cases = sweep_cases(name, "gpu")
        assert [c.name for c in cases] == SWEEPS[name]
        for case in cases:
            ENTRIES[case.entry].build(**case.sizes)
        for case in quick(cases):
            data = case_data(case)
            assert data.reference and data.nbytes > 0
    assert SWEEPS["gpu"] == SWEEPS["gpu-matmul"] + SWEEPS["gpu-conv"] + SWEEPS["gpu-other"]
    assert sorted(SWEEPS["gpu-conv"]) == sorted(SWEEPS["gpu-conv-n1"] + SWEEPS["gpu-conv-n32"])
    cubes = {f"matmul:{n}" for n in (127, 500, 1000, 1023, 1025, 2000, 3000)}
    skinny = {f"matmul:{m}x4096x4096" for m in (1, 8, 32, 128)} | {"matmul:4096x4096x32"}
    assert cubes | skinny <= set(SWEEPS["gpu"])
    convs = [c for c in sweep_cases("gpu-conv", "gpu")]
    assert len(convs) == 2 * 22 and {c.sizes["n"] for c in convs} == {1, 32}
    assert {(c.sizes["r"], c.sizes["stride"]) for c in convs} == {(1, 1), (3, 1), (3, 2), (1, 2)}
    (layer,) = parse_cases("mcc:r50-conv3-3x3s2-n1", "gpu")
    x, w = case_data(layer).inputs
    assert x.shape == (1, 27 * 2 + 3, 27 * 2 + 3, 128) and w.shape == (128, 3, 3, 128)
    assert all(c.sizes["n"] == 1 for c in sweep_cases("cpu-conv", "cpu"))
    precision = sweep_cases("gpu-precision-conv", "gpu")
    convs = [c for c in precision if c.entry.startswith("mcc_")]
    assert len(convs) == 3 * 11 and {c.sizes["n"] for c in convs} == {32}
    assert {(c.sizes["r"], c.sizes["stride"]) for c in convs} == {(1, 1), (3, 1), (3, 2), (1, 2)}
    assert {(c.sizes["c"], c.sizes["stride"]) for c in convs if c.sizes["r"] == 3} == {
        (64, 1), (128, 1), (256, 1), (512, 1), (128, 2), (256, 2), (512, 2)
    }  # every stage's 3×3 convolutions
    ones = [c.label for c in convs if c.sizes["r"] == 1]
    assert len(ones) == 3 * 4 and all(label.startswith("r50-conv3-1x1") for label in ones)
    batched = {c.label for c in precision if c.entry == "bmatmul_bf16"}
    assert batched == {"16x127x500x63", "8x1023x1025x255", "16x10x500x64", "32x512x512x64"}
    assert {c.entry for c in precision} == {f"{e}_{p}" for e in ("mcc", "bmatmul") for p in ("tf32", "f16", "bf16")}
    assert sweeps_including("gpu-precision-conv") == ["gpu-precision-conv"]
    drawn = sweep_cases("gpu-random", "gpu")
    assert len(drawn) == 40 and SWEEPS["gpu-random"] == _random_cases(1, 40) != _random_cases(2, 40)
    assert {c.entry.partition("_")[0] for c in drawn} == {"matmul", "bmatmul", "mcc"}
    assert {c.entry.partition("_")[2] for c in drawn} == {"", "tf32", "f16", "bf16"}
    assert any(c.sizes["k"] % 4 for c in drawn if c.entry.startswith("matmul_f16"))  # rows cp.async cannot move
    small = sweep_cases("cpu-random", "cpu")
    assert len(small) == 40 and {c.entry for c in small} == {"matmul", "bmatmul", "mcc"}
    assert all(2 * prod(v for d, v in c.sizes.items() if d != "stride") <= 3e9 for c in small)


def test_reductions_over_each_axis() -> None:
    """The harness's reductions over j and k match numpy, and so do their numpy peers."""
    from mdh_bench.numpy_peer import numpy_peer

    for name, axis in [("reduce_sum_j", 1), ("reduce_max_k", 2)]:
        (case,) = parse_cases(f"{name}:6x5x4", "cpu")
        data = case_data(case)
        op = np.add if name.startswith("reduce_sum") else np.maximum
        assert np.allclose(data.reference[0], op.reduce(data.inputs[0].astype(np.float64), axis=axis))
        sampler = numpy_peer(data)
        assert isinstance(sampler, Sampler) and f"axis={axis}" in sampler.notes["numpy"]


@pytest.mark.parametrize("base, sizes", [
    ("matmul", dict(i=33, j=17, k=40)), ("bmatmul", dict(b=3, i=17, j=9, k=40)),
    ("mcc", dict(n=2, p=5, q=4, k=8, r=3, s=3, c=16, stride=2)),
])  # fmt: skip
@pytest.mark.parametrize("precision, dtype", [("tf32", "float32"), ("f16", "float16"), ("bf16", "bfloat16")])
def test_reduced_precision_variants(base: str, sizes: dict[str, int], precision: str, dtype: str) -> None:
    """The reduced-precision products and convolutions of the `gpu-precision` sweeps:
    inputs of their type, an f32 result that the reference semantics (TF32: of the
    rounded inputs) and our default (on PoCL: FP32 FMAs of the rounded inputs) compute
    within the precision's tolerance of the float64 numpy twin."""
    from mdh_bench.cases import Case
    from mdh_bench.entries import ENTRIES
    from mdh_ir.driver import compile_module
    from mdh_ir.semantics.compare import reference_outputs

    name = f"{base}_{precision}"
    case = Case(name, "test", ENTRIES[name].params(**sizes))
    data = case_data(case)
    assert [x.dtype.name for x in data.inputs] == [dtype, dtype] and data.flops == 2 * case.points
    assert data.check(reference_outputs(data.module, data.inputs)) is None
    assert data.check(compile_module(data.module, "cpu")(*data.inputs)) is None
    assert data.check([data.reference[0] + 0.5]) is not None


def test_torch_checks_16_bit_results_with_their_rounding() -> None:
    """Every reduced-precision variant has a torch formulation; cuDNN's 16-bit
    convolutions give results of their inputs' type, which the f32 bound does not admit
    (1.3e-4 over 256 terms): the torch peer checks them as f32 with their rounding
    allowed, and a wrong one still fails."""
    import ml_dtypes

    from mdh_bench.cases import Case
    from mdh_bench.entries import ENTRIES, REDUCED
    from mdh_bench.torch_peer import FORMULATIONS, _check

    assert set(REDUCED) <= set(FORMULATIONS)
    for name, dtype in (("mcc_f16", np.float16), ("mcc_bf16", ml_dtypes.bfloat16)):
        sizes = ENTRIES[name].params(n=2, p=6, q=6, k=16, r=1, s=1, c=256, stride=1)
        data = case_data(Case(name, "test", sizes))
        rounded = data.reference[0].astype(dtype)
        assert data.check([rounded.astype(np.float32)]) is not None
        assert _check(data, rounded) is None
        assert _check(data, (data.reference[0] + 0.5).astype(dtype)) is not None


def test_geomean_leaves_out_zero_and_nan_ratios() -> None:
    from mdh_bench.report import _geomean, _ratio_text

    assert _geomean([2.0, 8.0]) == "4.00"
    assert _geomean([0.0, float("nan"), 2.0, 8.0]) == "4.00 (2 not positive and finite, left out)"
    assert _geomean([0.0]) == "n/a (1 not positive and finite, left out)"
    assert _geomean([]) == ""
    assert _ratio_text(0.004321) == "0.0043" and _ratio_text(1.234) == "1.23"


def _row(case: str, variant: str, median: float | None, tuning: str = "") -> dict[str, str]:
    ok = median is not None
    return dict(
        run="2026-01-01T00:00:00", case=case, computation=case.split(":")[0], sizes="i=1", variant=variant,
        status="ok" if ok else "n/a", min_ms=str(median or ""), median_ms=str(median or ""),
        max_ms=str(median or ""), repeats="3", bytes="12", flops="24", load="0", tuning=tuning,
        note="" if ok else "not installed",
    )  # fmt: skip


def test_sweep_section_ratios_means_and_counts() -> None:
    """Per case the peer's time over our default and tuned times; the geometric mean and
    the counts below 0.5x and 0.3x per column; a case not measured is said so; a peer's
    tuning is stated beside ours."""
    from mdh_bench.report import sweep_section

    rows = [
        _row("matmul:a", "ours tuned", 1.0, "5 evals, 3 s"), _row("matmul:a", "ours default", 2.0),
        _row("matmul:a", "torch", 0.2), _row("matmul:a", "triton", 4.0, "autotune 12.0 s"),
        _row("matmul:b", "ours tuned", 1.0), _row("matmul:b", "ours default", 1.0),
        _row("matmul:b", "torch", 0.0), _row("matmul:b", "triton", None),
        _row("matmul:b", "inductor", None), _row("other:c", "torch", 1.0),
    ]  # fmt: skip
    text = sweep_section("gpu", "mine", ["matmul:a", "matmul:b", "matmul:z"], rows, [])
    assert "sweep `mine`: 2 of 3 cases measured" in text
    head = next(line for line in text.splitlines() if line.startswith("| case"))
    assert "torch / default | torch / tuned | Triton FP32 / default | Triton FP32 / tuned | tuning" in head
    assert "inductor" not in head and "other:c" not in text
    a = next(line for line in text.splitlines() if line.startswith("| matmul:a"))
    assert "| 0.10 | 0.20 | 2.00 | 4.00 |" in a and "5 evals, 3 s; Triton FP32: autotune 12.0 s" in a
    b = next(line for line in text.splitlines() if line.startswith("| matmul:b"))
    assert "| n/a | n/a |" in b  # Triton FP32 measured, no time: said so, not left blank
    assert "- Triton FP32 on 1 case (matmul:b): not installed" in text
    assert "| matmul:z | not measured |" in text
    assert "| geometric mean |" in text and "| below 0.3x |  |  |  |  | 1 of 1 | 1 of 1 | 0 of 1 | 0 of 1 |" in text


def test_a_failing_section_keeps_the_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A formatting error in RESULTS.md's section loses no result: the CSV and JSON are
    written, RESULTS.md is left as it was, and `save` returns."""
    from mdh_bench import report
    from mdh_bench.cases import Case
    from mdh_bench.measure import Measurement
    from mdh_bench.run import CaseResult

    (tmp_path / "RESULTS.md").write_text("before\n")
    monkeypatch.setattr(report, "section", lambda *args: 1 / 0)
    run = report.RunInfo("2026-01-01T00:00:00", "dev", "plat", "1", "none", 3, True, None, [], 0.0)
    result = CaseResult(Case("dot", "x", dict(k=4)), 32, 8, [Measurement("ours default", [1e-3])])
    report.save(tmp_path, "cpu", run, [result], {"cpu": ["dot:x"]})
    assert [r["variant"] for r in _csv(tmp_path / "results_cpu.csv")] == ["ours default"]
    assert (tmp_path / "RESULTS.md").read_text() == "before\n"


def test_triton_and_inductor_unavailable_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch (or triton) both Triton variants and Inductor are `n/a` with the
    reason; on computations other than matrix products Triton has no kernel."""
    import sys

    from mdh_bench import peers

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    (matmul,) = parse_cases("matmul:8x8x8", "gpu")
    data = case_data(matmul)
    triton = peers.prepare("triton", data, "gpu", 3)
    assert [(m.variant, m.available) for m in triton] == [("triton", False), ("triton tf32", False)]
    assert all("not installed" in m.note for m in triton)
    (inductor,) = peers.prepare("inductor", data, "gpu", 3)
    assert not inductor.available and inductor.note == "torch is not installed"
    (scan,) = parse_cases("prefix_sum:64", "gpu")
    assert {m.note for m in peers.prepare("triton", case_data(scan), "gpu", 3)} == {"no Triton kernel for prefix_sum"}


def test_triton_kernel_module_imports() -> None:
    """The Triton kernel is defined and autotuned per precision over 8 configurations
    (triton imports without a GPU; launching it needs one)."""
    pytest.importorskip("triton", reason="triton is not installed here (the GPU machine has it)")
    from mdh_bench import triton_matmul

    assert len(triton_matmul.CONFIGS) == 8 and set(triton_matmul.AUTOTUNED) == {"ieee", "tf32"}
    assert "PRECISION" in triton_matmul.matmul_kernel.arg_names
    assert {c.kwargs["GROUP_M"] for c in triton_matmul.CONFIGS} == {8}


def test_quick_sweep_run_without_tuning(tmp_path: Path) -> None:
    """`--sweep` with `--budget none`: ours is timed with the default only, and the sweep's
    section and its device's whole sweep's section are written."""
    args = ["--device", "cpu", "--quick", "--out", str(tmp_path), "--peers", "numpy"]
    assert main([*args, "--sweep", "cpu-matmul", "--budget", "none"]) == 0
    rows = _csv(tmp_path / "results_cpu.csv")
    assert sorted({r["case"] for r in rows}) == ["bmatmul:small", "matmul:small", "matmul_t:small"]
    tuned = [r for r in rows if r["variant"] == "ours tuned"]
    assert all(r["status"] == "n/a" and r["note"] == "not tuned (budget none)" for r in tuned)
    text = (tmp_path / "RESULTS.md").read_text()
    assert "## CPU sweep `cpu-matmul`: 3 of 3 cases measured" in text
    assert "## CPU sweep `cpu`: 3 of 12 cases measured" in text and "| mcc:small | not measured |" in text


def test_the_harness_runs_from_any_directory(tmp_path: Path) -> None:
    """`python -m mdh_bench` is the installed harness, also outside the repository (xDSL's
    wheel installs a top-level `benchmarks` package, which the harness's name must not be)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mdh_bench", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage: python -m mdh_bench" in done.stdout and "--sweep" in done.stdout


def test_phases_breakdown_of_a_tuning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m mdh_bench.phases` tunes each case with the build pool off and on and
    writes where the time went: the phases (but the pool's, which overlap them) add up
    to the tuning's time, every evaluation's are kept, and the evaluations per minute
    of both tunings are compared."""
    from mdh_bench import phases
    from mdh_ir.tuning.tuner import OVERLAPPING

    monkeypatch.setenv("OUT", str(tmp_path))
    phases.main(["--device", "cpu", "--cases", "matvec:64x32,dot:2^10", "--budget", "3evals"])
    results = json.loads((tmp_path / "phases_cpu.json").read_text())
    assert [(r["name"], r["build_workers"]) for r in results] == [
        ("matvec:64x32", 0), ("matvec:64x32", 1), ("dot:2^10", 0), ("dot:2^10", 1)
    ]  # fmt: skip
    for r in results:
        assert r["evaluations"] == len(r["each"]) == 3
        own = {k: v for k, v in r["phases"].items() if k not in OVERLAPPING}
        assert sum(own.values()) == pytest.approx(r["elapsed"])
        built = {"pool_build", "load"} if r["build_workers"] else {"build"}
        assert built | {"check", "flush", "timed"} <= set(r["phases"])
    table = (tmp_path / "phases_cpu.md").read_text()
    assert "| evaluations (failed) | 3 (0) | 3 (0) | 3 (0) | 3 (0) |" in table and "| build |" in table
    assert "- dot:2^10: " in table and "with a pool of 1" in table


def test_the_draws_tool_searches_the_synthetic_times() -> None:
    """`python -m mdh_bench.draws`: a configuration's synthetic time is 0 at the target
    and grows away from it; a search both ways finds a finite best by 50 configurations."""
    op, info = find_compute(CATALOG["matmul"].build(i=64, j=64, k=64)), PRESETS["gpu"]
    target = target_config(op, info, 0)
    assert distance(target, target) == 0
    assert distance(target.with_(unroll=8 if target.unroll != 8 else 1), target) == 1
    for names in ([], space_names(op, info)):
        ms, marks = search(op, info, names, 0, target, 50)
        assert ms > 0 and set(marks) == {50} and 0 <= marks[50] < float("inf")



def test_the_workers_bench_reads_each_tunings_setup_and_loop() -> None:
    """`mdh_bench.workers` reports each tuning's seconds before its first evaluation and
    in its loop, from mdh-tune's time blocks (one per worker)."""
    from mdh_bench.workers import phases

    output = "\n".join([
        "== worker 0 (pid 1, device cpu)",
        "time: 32.0 s (316 evaluations measured)",
        "  setup          2.38 s         (before the first evaluation, not in the time)",
        "  load           2.79 s   8.7%       8.8 ms each",
        "== worker 1 (pid 2, device cpu)",
        "time: 33.6 s (284 evaluations measured)",
        "  setup          2.09 s         (before the first evaluation, not in the time)",
    ])  # fmt: skip
    assert phases(output) == ([2.38, 2.09], [32.0, 33.6])
