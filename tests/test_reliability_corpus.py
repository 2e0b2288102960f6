"""The bad-input corpus (lit_tests/corpus/): every tool answers one diagnostic line.

Each file under `lit_tests/corpus/<category>/` is malformed or invalid. It states what the
tools answer in its first comment lines (or, when the file cannot hold a comment: empty,
not UTF-8 from its first byte, in `<file>.expect`):

    // EXPECT: 7:3: mdh.compute "mv": inp_view: ...    every tool, unless overridden
    // EXPECT-OPT: ok                                   plain `mdh-opt` accepts the file
    // EXPECT-LOWER: / EXPECT-RUN: / EXPECT-TUNE: ...   one tool's own answer

A diagnostic expectation is `LINE:COL: ` (or `*:*: ` for any location, or nothing where
there is no location) followed by the start of the message.

A file can give a tool more arguments (bad options), and come with a tuning database
(bad databases, `<file>.db`, used as `$MDH_TUNING_DB` and as mdh-tune's `--db`):

    // ARGS-RUN: --repeats 0                          appended to mdh-run's arguments
    // ARGS-OPT: -p lower-to-opencl,lower-to-opencl   (ARGS-LOWER, ARGS-TUNE: likewise)
    // EXPECT-TUNE: DB: not a tuning database ...     the diagnostic names the database
    // WARNING-RUN: DB: tuning database not used: ... a tool that succeeds warns once

A tool that fails must leave such a database as it was.

A file whose outcome depends on the device's limits says what it needs, and its messages
name the limit as a field of the device model (`mdh_ir.device.DeviceInfo`):

    // NEEDS: local_mem 1048576
    // EXPECT: 9:3: ...: 1048576 bytes > device limit {local_mem} ({model})

Each tool checks against its own model: `mdh-opt --lower-to-opencl` against the cpu preset,
`mdh-run` and `mdh-tune` against the device under test (its limits, lowered by
`$MDH_DEVICE_LIMITS`: the suite runs these files under a second, smaller model too). A
tool whose model has what the file needs accepts it; the others answer the message with
their model's limits. Four tools run on each file:
`mdh-opt F`, `mdh-opt --lower-to-opencl F -o OUT`, `mdh-run F` and `mdh-tune F` (budget 2
evaluations, a temporary `--db`, `-o OUT`). A failure must be exactly one line on stderr,
`F:LINE:COL: error: reason`, exit status 1, no Python traceback, no output file written
(mdh-opt's `-o` is not created, mdh-tune's keeps its old content) and no tuning database
created.

The whole corpus runs in-process (each tool's `main` with its arguments; an exception
that escaped the tool fails the test, which is what a traceback would be), and one file
per category also runs as real subprocesses of the installed commands. The split-input
error tests of lit_tests/mdh/ (checked for mdh-opt by lit) are reused by reference: every
chunk must give the same one line in the three other tool modes.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.runtime import device_info
from mdh_ir.tools import mdh_run, mdh_tune
from mdh_ir.tools.mdh_opt import MDHOptMain

ROOT = Path(__file__).parent.parent
CORPUS = ROOT / "lit_tests" / "corpus"
FILES = sorted(CORPUS.rglob("*.mlir"))
TOOLS = ("opt", "lower", "run", "tune")
SENTINEL = "// an older tuned file\n"


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str


def arguments(tool: str, path: Path, tmp: Path) -> list[str]:
    extra = re.search(rf"^// ARGS-{tool.upper()}: (.*)$", text_of(path), re.M)
    return _arguments(tool, path, tmp) + (extra.group(1).split() if extra else [])


def database_of(path: Path) -> Path | None:
    """The tuning database the file comes with, if any."""
    db = path.with_name(path.name + ".db")
    return db if db.exists() else None


def _arguments(tool: str, path: Path, tmp: Path) -> list[str]:
    return {
        "opt": [str(path)],
        "lower": ["--lower-to-opencl", str(path), "-o", str(tmp / "lowered.cl")],
        "run": [str(path), "--repeats", "1"],
        "tune": [
            str(path), "--budget", "2evals", "--repeats", "1", "--timeout", "30",
            "--db", str(tmp / "tuning.sqlite"), "-o", str(tmp / "tuned.mlir"),
        ],
    }[tool]  # fmt: skip


def in_process(tool: str, args: list[str]) -> Outcome:
    """Run a tool's main in this process; an exception escaping it is re-raised."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if tool in ("opt", "lower"):
                MDHOptMain(description="mdh-opt", args=args).run()
            elif tool == "run":
                mdh_run.main(args)
            else:
                mdh_tune.main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return Outcome(code, out.getvalue(), err.getvalue())


