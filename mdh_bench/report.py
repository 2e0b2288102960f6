"""Results on disk: the raw CSV and run descriptions per device, and RESULTS.md.

`results_<device>.csv` holds one row per case and variant (min/median/max); it is the
source of truth: a run replaces the rows of the cases it measured and keeps the others,
so a device's cases can be measured in several runs. `results_<device>.json` describes
each run the rows come from (device, driver, date, libraries, the measured roofline).
RESULTS.md gets one section per device, regenerated from those two files, and one per
size sweep run (`--sweep`): the sweep's cases, each with our default and tuned times'
ratios against every peer, their geometric means and how many fall below 0.5x and
0.3x; and one for the chains measured (`chain_section`); the other sections are kept
as they are. The CSV and JSON are written first: a
section that fails to render is logged and leaves RESULTS.md as it was.
"""

from __future__ import annotations

import csv
import json
import math
import re
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

from mdh_bench.chains import CHAINS
from mdh_bench.log import log
from mdh_bench.measure import Roofline
from mdh_bench.peers import MAIN, columns
from mdh_bench.run import CaseResult
from mdh_ir.tuning.evaluate import FLUSH_BYTES

COLUMNS = [
    "run", "case", "computation", "sizes", "variant", "status", "min_ms", "median_ms", "max_ms",
    "repeats", "bytes", "flops", "load", "tuning", "note",
]  # fmt: skip

TITLE = "# Benchmark results"
PREAMBLE = """{title}

Written by `python -m mdh_bench` (see `mdh_bench/__main__.py`); raw data in
`results_<device>.csv`, run descriptions in `results_<device>.json`. Times are medians in
ms (min and max in the CSV). Within a case, every variant is timed round-robin (one run
of each, `repeats` times over, after a warm-up round, each round in a new random
order), so they share the machine's conditions; the CSV's `load` is the 1-minute load
average after a case's timing. Ratios are peer time / our tuned time: > 1 means we are
faster; "default / tuned" is our default configuration's time over the tuned one.
Roofline: the share of the device's measured limit reached by our tuned kernel, the
limit being the longer of moving every input once and every output once at the measured
copy bandwidth, and the FLOPs at the measured FMA peak.
"""

SECTION_RE = r"<!-- begin {0} -->.*?<!-- end {0} -->\n?"

LABELS = {
    "clblast": "CLBlast", "numpy-skylakex": "numpy SkylakeX", "copy": "same-size copy",
    "stream": "same-traffic stream", "triton": "Triton FP32", "triton tf32": "Triton TF32",
    "inductor": "torch.compile max-autotune",
}  # fmt: skip

COPY_HOW = (
    "same-size copy: the roofline's copy kernel moving as many bytes as the case (half read,"
    " half written), by the same events, in memory-bound cases; same-size copy / ours is the"
    " share of the bandwidth attainable at that size"
)

FLUSH_HOW = (
    f"every variant: each timed run follows a read of {FLUSH_BYTES >> 20} MB of scratch memory,"
    " as in tuning, so that none finds the previous run's data in the caches or writes back"
    " its lines (rows from runs before 2026-11-23T09:15 were timed without it)"
)

SAME_HOW = (
    "ours tuned and default: where tuning kept the default configuration, one program is"
    " timed for both (default / tuned 1.00): two programs of one configuration, each with"
    " its own buffers, differed by 10% on the H100 (reduce_max, 2026-11-23 01:46)"
)

