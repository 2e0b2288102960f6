"""Real linalg programs from public test suites (tests/data/linalg_programs/, each naming
its source) run end to end: `convert-linalg-to-mdh`, then the compile driver on the test
device, against numpy written from the original op's semantics. The programs that do not
run are refused with one located line naming the op and why."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ShapedType

from mdh_ir.driver import compile_module
from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import diagnose, load_module
from tests.lowering_check import TEST_DEVICE

PROGRAMS = Path(__file__).parent / "data" / "linalg_programs"

Arrays = list[np.ndarray]


def conv(x: np.ndarray, w: np.ndarray, spatial: str) -> np.ndarray:
    """A stride-1, dilation-1 convolution written as its sum over the window (`spatial`:
    "nhwc_hwcf", "nchw_fchw" or "hw")."""
    if spatial == "hw":
        return conv(x[None, :, :, None], w[:, :, None, None], "nhwc_hwcf")[0, :, :, 0]
    if spatial == "nchw_fchw":
        nhwc = conv(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), "nhwc_hwcf")
        return nhwc.transpose(0, 3, 1, 2)
    kh, kw = w.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,cf->nhwf", x[:, i : i + oh, j : j + ow, :], w[i, j])
    return out


def indices(shape: tuple[int, ...]) -> list[np.ndarray]:
    return list(np.indices(shape))


EXPECTED: dict[str, Callable[..., Arrays]] = {
    # llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/
    "tensor_matmul_1000": lambda a, b: [a @ b + 1000.0],
    "matmul_alloc_fill": lambda a, b: [a @ b],
    "conv_2d_nhwc_hwcf_call": lambda x, w, o: [o + conv(x, w, "nhwc_hwcf")],
    "reduce_2d_f32": lambda a: [a.sum(axis=1)],
    "generic_reduce_2d_f32": lambda a: [a.sum(axis=1)],
    "generic_reduce_2d_i32": lambda a: [a.sum(axis=1)],
    "elementwise_addf": lambda a, b: [a + b],
    # llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir
    "generalize_matmul_buffer": lambda a, b, c: [c + a @ b],
    "generalize_matmul_tensor": lambda a, b, c: [c + a @ b],
    # llvm/llvm-project mlir/test/Dialect/Linalg/named-ops.mlir
    "named_transpose": lambda x, init: [x.transpose(1, 2, 0)],
    "named_transpose_memref": lambda x, init: [x.transpose(1, 2, 0)],
    "named_broadcast_static_sizes": lambda x, init: [np.broadcast_to(x[:, None, :], init.shape)],
    # llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir
    "fusion_add_mul": lambda a, b, c: [(a + b) * c],
    "fusion_transpose_add_mul": lambda a, b, c: [(a + b.T) * c],
    "fusion_add_transpose_mul": lambda a, b, c: [(a + b.T).T * c],
    "fusion_add_broadcast_mul": lambda a, b, c: [(a + b)[:, None] * c],
    "fusion_add_mul_scalar": lambda a, b, c: [(a + b) * c],
    "fusion_generic_op_constant": lambda a: [42.0 * a],
    "fusion_generic_op_zero_dim_constant": lambda a: [42.0 * a],
    "fusion_producer_indexed_consumer": lambda a, b: [
        a + b + indices(a.shape)[0] - indices(a.shape)[1]
    ],
    "fusion_indexed_producer_consumer": lambda a: [
        a + indices(a.shape)[0] - indices(a.shape)[1] + a
    ],
    # iree-org/iree tests/e2e/linalg/
    "iree_add": lambda a, b: [a + b],
    "iree_conv2d_nchw": lambda x, w: [conv(x, w, "nchw_fchw")],
    "iree_index_iota": lambda: [indices((500, 750))[0] * 750 + indices((500, 750))[1]],
    "iree_index_strided": lambda: [
        (20 + 2 * indices((50, 75))[0]) * 750 + 30 + 3 * indices((50, 75))[1]
    ],
    # xdslproject/xdsl tests/filecheck/dialects/linalg/linalg_ops.mlir
    "xdsl_add_tensor": lambda a, b, c: [a + b],
    "xdsl_mul_tensor": lambda a, b, c: [a * b],
    "xdsl_max_tensor": lambda a, b, c: [np.maximum(a, b)],
    "xdsl_min_tensor": lambda a, b, c: [np.minimum(a, b)],
    "xdsl_add_memref": lambda a, b, c: [a + b],
    "xdsl_copy_memref": lambda a, c: [a],
    "xdsl_matmul_i32": lambda a, b, c: [c + a @ b],
    "xdsl_reduce_all_i32": lambda a, c: [c + a.sum()],
    "xdsl_reduce_rows_tensor": lambda a, c: [c + a.sum(axis=0)],
}
"""Per program that runs: its outputs (results, then the arguments it writes) from its
arguments."""

NOT_REGISTERED = "is not registered"
SCALAR = "cannot convert to mdh.compute: operand #{} is a scalar (f32) that is not a constant"

REFUSED: dict[str, str] = {
    # named ops xDSL 0.74 does not define: located parse errors
    "conv_1d_call": f"linalg.conv_1d {NOT_REGISTERED}",
    "conv_2d_call": f"linalg.conv_2d {NOT_REGISTERED}",
    "matvec_columns": f"linalg.matvec {NOT_REGISTERED}",
    "generalize_depthwise_conv_2d_nhwc_hwcm": f"depthwise_conv_2d_nhwc_hwcm {NOT_REGISTERED}",
    "generalize_batch_reduce_gemm": f"linalg.batch_reduce_matmul {NOT_REGISTERED}",
    "generalize_batch_matvec": f"linalg.batch_matvec {NOT_REGISTERED}",
    "generalize_conv_2d_ngchw_gfchw_q": f"linalg.conv_2d_ngchw_gfchw_q {NOT_REGISTERED}",
    # xDSL 0.74 parses no parenthesized result types `-> (tensor<f32>, tensor<i32>)` of a
    # generic: it stops at the next line
    "iree_argmax": "error: Expected '->'",
    # parsed, refused by the conversion
    "tile_reduction_subf": "linalg.generic: cannot convert to mdh.compute: output #0 is "
    "reduced by arith.subf, not by a single associative combine",
    "fusion_scalar_add_mul": "linalg.generic: " + SCALAR.format(1),
    "xdsl_generic_index_fill": "linalg.generic: " + SCALAR.format(0),
    "generalize_fill": "linalg.fill: " + SCALAR.format(0),
    "xdsl_select_tensor": "linalg.select: cannot convert to mdh.compute: operand #0 holds i1",
}
"""Per program that does not run: what its one located error line says."""


def test_every_program_names_its_source_and_is_expected_to_run_or_be_refused():
    names = {p.stem for p in PROGRAMS.glob("*.mlir")}
    assert names == set(EXPECTED) | set(REFUSED)
    assert not set(EXPECTED) & set(REFUSED)
    assert len(names) >= 30
    for p in PROGRAMS.glob("*.mlir"):
        assert p.read_text().startswith("// Source: "), p.name


def arguments(module, rng: np.random.Generator) -> Arrays:
    (function,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
    args = []
    for t in function.function_type.inputs.data:
        assert isinstance(t, ShapedType)
        shape = tuple(t.get_shape())
        if str(t.get_element_type()) == "i32":
            args.append(rng.integers(-8, 8, shape).astype(np.int32))
        else:
            args.append(rng.uniform(-1, 1, shape).astype(np.float32))
    return args


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_program_runs_against_numpy(name):
    ctx = make_context()
    module = load_module(ctx, (PROGRAMS / f"{name}.mlir").read_text(), f"{name}.mlir")
    args = arguments(module, np.random.default_rng(0))
    ConvertLinalgToMDH().apply(ctx, module)
    got = compile_module(module, TEST_DEVICE)(*[a.copy() for a in args])
    want = EXPECTED[name](*[a.astype(np.float64) if a.dtype == np.float32 else a for a in args])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if g.dtype == np.int32:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_program_is_refused_with_one_located_line(name):
    path = f"{name}.mlir"
    with pytest.raises(Exception) as caught:
        ctx = make_context()
        module = load_module(ctx, (PROGRAMS / path).read_text(), path)
        ConvertLinalgToMDH().apply(ctx, module)
        compile_module(module, TEST_DEVICE)
    line = str(diagnose(caught.value, path))
    assert "\n" not in line
    assert re.match(rf"{re.escape(path)}:\d+:\d+: error: ", line), line
    assert REFUSED[name] in line, line


def test_computations_of_one_function_have_unique_names():
    ctx = make_context()
    module = load_module(ctx, (PROGRAMS / "fusion_add_mul.mlir").read_text(), "f.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    names = [op.comp_name.data for op in module.walk() if hasattr(op, "comp_name")]
    assert names == ["add_mul_fusion", "add_mul_fusion_1"]
