"""Misuses of the Python API (`compile_module`, `Compiled`, `evaluate`, the MDH front
end): each raises one `MDHError` naming the argument, its expected shape and dtype."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mdh_ir.builder import Input, Output, cc, compute_module, i32
from mdh_ir.catalog import CATALOG
from mdh_ir.driver import compile_module
from mdh_ir.errors import MDHError
from mdh_ir.semantics.host import evaluate_host
from mdh_ir.semantics.reference import evaluate
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module

ROOT_EXAMPLES = Path(__file__).parent.parent / "examples"
MODULE = CATALOG["matvec"].build(i=8, k=4)
M, V = np.ones((8, 4), np.float32), np.ones(4, np.float32)
BOTH = "(input 0: shape (8, 4) and dtype float32; input 1: shape (4,) and dtype float32)"
FIRST = "input 0: expected an array of shape (8, 4) and dtype float32, got "


@pytest.fixture(scope="module")
def compiled():
    return compile_module(MODULE, "cpu")


def raises(message: str):
    return pytest.raises(MDHError, match="^" + re.escape(message))


CALLS = {
    "too few": ((M,), f"@matvec: 1 inputs for 2 input buffers {BOTH}"),
    "too many": ((M, V, V), f"@matvec: 3 inputs for 2 input buffers {BOTH}"),
    "None": ((None, V), f"@matvec: {FIRST}None"),
    "complex": ((M.astype(np.complex64), V), f"@matvec: {FIRST}dtype complex64 (the imaginary part would be lost)"),
    "strings": ((M.astype(str), V), f"@matvec: {FIRST}dtype <U32"),
    "objects": ((np.full((8, 4), object()), V), f"@matvec: {FIRST}dtype object"),
    "shape": ((M.T, V), f"@matvec: {FIRST}shape (4, 8)"),
    "ragged": (([[1.0], [1.0, 2.0]], V), f"@matvec: {FIRST}list"),
}


@pytest.mark.parametrize("inputs, message", CALLS.values(), ids=CALLS.keys())
def test_calling_a_compiled_module(compiled, inputs, message: str) -> None:
    with raises(message):
        compiled(*inputs)
    with raises(message):
        compiled.run(list(inputs))
    with raises(message.replace("@matvec", 'mdh.compute "matvec"')):
        evaluate(MODULE, list(inputs))


def test_floats_for_an_integer_input_are_refused() -> None:
    module = compute_module("copy", {"i": 4}, [Input("a", i32, "i")], [Output("b", i32, "i")], lambda a: a, [cc])
    with raises('mdh.compute "copy": input 0: expected an array of shape (4,) and dtype int32, got dtype float64 '
                "(floats would be truncated)"):  # fmt: skip
        evaluate(module, [np.full(4, 1.5)])
    (got,) = evaluate(module, [np.arange(4, dtype=np.int64)])
    assert got.dtype == np.int32 and list(got) == [0, 1, 2, 3]


def test_a_single_array_instead_of_a_list(compiled) -> None:
    with raises(f"@matvec: expected a list of 2 arrays {BOTH}, got ndarray"):
        compiled.run(M)
    with raises(f'mdh.compute "matvec": expected a list of 2 arrays {BOTH}, got ndarray'):
        evaluate(MODULE, M)


@pytest.mark.parametrize("repeats", [0, -3, 1.5, True])
def test_repeats_must_be_a_positive_number(compiled, repeats) -> None:
    """`run(x, repeats=0)` returned outputs no kernel had written."""
    with raises(f"@matvec: repeats: expected a positive number of runs, got {repeats!r}"):
        compiled.run([M, V], repeats=repeats)


def test_arguments_name_their_buffers_where_the_text_does() -> None:
    text = (ROOT_EXAMPLES / "matvec.mlir").read_text()
    module = load_module(make_context(), text, "matvec.mlir")
    with raises("@matvec: 1 inputs for 2 input buffers (input 0 (%M): shape (128, 64) and dtype float32; "):
        evaluate_host(module, [np.zeros((128, 64), np.float32)])


def test_compile_module_arguments() -> None:
    with raises("module: expected an xDSL ModuleOp (text is parsed first"):
        compile_module("func.func @f() { func.return }", "cpu")
    with raises("config: expected a mdh_ir.schedule.config.Config"):
        compile_module(MODULE, "cpu", {"num_wg": [1, 1]})
    with raises("config: expected a mdh_ir.schedule.config.Config"):
        compile_module(MODULE, "cpu", [{"num_wg": [1, 1]}])
    with raises("device: expected 'cpu', 'gpu', 'PLATFORM:DEVICE' or a pyopencl Device, got int"):
        compile_module(MODULE, 5)


def test_lists_and_other_real_dtypes_convert(compiled) -> None:
    (want,) = compiled(M, V)
    for inputs in [(M.tolist(), V.tolist()), (M.astype(np.int64), V.astype(np.float64)), (M.astype(bool), V)]:
        (got,) = compiled(*inputs)
        np.testing.assert_allclose(got, want)
    assert isinstance(MDHError("x"), ValueError)