HOW = {
    "cpu": [
        "ours: time from OpenCL profiling events (PoCL), from the start of the program's first"
        " kernel to the end of its last (rows from runs before 2026-11-23T05:30 summed the kernels' times)",
        SAME_HOW,
        "roofline: copy bandwidth and FMA peak measured from OpenCL in the same run (header)",
        "naive: our lowering with one work-item per work-group and per output point"
        " (lt_size = pt_size = 1, num_wg = N on kept dims; pw dims whole in one loop; no vectors)",
        "numpy: wall clock of the numpy formulation on float32 inputs (below), after a warm-up",
        "numpy SkylakeX: numpy in a subprocess with OPENBLAS_CORETYPE=SkylakeX (AVX-512 kernels)",
        "CLBlast: default (built-in) parameters on the same PoCL device, through ctypes: from the"
        " end of a marker just before the routine to the end of the event it returns (its last"
        " kernel), its kernels queued behind a gate so they run back to back (see"
        " mdh_bench/clblast.py; the last kernel alone is in the CSV as `clblast last kernel`)",
        COPY_HOW,
        FLUSH_HOW,
        "every variant: each timed run starts once this process's threads are idle"
        " (OpenBLAS's workers spin about 110 ms after a call; see mdh_bench/measure.py)",
    ],
    "gpu": [
        "ours: time from OpenCL profiling events (NVIDIA OpenCL), from the start of the program's"
        " first kernel to the end of its last, the gaps between kernels included (rows from runs"
        " before 2026-11-23T05:30 summed the kernels' times)",
        SAME_HOW,
        "torch: cuBLAS/cuDNN/torch kernels with TF32 off but in the _tf32 cases"
        " (cudnn.benchmark on), CUDA events",
        "Triton FP32 / TF32: a hand-written Triton matrix product (mdh_bench/triton_matmul.py,"
        " the tutorial's form: masked loads, grouped program order) with tl.dot input_precision"
        " 'ieee' / 'tf32', autotuned by triton.autotune over 8 configurations on its first call"
        " for the case's sizes (the seconds in the tuning column), checked (TF32 to a relative"
        " L2 error of 1e-2), then timed as torch is; matmul, matmul_t, bmatmul only",
        "torch.compile max-autotune: the torch formulation through torch.compile(mode="
        "'max-autotune-no-cudagraphs', dynamic=False), compiled and autotuned once per case (its"
        " seconds in the tuning column), then timed as torch is; without CUDA graphs, which"
        " would copy every input into the graph's buffers before each replay",
        "every run of ours, torch, the copy and the stream (and the header's empty kernel) is"
        " queued behind a gate, a kernel keeping the GPU busy while the host enqueues the run"
        " (mdh_ir.runtime; torch.cuda._sleep for torch), so the events time kernels, not the"
        " host's submission: enqueued onto an idle H100 the same kernels timed 2-3 us longer"
        " (an empty one 6.8 us instead of 3.2)",
        FLUSH_HOW,
        "CLBlast: built-in parameters on the NVIDIA OpenCL platform, timed as on the CPU; its"
        " database (1.5.3) has no entries for Hopper, so it falls back to defaults (listed below)",
        "roofline: copy bandwidth and FMA peak measured from OpenCL in the same run (header)",
        COPY_HOW,
        "same-traffic stream: a kernel reading as many bytes as the case reads and writing as"
        " many as it writes, a float4 of each twice per work-item (mdh_bench/measure.py), in"
        " memory-bound cases (blank in rows from runs before it existed): what a reduction's"
        " reads reach at its size",
    ],
}


