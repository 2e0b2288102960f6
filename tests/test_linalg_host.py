"""Converted linalg functions run whole on OpenCL against numpy: functions of tensors
(`mdh-bufferize`), results written into an argument, and functions of several ops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from mdh_ir.driver import compile_module
from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from tests.lowering_check import TEST_DEVICE

rng = np.random.default_rng(1)


def compiled(text: str):
    ctx = make_context()
    module = load_module(ctx, text, "linalg.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    return compile_module(module, TEST_DEVICE)


def arrays(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]


TENSOR_MATMUL = """
func.func @matmul(%A: tensor<16x8xf32>, %B: tensor<8x12xf32>) -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.0 : f32
  %C = linalg.fill ins(%z : f32) outs(%e : tensor<16x12xf32>) -> tensor<16x12xf32>
  %R = linalg.matmul ins(%A, %B : tensor<16x8xf32>, tensor<8x12xf32>)
                     outs(%C : tensor<16x12xf32>) -> tensor<16x12xf32>
  func.return %R : tensor<16x12xf32>
}
"""


def test_tensor_matmul():
    a, b = arrays((16, 8), (8, 12))
    (got,) = compiled(TENSOR_MATMUL)(a, b)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-6)


TENSOR_CONSTANTS = """
func.func @scale(%A: tensor<4x3xf32>, %B: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %k = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %half = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%half : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%A, %k : tensor<4x3xf32>, tensor<3xf32>) outs(%f : tensor<4x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.mulf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  %r2 = linalg.add ins(%r, %B : tensor<4x3xf32>, tensor<4x3xf32>)
                   outs(%B : tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r2 : tensor<4x3xf32>
}
"""


def test_tensor_constants_fill_and_outs_aliasing_an_argument():
    a, b = arrays((4, 3), (4, 3))
    program = compiled(TENSOR_CONSTANTS)
    (got,) = program(a, b)
    np.testing.assert_allclose(got, (a + [1.0, 2.0, 3.0]) * 1.5 + b, rtol=1e-6)
    assert len(program.kernel_names()) == 2


INPLACE_ADD = """
func.func @add(%a: memref<6x5xf32>, %b: memref<6x5xf32>, %c: memref<6x5xf32>) {
  linalg.add ins(%a, %b : memref<6x5xf32>, memref<6x5xf32>) outs(%c : memref<6x5xf32>)
  func.return
}
"""


def test_result_written_into_an_argument_is_the_output():
    a, b, c = arrays((6, 5), (6, 5), (6, 5))
    (got,) = compiled(INPLACE_ADD)(a, b, c)
    np.testing.assert_array_equal(got, a + b)


ACCUMULATE = """
func.func @acc(%b: memref<6x5xf32>, %c: memref<6x5xf32>) {
  linalg.add ins(%c, %b : memref<6x5xf32>, memref<6x5xf32>) outs(%c : memref<6x5xf32>)
  func.return
}
"""


def test_argument_read_and_written_starts_each_run_from_its_input():
    b, c = arrays((6, 5), (6, 5))
    outputs, times = compiled(ACCUMULATE).run([b, c], repeats=3)
    assert len(times) == 3
    np.testing.assert_array_equal(outputs[0], c + b)


CHAIN = """
func.func @chain(%a: memref<6x5xf32>, %b: memref<6x5xf32>) -> memref<6x5xf32> {
  %t = memref.alloc() : memref<6x5xf32>
  linalg.add ins(%a, %b : memref<6x5xf32>, memref<6x5xf32>) outs(%t : memref<6x5xf32>)
  %r = memref.alloc() : memref<6x5xf32>
  linalg.mul ins(%t, %a : memref<6x5xf32>, memref<6x5xf32>) outs(%r : memref<6x5xf32>)
  func.return %r : memref<6x5xf32>
}
"""


def test_two_op_chain_runs_as_two_kernels():
    a, b = arrays((6, 5), (6, 5))
    program = compiled(CHAIN)
    (got,) = program(a, b)
    np.testing.assert_array_equal(got, (a + b) * a)
    assert program.kernel_names() == ["chain_0", "chain_1"]


def mdh_run(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    ctx = make_context()
    module = load_module(ctx, text, "linalg.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    path = tmp_path / "converted.mlir"
    path.write_text(str(module))
    command = [sys.executable, "-m", "mdh_ir.tools.mdh_run", str(path), "--repeats", "3"]
    return subprocess.run([*command, "--device", TEST_DEVICE], capture_output=True, text=True)


CHAIN_INTO_ARGUMENT = """
func.func @chain(%a: memref<6x5xf32>, %b: memref<6x5xf32>, %o: memref<6x5xf32>) {
  %t = memref.alloc() : memref<6x5xf32>
  linalg.add ins(%a, %b : memref<6x5xf32>, memref<6x5xf32>) outs(%t : memref<6x5xf32>)
  linalg.mul ins(%t, %a : memref<6x5xf32>, memref<6x5xf32>) outs(%o : memref<6x5xf32>)
  func.return
}
"""


def test_mdh_run_checks_a_chain_written_into_an_argument(tmp_path):
    r = mdh_run(tmp_path, CHAIN_INTO_ARGUMENT)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[1:3]] == ['config "chain"', 'config "chain_1"']
    assert lines[3].startswith("check: ok")


def test_mdh_run_checks_a_tensor_function(tmp_path):
    r = mdh_run(tmp_path, TENSOR_MATMUL)
    assert r.returncode == 0, r.stderr
    assert "check: ok" in r.stdout


FILL_ARGUMENT = """
func.func @fill(%o: memref<4x6xf32>) {
  %v = arith.constant 2.5 : f32
  linalg.fill ins(%v : f32) outs(%o : memref<4x6xf32>)
  func.return
}
"""


def test_a_fill_of_an_argument_is_a_computation_of_its_own():
    (o,) = arrays((4, 6))
    (got,) = compiled(FILL_ARGUMENT)(o)
    np.testing.assert_array_equal(got, np.full((4, 6), 2.5, np.float32))
