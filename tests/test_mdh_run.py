"""`mdh-run` as a user runs it: checks, timing, configuration override, one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mdh_ir.tools import checks
from mdh_ir.tools import mdh_run as tool

EXAMPLES = Path(__file__).parent.parent / "examples"


def mdh_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mdh_ir.tools.mdh_run", *args], capture_output=True, text=True
    )


def test_runs_checks_and_times_an_example() -> None:
    r = mdh_run(str(EXAMPLES / "matvec.mlir"), "--repeats", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("device: ")
    assert lines[1].startswith("config: #mdh.config<num_wg = ")
    assert lines[2].startswith("check: ok (max error ")
    assert lines[3].startswith("kernel time: median ") and lines[3].endswith("over 3 runs")


def test_config_option_overrides_the_file() -> None:
    r = mdh_run(
        str(EXAMPLES / "matvec.mlir"), "--repeats", "1",
        "--config", 'num_wg = [32, 2], num_wi = [4, 8], lt_size = [4, 32], pt_size = [1, 4]',
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "num_wg = [32, 2], num_wi = [4, 8], lt_size = [4, 32], pt_size = [1, 4]" in r.stdout


def test_broken_rule_is_one_located_line() -> None:
    r = mdh_run(str(EXAMPLES / "matvec.mlir"), "--config", "pt_size = [1, 99]")
    assert r.returncode == 1
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"{EXAMPLES / 'matvec.mlir'}:")
    assert "error: " in line and "rule 'tile-sizes'" in line


def test_malformed_config_option() -> None:
    r = mdh_run(str(EXAMPLES / "matvec.mlir"), "--config", "num_wg = [")
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert line.startswith("--config:1:") and "error:" in line


def test_unknown_device_and_missing_file() -> None:
    r = mdh_run(str(EXAMPLES / "matvec.mlir"), "--device", "nosuchdevice")
    assert r.returncode == 1 and "no OpenCL device matches 'nosuchdevice'" in r.stderr
    assert "Traceback" not in r.stderr
    r = mdh_run("does/not/exist.mlir")
    assert r.returncode == 1
    assert r.stderr.strip() == "does/not/exist.mlir: error: cannot read input: No such file or directory"


def test_config_integers_beyond_64_bits_are_refused_where_they_stand() -> None:
    """2^63 and more are no configuration integers (an i64 would wrap 2^64 - 1 to -1, and
    xDSL's range message named 2^64 as its bound); the column counts in the option."""
    for value in (2**64, 2**64 - 1, 2**63):
        r = mdh_run(str(EXAMPLES / "matvec.mlir"), "--config", f"num_wg = [{value}, 1]")
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.splitlines() == [
            f"--config:1:11: error: #mdh.config: integer {value} is out of range "
            "(configuration integers lie in [-2^63, 2^63))"
        ]


def test_an_endless_input_is_refused_after_a_bound() -> None:
    """`/dev/zero` was read forever; every tool stops after `MAX_INPUT_BYTES`."""
    for module in ("mdh_run", "mdh_tune", "mdh_opt"):
        r = subprocess.run(
            [sys.executable, "-m", f"mdh_ir.tools.{module}", "/dev/zero"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.splitlines() == ["/dev/zero: error: the input is larger than 64 MiB"]
    with open("/dev/zero", "rb") as zero:
        r = subprocess.run(
            [sys.executable, "-m", "mdh_ir.tools.mdh_opt"], stdin=zero, capture_output=True, text=True, timeout=120
        )  # fmt: skip
    assert r.stderr.splitlines() == ["stdin: error: the input is larger than 64 MiB"]


def test_allow_large_lifts_the_work_limit(monkeypatch, capsys) -> None:
    """Above `MAX_POINTS` points (here lowered to 4096, under matvec's 8192) a run needs
    `--allow-large`."""
    monkeypatch.setattr(checks, "MAX_POINTS", 4096)
    path = str(EXAMPLES / "matvec.mlir")
    with pytest.raises(SystemExit) as refused:
        tool.main([path, "--repeats", "1"])
    assert refused.value.code == 1
    assert capsys.readouterr().err.startswith(f"{path}:11:3: error: mdh.compute \"mdh_matvec\": 8192 points")
    with pytest.raises(SystemExit) as ran:
        tool.main([path, "--repeats", "1", "--allow-large"])
    assert ran.value.code == 0 and "check: ok" in capsys.readouterr().out