@dataclass
class RunInfo:
    """One invocation of the harness on one device."""

    run: str
    """Its start time, ISO format: the run's id."""
    device: str
    platform: str
    driver: str
    budget: str
    repeats: int
    quick: bool
    roofline: Roofline | None
    libraries: list[str]
    """numpy/OpenBLAS, CLBlast, torch versions as text."""
    load: float
    """The 1-minute load average when the run started (other work skews the times)."""
    sweep: str = ""
    """The `--sweep` it ran, if any."""
    card: str = ""
    """The card it ran on (`CUDA_VISIBLE_DEVICES`) as one of `cards` processes (`--gpus`)."""
    cards: int = 1
    """How many processes, one per card of one kind, shared the run's cases."""

    def describe(self) -> str:
        parts = [f"{self.device} ({self.platform}, driver {self.driver})"]
        parts.append(f"tuning budget {self.budget} per case (TPE), {self.repeats} timed repeats")
        parts.append(f"load average {self.load:.2f} at the start")
        if self.quick:
            parts.append("quick smoke run (small sizes)")
        if self.sweep:
            parts.append(f"sweep {self.sweep}")
        if self.cards > 1:
            parts.append(
                f"card {self.card}, one of {self.cards} cards of this kind, each timing in its own process"
                f" its round-robin share of the cases, every case with all its peers (`--gpus {self.cards}`)"
            )
        if self.roofline is not None:
            r = self.roofline
            parts.append(f"measured copy bandwidth {r.copy_bandwidth / 1e9:.1f} GB/s, FMA peak {r.fma_peak / 1e9:.1f} GFLOP/s")
            if r.empty_kernel is not None:
                parts.append(f"an empty kernel {r.empty_kernel * 1e6:.1f} us by the profiling events")
        return "; ".join(parts) + "".join(f"\n  - {lib}" for lib in self.libraries)


def _ms(seconds: float | None) -> str:
    return f"{seconds * 1e3:.4g}" if seconds is not None else ""


def rows(run: RunInfo, result: CaseResult) -> list[dict[str, str]]:
    """The CSV rows of one case."""
    out = []
    for m in result.measurements:
        out.append(dict(
            run=run.run, case=result.case.name, computation=result.case.entry,
            sizes=result.case.size_text, variant=m.variant,
            status="ok" if m.available else "n/a",
            min_ms=_ms(m.min), median_ms=_ms(m.median), max_ms=_ms(m.max),
            repeats=str(len(m.times)), bytes=str(result.nbytes), flops=str(result.flops),
            load=f"{result.load:.2f}",
            tuning=result.tuning if m.variant == "ours tuned" else m.tuning,
            note=m.note,
        ))  # fmt: skip
    return out


def save(
    out: Path, device: str, run: RunInfo, results: list[CaseResult], sweeps: dict[str, list[str]] | None = None
) -> None:
    """Merge this run's rows into the device's CSV and JSON, then rewrite its RESULTS.md
    section and those of `sweeps` (name: its case names)."""
    merge(out, device, [run], [r for result in results for r in rows(run, result)], sweeps)


def merge(
    out: Path, device: str, runs: list[RunInfo], new: list[dict[str, str]], sweeps: dict[str, list[str]] | None = None
) -> None:
    """`save` of the CSV rows `new`, measured by `runs`."""
    out.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out / f"results_{device}.csv", out / f"results_{device}.json"
    measured = {r["case"] for r in new}
    old = _read_csv(csv_path)
    merged, placed = [], set()
    for r in old:  # keep the order of known cases; replace the re-measured ones in place
        if r["case"] in measured:
            if r["case"] not in placed:
                merged += [n for n in new if n["case"] == r["case"]]
                placed.add(r["case"])
        else:
            merged.append(r)
    merged += [n for n in new if n["case"] not in placed]
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows(merged)
    described = json.loads(json_path.read_text()) if json_path.exists() else {}
    described.update({run.run: asdict(run) for run in runs})
    used = {r["run"] for r in merged}
    described = {k: v for k, v in sorted(described.items()) if k in used}
    json_path.write_text(json.dumps(described, indent=1) + "\n")
    infos = [_run_info(v) for v in described.values()]
    try:
        sections = {device: section(device, merged, infos)}
        for name, names in (sweeps or {}).items():
            sections[f"{device} sweep {name}"] = sweep_section(device, name, names, merged, infos)
        if any(r["computation"] in CHAINS for r in merged):
            sections[f"{device} chains"] = chain_section(device, merged, infos)
    except Exception:  # noqa: BLE001 - the CSV and JSON hold the results; the run goes on
        log(f"RESULTS.md not updated (the CSV and JSON are):\n{traceback.format_exc()}")
        return
    for key, text in sections.items():
        write_section(out / "RESULTS.md", key, text)