def subprocess_run(tool: str, args: list[str]) -> Outcome:
    module = {"opt": "mdh_opt", "lower": "mdh_opt", "run": "mdh_run", "tune": "mdh_tune"}[tool]
    r = subprocess.run(
        [sys.executable, "-m", f"mdh_ir.tools.{module}", *args],
        capture_output=True, text=True, errors="replace", timeout=300, cwd=ROOT,
    )  # fmt: skip
    return Outcome(r.returncode, r.stdout, r.stderr)


def models() -> dict[str, DeviceInfo]:
    """The device model each tool checks a configuration against (module docstring)."""
    device = device_info()
    return {"opt": PRESETS["cpu"], "lower": PRESETS["cpu"], "run": device, "tune": device}


def text_of(path: Path) -> str:
    sidecar = path.with_name(path.name + ".expect")
    return (sidecar if sidecar.exists() else path).read_bytes().decode("utf-8", "replace")


def needs(path: Path) -> dict[str, int]:
    """The device limits the file needs (its `// NEEDS:` line), by field name."""
    m = re.search(r"^// NEEDS: (.*)$", text_of(path), re.M)
    pairs = [part.split() for part in m.group(1).split(",")] if m else []
    return {name: int(value) for name, value in pairs}


def warnings_of(path: Path) -> dict[str, str]:
    """Per tool: the warning it must print once while succeeding."""
    found = re.findall(r"^// WARNING-(OPT|LOWER|RUN|TUNE): (.*)$", text_of(path), re.M)
    return {tool.lower(): message.strip() for tool, message in found}


def expectations(path: Path, models: dict[str, DeviceInfo]) -> dict[str, str]:
    """Per tool: "ok" or the expected diagnostic ("LINE:COL: message start")."""
    found: dict[str, str] = {}
    for line in text_of(path).splitlines():
        m = re.match(r"// EXPECT(?:-(OPT|LOWER|RUN|TUNE))?: (.*)$", line)
        if m:
            found[(m.group(1) or "all").lower()] = m.group(2).strip()
    assert "all" in found, f"{path}: no '// EXPECT:' line"
    expected = {}
    for tool in TOOLS:
        model = models[tool]
        fits = all(getattr(model, name) >= n for name, n in needs(path).items())
        expected[tool] = found.get(tool, "ok" if needs(path) and fits else found["all"])
        fields = {**model.__dict__, "model": model.model}
        expected[tool] = re.sub(r"\{(\w+)\}", lambda f: str(fields.get(f[1], f[0])), expected[tool])
    return expected


def one_line(label: str, line: str, path: Path, tmp: Path, expected: str, kind: str) -> None:
    """`line` is the diagnostic `expected` (module docstring) of kind error or warning."""
    if expected.startswith("DB: "):
        pattern = re.escape(str(tmp / "tuning.sqlite")) + f": {kind}: " + re.escape(expected[4:])
    else:
        m = re.fullmatch(r"(?:(\d+|\*):(\d+|\*): )?(.*)", expected)
        assert m is not None
        where = "" if m.group(1) is None else r":\d+:\d+" if m.group(1) == "*" else f":{m.group(1)}:{m.group(2)}"
        pattern = re.escape(str(path)) + where + f": {kind}: " + re.escape(m.group(3))
    assert re.match(pattern, line), f"{label}:\n  got      {line}\n  expected {pattern}"


