"""C names of symbols (`mdh_ir.emit_opencl.c_names`): whatever a function or computation
is called, the OpenCL source names it by a valid, unique identifier, keeps the symbol
only in a comment it cannot end, and builds and runs (the runtime finds its kernels by
the same names)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mdh_ir.builder import Input, Output, cc, compute_module, f32, ps, pw
from mdh_ir.schedule.default_config import default_config
from mdh_ir.device import PRESETS
from mdh_ir.emit_opencl.c_names import ESCAPED, comment_text, function_name, kernel_name
from mdh_ir.driver import compile_module
from mdh_ir.semantics.reference import find_compute
from tests.lowering_check import TEST_DEVICE, check_outputs

INCLUDE = 'k\n#include "/etc/passwd"\n//'
"""A host function whose name, printed verbatim, made the OpenCL compiler read a file."""

SECOND_FUNCTION = "f(float a, float b) { return 0.0f; }\nstatic float g"
"""A name that, printed verbatim, defined a function of its own."""

SYMBOLS = [
    "matvec", "matvec_0", "two words", "a*b", "a_b", "a b", "a__b", "a_x20_b", INCLUDE,
    SECOND_FUNCTION, "exp", "int", "float4", "kernel", "v0", "v12", "r1", "mdh_mul",
    "MDH_DEVICE_FENCE", "__kernel", "_Bool", "_Upper", ESCAPED + "a", ESCAPED + "a_x20_b",
    "\u00e9t\u00e9", "\u0000", "", "0abc", "x*/y", "x\\", "??/",
]  # fmt: skip
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_every_symbol_gets_its_own_identifier() -> None:
    kernels = [kernel_name(s) for s in SYMBOLS]
    functions = [function_name(s) for s in SYMBOLS]
    assert all(C_IDENTIFIER.fullmatch(n) for n in kernels + functions)
    assert len(set(kernels)) == len(set(functions)) == len(SYMBOLS)
    assert not {n for n in kernels if n.startswith("mdh_")}
    for name in ["exp", "int", "float4", "kernel", "v0", "r1", "mdh_mul", "__kernel", "_Upper"]:
        assert kernel_name(name).startswith(ESCAPED)


def test_plain_identifiers_keep_their_names() -> None:
    for name in ["matvec", "matvec_0", "matvec_0_combine", "a_b", "a__b", "a_x20_b", "x9"]:
        assert kernel_name(name) == name
        assert function_name(name) == f"mdh_{name}"
    assert function_name("exp") == "mdh_exp"


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_a_symbol_cannot_end_its_comment(symbol: str) -> None:
    text = comment_text(symbol)
    assert not any(c in text for c in "\n\r\u2028\u2029") and "*/" not in text
    assert not text.endswith("\\") and "??/" not in text


def outside_comments(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))


def row_sums(name: str):
    """Row sums combined by a function (a second scalar function in the source)."""
    return compute_module(
        name, {"i": 4, "k": 5000}, [Input("M", f32, "i, k")], [Output("w", f32, "i")],
        scalar=lambda m: m * 2.0, combine=[cc, pw(lambda a, b: a + b)],
    )  # fmt: skip


def prefix_sums(name: str):
    return compute_module(
        name, {"i": 5000}, [Input("x", f32, "i")], [Output("y", f32, "i")],
        scalar=lambda x: x, combine=[ps("add")],
    )  # fmt: skip


@pytest.mark.parametrize("name", [INCLUDE, SECOND_FUNCTION, "two words", "a*b", "exp"])
@pytest.mark.parametrize(
    "build, wg_combine, kernels",
    [(row_sums, "kernel", ["_0", "_0_combine"]), (row_sums, "last", ["_0"]),
     (prefix_sums, "kernel", ["_0_scan0_reduce", "_0_scan0_carries", "_0_scan0"])],
)  # fmt: skip
def test_any_name_builds_and_runs(name, build, wg_combine, kernels) -> None:
    """Its kernels (a combine kernel, a last-group counter, a scan) and functions too."""
    module = build(name)
    cfg = default_config(find_compute(module), PRESETS["gpu"]).with_(wg_combine=wg_combine)
    program = compile_module(module, TEST_DEVICE, cfg)
    assert program.kernel_names() == [name + k for k in kernels]
    code = outside_comments(program.source)
    assert "#include" not in code and "return 0.0f" not in code and "two words" not in code
    inputs = [np.random.default_rng(3).uniform(-1, 1, t.get_shape()).astype(np.float32)
              for t in module.ops.last.function_type.inputs.data]  # fmt: skip
    check_outputs(module, inputs, program(*inputs))