def read(out: Path, device: str) -> tuple[list[RunInfo], list[dict[str, str]]]:
    """The runs and the CSV rows that the results folder `out` holds of `device`."""
    json_path = out / f"results_{device}.json"
    described = json.loads(json_path.read_text()) if json_path.exists() else {}
    return [_run_info(v) for v in described.values()], _read_csv(out / f"results_{device}.csv")


def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _run_info(d: dict) -> RunInfo:
    roofline = Roofline(**d["roofline"]) if d.get("roofline") else None
    return RunInfo(**{**d, "roofline": roofline})


def written_sweeps(path: Path, device: str) -> list[str]:
    """The sweeps whose sections RESULTS.md at `path` holds for `device`: a run rewrites
    them too, since the runs' numbers their rows show change as runs drop out."""
    text = path.read_text() if path.exists() else ""
    return re.findall(rf"<!-- begin {re.escape(device)} sweep (\S+) -->", text)


def write_section(path: Path, key: str, text: str) -> None:
    """Replace the section `key` (a device, or `DEVICE sweep NAME`) of RESULTS.md, or add it."""
    current = path.read_text() if path.exists() else PREAMBLE.format(title=TITLE)
    block = f"<!-- begin {key} -->\n{text}\n<!-- end {key} -->\n"
    pattern = re.compile(SECTION_RE.format(re.escape(key)), re.S)
    if pattern.search(current):
        current = pattern.sub(lambda _: block, current)
    elif key == "cpu" and "<!-- begin gpu -->" in current:
        current = current.replace("<!-- begin gpu -->", block + "\n<!-- begin gpu -->")
    else:
        current = current.rstrip("\n") + "\n\n" + block
    path.write_text(current)


# --- the device's section ---------------------------------------------------------------


def _median(row: dict[str, str] | None) -> float | None:
    return float(row["median_ms"]) if row and row["status"] == "ok" and row["median_ms"] else None


def _roofline_cell(row: dict[str, str] | None, roofline: Roofline | None) -> str:
    t = _median(row)
    if t is None or roofline is None or row is None:
        return ""
    seconds, nbytes, flops = t * 1e-3, int(row["bytes"]), int(row["flops"])
    share = roofline.fraction(seconds, nbytes, flops)
    if roofline.bound(nbytes, flops) == "memory":
        return f"{share:.0%} ({nbytes / seconds / 1e9:.4g} GB/s)"
    return f"{share:.0%} ({flops / seconds / 1e9:.4g} GFLOP/s)"


def _ratio(peer: float | None, ours: float | None) -> float | None:
    return peer / ours if peer and ours else None


def _ratio_text(ratio: float | None) -> str:
    """Two decimals; two significant digits below 0.1 (a tiny ratio never shows as 0.00)."""
    if ratio is None:
        return ""
    return f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.2g}"