def check(tool: str, path: Path, tmp: Path, outcome: Outcome, expected: str) -> None:
    label = f"{tool} on {path}"
    assert "Traceback" not in outcome.stderr + outcome.stdout, f"{label}:\n{outcome.stderr}"
    lines = outcome.stderr.splitlines()
    if expected == "ok":
        assert outcome.code == 0, f"{label}: expected success, got\n{outcome.stderr}"
        if (warning := warnings_of(path).get(tool)) is not None:
            assert len(lines) == 1, f"{label}: expected one warning line, got\n{outcome.stderr}"
            one_line(label, lines[0], path, tmp, warning, "warning")
        return
    assert outcome.code == 1, f"{label}: exit status {outcome.code}\n{outcome.stderr}"
    assert len(lines) == 1, f"{label}: expected one diagnostic line, got\n{outcome.stderr}"
    one_line(label, lines[0], path, tmp, expected, "error")
    if tool in ("opt", "lower"):
        assert outcome.stdout == "", f"{label}: printed output on failure"
    assert not (tmp / "lowered.cl").exists(), f"{label}: wrote the -o file on failure"
    assert (tmp / "tuned.mlir").read_text() == SENTINEL, f"{label}: wrote the -o file on failure"
    if (db := database_of(path)) is not None:
        assert (tmp / "tuning.sqlite").read_bytes() == db.read_bytes(), f"{label}: changed the database"
    else:
        assert not (tmp / "tuning.sqlite").exists(), f"{label}: created the tuning database"


def run_tools(path: Path, tmp: Path, runner, tools=TOOLS) -> None:
    expected = expectations(path, models())
    db = database_of(path)
    for tool in tools:
        (tmp / "lowered.cl").unlink(missing_ok=True)
        (tmp / "tuned.mlir").write_text(SENTINEL)
        with pytest.MonkeyPatch.context() as mp:
            if db is not None:
                shutil.copyfile(db, tmp / "tuning.sqlite")
                mp.setenv("MDH_TUNING_DB", str(tmp / "tuning.sqlite"))
            outcome = runner(tool, arguments(tool, path, tmp))
        check(tool, path, tmp, outcome, expected[tool])


def test_corpus_size_and_categories() -> None:
    categories = {p.parent.name for p in FILES}
    assert len(FILES) >= 180, f"only {len(FILES)} corpus files"
    assert {"syntax", "truncated", "encoding", "empty", "garbage", "dialect", "views",
            "functions", "types", "sizes", "config", "rules", "options", "database",
            "buffers", "internal", "defaults"} <= categories  # fmt: skip


