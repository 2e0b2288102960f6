"""`mdh-opt` as a user runs it: input from a file or stdin, `-o`, exit status, and one
line `file:line:col: error: reason` (never a traceback) for every error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

MDH_OPT = Path(sys.executable).with_name("mdh-opt")
LIT_MDH = Path(__file__).parent.parent / "lit_tests" / "mdh"

DOT = """\
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @dot(%x: memref<8xf32>, %y: memref<8xf32>) -> memref<f32> {
  %r = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (K_VIEW)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", "add"]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32]}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<f32>
  func.return %r : memref<f32>
}
"""
VALID = DOT.replace("K_VIEW", "k")
INVALID = DOT.replace("K_VIEW", "k + 1")
INVALID_ERROR = (
    ':6:3: error: mdh.compute "dot": inp_view: buffer 1: map (d0) -> ((d0 + 1)) reads '
    "index 8 of axis 0 (size 8); set a boundary mode to allow it\n"
)


def mdh_opt(*args: str | Path, stdin: str | bytes = b"") -> subprocess.CompletedProcess[str]:
    """Run mdh-opt; stdin may hold any bytes, stdout and stderr come back as text."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    result = subprocess.run([MDH_OPT, *map(str, args)], input=data, capture_output=True)
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


@pytest.fixture
def valid_file(tmp_path: Path) -> Path:
    path = tmp_path / "dot.mlir"
    path.write_text(VALID)
    return path


def assert_fails(result: subprocess.CompletedProcess[str], prefix: str) -> None:
    """Exit status 1, nothing on stdout, one line on stderr starting with `prefix`."""
    assert "Traceback" not in result.stderr
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(prefix), result.stderr


def test_valid_file_prints_the_module(valid_file):
    result = mdh_opt(valid_file)
    assert (result.returncode, result.stderr) == (0, "")
    assert 'mdh.compute "dot" {inp_view = ' in result.stdout


def test_reads_stdin(valid_file):
    result = mdh_opt(stdin=VALID)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == mdh_opt(valid_file).stdout


def test_stdin_diagnostic_is_named_stdin():
    assert mdh_opt(stdin=INVALID).stderr == "stdin" + INVALID_ERROR


def test_invalid_file_gives_one_diagnostic_at_the_op(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(INVALID)
    result = mdh_opt(path)
    assert_fails(result, str(path))
    assert result.stderr == f"{path}{INVALID_ERROR}"


def test_output_file(tmp_path, valid_file):
    out = tmp_path / "out.mlir"
    result = mdh_opt(valid_file, "-o", out)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert out.read_text() == mdh_opt(valid_file).stdout


def test_invalid_input_creates_no_output_file(tmp_path):
    out = tmp_path / "out.mlir"
    assert_fails(mdh_opt("-o", out, stdin=INVALID), "stdin:6:3: error:")
    assert not out.exists()


def test_invalid_input_leaves_an_output_file_unchanged(tmp_path):
    out = tmp_path / "out.mlir"
    out.write_text("previous contents\n")
    assert_fails(mdh_opt("-o", out, stdin=INVALID), "stdin:6:3: error:")
    assert out.read_text() == "previous contents\n"


def test_print_op_generic_parses_back_to_the_custom_form():
    generic = mdh_opt("--print-op-generic", stdin=VALID)
    assert generic.returncode == 0
    assert '= "mdh.compute"(%x, %y) <{comp_name = "dot", inp_view = ' in generic.stdout
    assert "mda_size = [8 : i64]" in generic.stdout
    assert mdh_opt(stdin=generic.stdout).stdout == mdh_opt(stdin=VALID).stdout


def test_split_input_file_keeps_the_chunks():
    result = mdh_opt("--split-input-file", stdin=VALID + "// -----\n" + VALID)
    assert result.returncode == 0
    first, second = result.stdout.split("// -----\n")
    assert first == second == mdh_opt(stdin=VALID).stdout


def test_split_input_file_reports_the_invalid_chunk_only():
    result = mdh_opt("--split-input-file", stdin=VALID + "// -----\n" + INVALID)
    separator_line = VALID.count("\n") + 1
    assert_fails(result, f'stdin:{separator_line + 6}:3: error: mdh.compute "dot": inp_view:')


SPLIT_ERROR_TESTS = sorted(
    p for p in LIT_MDH.glob("*.mlir") if "not mdh-opt %s --split-input-file" in p.read_text()
)


def test_the_lit_error_tests_are_found():
    assert len(SPLIT_ERROR_TESTS) >= 6


@pytest.mark.parametrize("path", SPLIT_ERROR_TESTS, ids=lambda p: p.name)
def test_every_chunk_of_the_lit_error_tests_fails(path):
    result = mdh_opt(path, "--split-input-file")
    chunks = path.read_text().count("// -----") + 1
    assert (result.returncode, result.stdout) == (1, "")
    diagnostics = result.stderr.splitlines()
    assert len(diagnostics) == chunks
    for line in diagnostics:
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error: \S", line), line


def test_missing_input_file(tmp_path):
    missing = tmp_path / "missing.mlir"
    result = mdh_opt(missing)
    assert_fails(result, f"{missing}: error: cannot read input: No such file or directory")


@pytest.mark.parametrize(
    "stdin, prefix",
    [
        ("", "stdin:1:1: error: the input holds no operation"),
        ("// only a comment\n", "stdin:1:1: error: the input holds no operation"),
        (b"func.func @f() {\n  \xff\n}\n", "stdin:2:3: error: input is not valid UTF-8"),
        ("garbage\n", "stdin:1:1: error: Operation garbage is not registered"),
        ("func.func @f() {\n  %x = mdh.compute\n", "stdin:3:1: error: string literal expected"),
        ('"mdh.compute"() : () -> ()\n', "stdin:1:1: error: property 'comp_name' expected"),
        (
            "func.func @f() {\n  cf.br ^0\n^0:\n  func.return\n}\n",
            "stdin:3:1: error: Invalid Block name format `0`. Make sure names contain",
        ),
    ],
)
def test_input_errors(stdin, prefix):
    assert_fails(mdh_opt(stdin=stdin), prefix)


@pytest.mark.parametrize(
    "args, prefix",
    [
        (["-p", "no-such-pass"], "mdh-opt: error: -p: Unrecognized passes: ['no-such-pass']"),
        (["-p", "canonicalize{"], "mdh-opt: error: -p: Error parsing pass pipeline"),
        (["-o", "/nonexistent/dir/out.mlir"], "/nonexistent/dir/out.mlir: error: cannot write"),
    ],
)
def test_command_line_errors(args, prefix):
    assert_fails(mdh_opt(*args, stdin=VALID), prefix)