def section(device: str, rows: list[dict[str, str]], runs: list[RunInfo]) -> str:
    """The Markdown section of one device: header, table, notes."""
    peers = columns(device)
    run_index = {r.run: i + 1 for i, r in enumerate(runs)}
    by_run = {r.run: r for r in runs}
    cases: dict[str, dict[str, dict[str, str]]] = {}
    for r in rows:
        cases.setdefault(r["case"], {})[r["variant"]] = r
    reasons = _common_reasons(cases, peers)
    shown = ["ours tuned", "ours default", *peers]

    lines = [f"## {device.upper()}: {runs[-1].device if runs else '?'}", ""]
    lines += [f"Run {run_index[r.run]}, {r.run}: {r.describe()}" for r in runs]
    lines.append("")
    head = ["computation", "sizes", "ours tuned (ms)", "ours default (ms)"]
    head += [f"{LABELS.get(p, p)} (ms)" for p in peers]
    head += ["default / tuned"] + [f"{LABELS.get(p, p)} / ours" for p in peers]
    head += ["roofline (ours tuned)", "tuning budget used", "run", "notes"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios: dict[int, list[float]] = {}
    for variants in cases.values():
        tuned, default = variants.get("ours tuned"), variants.get("ours default")
        any_row = next(iter(variants.values()))
        ours = _median(tuned)
        times = [_median(tuned), _median(default)] + [_median(variants.get(p)) for p in peers]
        cells = [any_row["computation"], any_row["sizes"]]
        cells += [_ms(t * 1e-3) if t is not None else "n/a" for t in times]
        row_ratios = [_ratio(_median(default), ours)] + [_ratio(_median(variants.get(p)), ours) for p in peers]
        for i, ratio in enumerate(row_ratios):
            if ratio is not None:
                ratios.setdefault(i, []).append(ratio)
        run = by_run.get(any_row["run"])
        notes = [
            f"{LABELS.get(v, v)}: {row['note']}" for v, row in variants.items()
            if v in shown and row["status"] != "ok" and (v, row["note"]) not in reasons
        ]  # fmt: skip
        cells += [_ratio_text(r) for r in row_ratios]
        cells += [
            _roofline_cell(tuned, run.roofline if run else None),
            _tuning_cell(variants, peers),
            str(run_index.get(any_row["run"], "?")),
            "; ".join(notes),
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    means = [_geomean(ratios.get(i, [])) for i in range(1 + len(peers))]
    cells = ["geometric mean", ""] + [""] * (2 + len(peers)) + means + [""] * 4
    lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "How each variant is measured:", ""] + [f"- {h}" for h in HOW[device]]
    if reasons:
        lines += ["", "Not available in any case:", ""]
        lines += [f"- {LABELS.get(v, v)}: {note}" for v, note in sorted(reasons)]
    lines += _details(cases)
    return "\n".join(lines)


def _tuning_cell(variants: dict[str, dict[str, str]], peers: list[str]) -> str:
    """Our tuning budget used, and the tuning each peer gave itself (autotuning, compiling)."""
    ours = variants.get("ours tuned", {}).get("tuning", "")
    given = [f"{LABELS.get(p, p)}: {variants[p]['tuning']}" for p in peers if variants.get(p, {}).get("tuning")]
    return "; ".join(([ours] if ours else []) + given)


SWEEP_LEFT_OUT = ("copy", "stream")
"""Columns that are rooflines, not peers: not in a sweep's table."""

BELOW = (0.5, 0.3)
"""A sweep counts the ratios below these."""


def sweep_section(device: str, name: str, names: list[str], rows: list[dict[str, str]], runs: list[RunInfo]) -> str:
    """The Markdown section of sweep `name` (its case `names`): per case, each peer's
    time over our default's and over our tuned time (`n/a` where the peer gave no time:
    its reasons listed below the table), then per column the geometric mean and the
    count of ratios below each of `BELOW`."""
    cases: dict[str, dict[str, dict[str, str]]] = {}
    for r in rows:
        if r["case"] in names:
            cases.setdefault(r["case"], {})[r["variant"]] = r
    main = MAIN[device]
    shown = [main] + [
        p for p in columns(device)
        if p != main and p not in SWEEP_LEFT_OUT and any(v.get(p, {}).get("status") == "ok" for v in cases.values())
    ]  # fmt: skip
    run_index = {r.run: i + 1 for i, r in enumerate(runs)}
    lines = [f"## {device.upper()} sweep `{name}`: {len(cases)} of {len(names)} cases measured", ""]
    lines.append(
        f"Ratios are peer time / ours: > 1 means we are faster; `/ default` against our default"
        f" configuration (no tuning), `/ tuned` against our tuned one. {LABELS.get(main, main)} is the"
        f" reference peer. Runs as numbered in the {device.upper()} section."
    )
    lines.append("")
    head = ["case", "sizes", f"{LABELS.get(main, main)} (ms)", "ours default (ms)", "ours tuned (ms)"]
    head += [f"{LABELS.get(p, p)} / {ours}" for p in shown for ours in ("default", "tuned")]
    head += ["tuning given", "run"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ratios: list[list[float]] = [[] for _ in range(2 * len(shown))]
    unavailable: dict[tuple[str, str], list[str]] = {}
    for case in names:
        variants = cases.get(case)
        if variants is None:
            lines.append(f"| {case} | not measured |" + " |" * (len(head) - 2))
            continue
        any_row = next(iter(variants.values()))
        ours = [_median(variants.get(v)) for v in ("ours default", "ours tuned")]
        row = [_ratio(_median(variants.get(p)), o) for p in shown for o in ours]
        for column, ratio in zip(ratios, row):
            if ratio is not None:
                column.append(ratio)
        times = [_median(variants.get(main)), *ours]
        cells = [case, any_row["sizes"], *(_ms(t * 1e-3) if t is not None else "n/a" for t in times)]
        cells += [
            "n/a" if o is not None and p in variants and variants[p]["status"] != "ok" else _ratio_text(r)
            for (p, o), r in zip(((p, o) for p in shown for o in ours), row)
        ]  # fmt: skip
        for p in shown:
            if p in variants and variants[p]["status"] != "ok":
                unavailable.setdefault((p, variants[p]["note"]), []).append(case)
        cells += [_tuning_cell(variants, shown), str(run_index.get(any_row["run"], "?"))]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    summary = [("geometric mean", _geomean)]
    summary += [(f"below {b}x", lambda vs, b=b: f"{sum(v < b for v in vs)} of {len(vs)}") for b in BELOW]
    for label, f in summary:
        lines.append("| " + " | ".join([label, "", "", "", ""] + [f(c) for c in ratios] + ["", ""]) + " |")
    if unavailable:
        lines += ["", "`n/a`: the peer was measured but gave no time, for the reason given (a blank cell: the peer was not run in that case's run):", ""]
        lines += [
            f"- {LABELS.get(p, p)} on {len(cs)} case{'s' * (len(cs) > 1)} ({_case_list(cs)}): {note}"
            for (p, note), cs in unavailable.items()
        ]  # fmt: skip
    return "\n".join(lines)


def _case_list(cases: list[str], shown: int = 3) -> str:
    """The first `shown` of `cases`, and how many more."""
    more = len(cases) - shown
    return ", ".join(cases[:shown]) + (f" and {more} more" if more > 0 else "")


CHAIN_TIMES = ("ours tuned", "ours default", "ours unfused", "single op tuned", "single op default")
CHAIN_LABELS = ("fused tuned", "fused default", "unfused", "single op tuned", "single op default")


def chain_section(device: str, rows: list[dict[str, str]], runs: list[RunInfo]) -> str:
    """The Markdown section of the chains (`mdh_bench.chains`): per case the times of
    the chain fused (tuned, default), unfused, of its single op (tuned, default) and of
    the peers, then fused over the single op (tuned over tuned where both are, else
    default over default), unfused over fused (defaults) and each peer over fused (tuned
    where it is, else default)."""
    cases: dict[str, dict[str, dict[str, str]]] = {}
    for r in rows:
        if r["computation"] in CHAINS:
            cases.setdefault(r["case"], {})[r["variant"]] = r
    peers = [p for p in columns(device) if p not in SWEEP_LEFT_OUT and any(v.get(p, {}).get("status") == "ok" for v in cases.values())]
    run_index = {r.run: i + 1 for i, r in enumerate(runs)}
    lines = [f"## {device.upper()} chains: {len(cases)} cases", ""]
    lines.append(
        "Times in ms. Fused: the chain after `mdh-fuse` (one op with an epilogue where it"
        " fuses; the unfused chain where it does not), unfused: the chain as written (one"
        " kernel or more per op), single op: the computation the chain adds to, alone at the"
        " chain's sizes. fused / single op > 1 means the chain costs more than its single op;"
        " unfused / fused and peer / fused > 1 mean the fused chain is faster."
        f" Runs as numbered in the {device.upper()} section."
    )
    lines.append("")
    head = ["case", "sizes", *(f"{label} (ms)" for label in CHAIN_LABELS), *(f"{LABELS.get(p, p)} (ms)" for p in peers)]
    head += ["fused / single op", "unfused / fused", *(f"{LABELS.get(p, p)} / fused" for p in peers), "tuning given", "run"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, variants in cases.items():
        any_row = next(iter(variants.values()))
        t = {v: _median(variants.get(v)) for v in (*CHAIN_TIMES, *peers)}
        both_tuned = t["ours tuned"] is not None and t["single op tuned"] is not None
        fused_vs_single = (
            _ratio(t["ours tuned"], t["single op tuned"]) if both_tuned else _ratio(t["ours default"], t["single op default"])
        )
        best_fused = t["ours tuned"] if t["ours tuned"] is not None else t["ours default"]
        cells = [case, any_row["sizes"], *(_ms(t[v] * 1e-3) if t[v] is not None else "n/a" for v in (*CHAIN_TIMES, *peers))]
        cells += [_ratio_text(fused_vs_single), _ratio_text(_ratio(t["ours unfused"], t["ours default"]))]
        cells += [_ratio_text(_ratio(t[p], best_fused)) for p in peers]
        cells += [_tuning_cell(variants, peers), str(run_index.get(any_row["run"], "?"))]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _common_reasons(cases: dict[str, dict[str, dict[str, str]]], peers: list[str]) -> set[tuple[str, str]]:
    """(variant, reason) pairs of variants unavailable with the same reason in every case."""
    common = set()
    for p in peers:
        notes = {v[p]["note"] for v in cases.values() if p in v and v[p]["status"] != "ok"}
        if len(notes) == 1 and all(p in v and v[p]["status"] != "ok" for v in cases.values()):
            common.add((p, notes.pop()))
    return common


def _geomean(values: list[float]) -> str:
    """The geometric mean of the positive finite `values`, saying how many others were left out."""
    kept = [v for v in values if math.isfinite(v) and v > 0]
    text = _ratio_text(math.exp(sum(map(math.log, kept)) / len(kept))) if kept else ""
    left = len(values) - len(kept)
    return f"{text or 'n/a'} ({left} not positive and finite, left out)" if left else text


def _details(cases: dict[str, dict[str, dict[str, str]]]) -> list[str]:
    """numpy formulations, CLBlast parameters and tuned configurations."""
    lines = []
    numpy = {v["numpy"]["computation"]: v["numpy"]["note"] for v in cases.values() if v.get("numpy", {}).get("status") == "ok"}
    if numpy:
        lines += ["", "numpy formulations:", ""] + [f"- {c}: `{n}`" for c, n in numpy.items()]
    clblast = {c: v["clblast"]["note"].split("; ", 1) for c, v in cases.items() if v.get("clblast", {}).get("status") == "ok"}
    if clblast:
        lines += ["", "CLBlast, how each case was timed:", ""] + [f"- {c}: {how}" for c, (how, _) in clblast.items()]
        lines += ["", "CLBlast parameters (as `clblast::RetrieveParameters` reports them):", ""]
        lines += [f"- {p}" for p in sorted({p for _, params in clblast.values() for p in params.split("; ")})]
    tuned = [(c, v["ours tuned"]["note"]) for c, v in cases.items() if v.get("ours tuned", {}).get("status") == "ok"]
    if tuned:
        lines += ["", "<details><summary>Tuned configurations</summary>", ""]
        lines += [f"- {c}: `{n.removeprefix('config ')}`" for c, n in tuned]
        lines += ["", "</details>"]
    return lines