def test_the_readme_counts_the_corpus() -> None:
    """README's reliability section states the corpus's files, categories and runs."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    m = re.search(r"(\d+) malformed, invalid or awkward files in (\d+) categories", readme)
    assert m is not None
    categories = {p.parent.name for p in FILES}
    assert (int(m[1]), int(m[2])) == (len(FILES), len(categories))
    assert f"({4 * len(FILES)} runs)" in readme


DEVICE_RULES = {
    "wg-combine": "tests/test_runtime.py::test_last_work_group_needs_fences_across_work_groups",
    "mma": "tests/test_mma.py::test_mma_rule",
}
"""Rules that the corpus's tools cannot break, and the test that does: the tools' devices
(PoCL, the cpu and gpu classes) all order memory across work-groups, and on PoCL, the
only device they run on, rule tensor-cores refuses an mma configuration before rule mma
could."""


def test_every_rule_has_a_corpus_file() -> None:
    """Each rule of mdh_ir/schedule/constraints.py's table is broken by some corpus file (those of
    `DEVICE_RULES` by their test instead)."""
    import mdh_ir.schedule.constraints

    rules = re.findall(r"^\| ([a-z-]+) \|", mdh_ir.schedule.constraints.__doc__ or "", re.M)
    assert len(rules) >= 12
    stated = " ".join(p.read_text(errors="replace") for p in FILES)
    missing = [r for r in rules if r not in ("rule", *DEVICE_RULES) and f"rule '{r}'" not in stated]
    assert not missing, f"no corpus file breaks rule(s) {missing}"


def with_device_marks(paths: list[Path]) -> list:
    """`paths`, those whose outcome depends on the device model marked `device_model`."""
    return [pytest.param(p, marks=[pytest.mark.device_model] if needs(p) else []) for p in paths]


@pytest.mark.parametrize("path", with_device_marks(FILES), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_file(path: Path, tmp_path: Path) -> None:
    run_tools(path, tmp_path, in_process)


def test_expectations_follow_the_device_model() -> None:
    """A file that needs 1 MiB of local memory is refused under a 512 KiB model, naming
    the model's limit, and accepted by the device tools of a model with 2 MiB."""
    path = CORPUS / "rules" / "local_memory.mlir"
    small = DeviceInfo("cpu", "small", 4096, (4096,) * 3, 512 * 1024, 2, 16384)
    large = DeviceInfo("cpu", "large", 4096, (4096,) * 3, 2 * 1024 * 1024, 2, 16384)
    for device, run in [(small, "1048576 bytes > device limit 524288 (small)"), (large, "ok")]:
        expected = expectations(path, {**models(), "run": device, "tune": device})
        assert expected["opt"] == "ok" and expected["tune"] == expected["run"]
        assert expected["lower"].endswith("1048576 bytes > device limit 524288 (preset cpu)")
        assert expected["run"] == run or expected["run"].endswith(run)


def first_of_each_category() -> list[Path]:
    return [min(p for p in FILES if p.parent == d) for d in sorted({p.parent for p in FILES})]


@pytest.mark.parametrize("path", first_of_each_category(), ids=lambda p: p.parent.name)
def test_corpus_sample_as_commands(path: Path, tmp_path: Path) -> None:
    run_tools(path, tmp_path, subprocess_run)


# --- the lit error tests, by reference ------------------------------------------------

LIT_ERROR_TESTS = sorted(
    p for p in (ROOT / "lit_tests" / "mdh").glob("*.mlir")
    if "RUN: not mdh-opt %s --split-input-file 2>&1" in p.read_text()
)  # fmt: skip


def lit_chunks() -> list[tuple[Path, int, str]]:
    chunks = []
    for path in LIT_ERROR_TESTS:
        offset = 0
        for i, chunk in enumerate(path.read_text().split("// -----")):
            chunks.append((path, i, "\n" * offset + chunk))
            offset += chunk.count("\n")
    return chunks


def test_lit_error_tests_are_found() -> None:
    assert len(LIT_ERROR_TESTS) >= 6 and len(lit_chunks()) >= 80


@pytest.mark.parametrize("path", LIT_ERROR_TESTS, ids=lambda p: p.name)
def test_lit_error_chunks_in_every_tool(path: Path, tmp_path: Path) -> None:
    """Each chunk (same line numbers as in its file) gives mdh-opt's diagnostic in every
    tool mode."""
    for _, i, text in (c for c in lit_chunks() if c[0] == path):
        source = tmp_path / f"chunk{i}.mlir"
        source.write_text(text)
        (tmp_path / "tuned.mlir").write_text(SENTINEL)
        reference = in_process("opt", arguments("opt", source, tmp_path))
        (line,) = reference.stderr.splitlines()
        m = re.fullmatch(r"(?::(\d+):(\d+))?: error: (.*)", line.removeprefix(str(source)))
        assert m is not None, line
        expected = f"{m[1]}:{m[2]}: {m[3]}" if m[1] else m[3]
        for tool in ("lower", "run", "tune"):
            (tmp_path / "lowered.cl").unlink(missing_ok=True)
            outcome = in_process(tool, arguments(tool, source, tmp_path))
            check(tool, source, tmp_path, outcome, expected)
