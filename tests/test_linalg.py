"""`convert-linalg-to-mdh`: linalg programs converted to `mdh.compute`, run on OpenCL
against numpy, tensor programs checked with the reference semantics, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import bufferization, memref
from xdsl.dialects.linalg.ops import CopyOp, FillOp, GenericOp, MatmulOp
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError
from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
from mdh_ir.semantics.reference import evaluate, find_compute
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from tests.lowering_check import TEST_DEVICE

rng = np.random.default_rng(0)


def convert(text: str) -> ModuleOp:
    ctx = make_context()
    module = load_module(ctx, text, "linalg.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    module.verify()
    return module


def generic(maps: str, iterators: str, ins: str, outs: str, body: str, result: str = "") -> str:
    """A `linalg.generic` with the body's block arguments %a, %b, ... and %acc."""
    return f"""linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}
        ins({ins}) outs({outs}) {{
      ^bb0({body.split("|")[0]}):
        {body.split("|")[1]}
      }}{result}"""


def program(name: str, args: str, out: str, fill: str, op: str) -> str:
    """A function allocating memref `out`, filling it with `fill`, running `op`, returning it."""
    return f"""func.func @{name}({args}) -> {out} {{
      %C = memref.alloc() : {out}
      %init = arith.constant {fill} : f32
      linalg.fill ins(%init : f32) outs(%C : {out})
      {op}
      func.return %C : {out}
    }}"""


MATVEC = program(
    "matvec", "%M: memref<37x23xf32>, %v: memref<23xf32>", "memref<37xf32>", "0.0",
    generic(
        "affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>",
        '"parallel", "reduction"', "%M, %v : memref<37x23xf32>, memref<23xf32>",
        "%C : memref<37xf32>",
        "%m: f32, %x: f32, %acc: f32|%p = arith.mulf %m, %x : f32\n"
        "%s = arith.addf %acc, %p : f32\nlinalg.yield %s : f32",
    ),
)  # fmt: skip

MATMUL = program(
    "matmul", "%A: memref<10x16xf32>, %B: memref<16x20xf32>", "memref<10x20xf32>", "0.0",
    "linalg.matmul ins(%A, %B : memref<10x16xf32>, memref<16x20xf32>) "
    "outs(%C : memref<10x20xf32>)",
)  # fmt: skip

CONV2D = program(
    "conv2d", "%X: memref<11x12xf32>, %W: memref<3x4xf32>", "memref<9x9xf32>", "0.0",
    generic(
        "affine_map<(h, w, r, s) -> (h + r, w + s)>, affine_map<(h, w, r, s) -> (r, s)>, "
        "affine_map<(h, w, r, s) -> (h, w)>",
        '"parallel", "parallel", "reduction", "reduction"',
        "%X, %W : memref<11x12xf32>, memref<3x4xf32>", "%C : memref<9x9xf32>",
        "%x: f32, %w: f32, %acc: f32|%p = arith.mulf %x, %w : f32\n"
        "%s = arith.addf %p, %acc : f32\nlinalg.yield %s : f32",
    ),
)  # fmt: skip

MAX_REDUCTION = program(
    "colmax", "%X: memref<7x5xf32>", "memref<5xf32>", "0xFF800000",
    generic(
        "affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>", '"reduction", "parallel"',
        "%X : memref<7x5xf32>", "%C : memref<5xf32>",
        "%x: f32, %acc: f32|%m = arith.maximumf %acc, %x : f32\nlinalg.yield %m : f32",
    ),
)  # fmt: skip


def conv2d(x, w):
    h, ww = x.shape[0] - w.shape[0] + 1, x.shape[1] - w.shape[1] + 1
    return sum(
        w[r, s] * x[r : r + h, s : s + ww] for r in range(w.shape[0]) for s in range(w.shape[1])
    )


RUNS = {
    "matvec": (MATVEC, [(37, 23), (23,)], lambda m, v: m @ v),
    "matmul": (MATMUL, [(10, 16), (16, 20)], lambda a, b: a @ b),
    "conv2d": (CONV2D, [(11, 12), (3, 4)], conv2d),
    "max": (MAX_REDUCTION, [(7, 5)], lambda x: x.max(axis=0)),
}


@pytest.mark.parametrize("name", RUNS)
def test_converted_program_runs(name):
    """The host function becomes `mdh.compute` + return: the shape the runtime runs."""
    from mdh_ir.driver import compile_module

    text, shapes, numpy = RUNS[name]
    module = convert(text)
    host = find_compute(module).parent_block()
    assert [o.name for o in host.ops] == ["arith.constant", "mdh.compute", "func.return"]
    inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    (got,) = compile_module(module, TEST_DEVICE)(*inputs)
    np.testing.assert_allclose(got, numpy(*inputs), rtol=1e-5, atol=1e-5)


def test_views_and_combine_operators():
    op = find_compute(convert(CONV2D))
    assert [str(c) for c in op.combines] == ["cc", "cc", "pw(add)", "pw(add)"]
    assert [str(m) for maps in op.input_maps for m in maps] == [
        "(d0, d1, d2, d3) -> ((d0 + d2), (d1 + d3))", "(d0, d1, d2, d3) -> (d2, d3)"
    ]  # fmt: skip
    assert op.sizes == (9, 9, 3, 4)


TENSOR_MATMUL = """
func.func @matmul(%A: tensor<4x6xf32>, %B: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x5xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %r = linalg.matmul ins(%A, %B : tensor<4x6xf32>, tensor<6x5xf32>)
                     outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
  func.return %r : tensor<4x5xf32>
}"""


def test_tensors_pass_through_bufferization():
    module = convert(TENSOR_MATMUL)
    kinds = {type(o) for o in module.walk()}
    assert {bufferization.ToBufferOp, bufferization.ToTensorOp, ComputeOp} <= kinds
    assert not kinds & {MatmulOp, FillOp}
    a, b = (rng.uniform(-1, 1, s).astype(np.float32) for s in [(4, 6), (6, 5)])
    (got,) = evaluate(module, [a, b])
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-6, atol=1e-7)


INDEXED_IN_PLACE = """
func.func @shift(%X: memref<3x4xf32>, %C: memref<4x3xf32>) {
  %two = arith.constant 2.0 : f32
  """ + generic(
    "affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>", '"parallel", "parallel"',
    "%X : memref<3x4xf32>", "%C : memref<4x3xf32>",
    "%x: f32, %c: f32|%i = linalg.index 0 : index\n%n = arith.index_cast %i : index to i32\n"
    "%f = arith.sitofp %n : i32 to f32\n%m = arith.mulf %x, %two : f32\n"
    "%s = arith.addf %m, %c : f32\n%t = arith.addf %s, %f : f32\nlinalg.yield %t : f32",
) + """
  func.return
}"""  # fmt: skip


def test_parallel_op_reading_its_output_and_indices():
    """C[i, j] = 2 X[j, i] + C[i, j] + i: C is also an input, i an index argument, the
    outside constant is cloned, and the result is copied into the argument C."""
    module = convert(INDEXED_IN_PLACE)
    op = find_compute(module)
    assert len(op.inputs) == 2 and any(isinstance(o, memref.CopyOp) for o in module.walk())
    x, c = (rng.uniform(-1, 1, s).astype(np.float32) for s in [(3, 4), (4, 3)])
    (got,) = evaluate(module, [x, c])
    np.testing.assert_allclose(got, 2.0 * x.T + c + np.arange(4)[:, None], rtol=1e-6, atol=1e-7)


def reduction(body: str, fill: str = "0.0", out_fill: bool = True) -> str:
    """A reduction of memref<7xf32> into memref<f32> %C with `body` (%x, %acc)."""
    op = generic(
        "affine_map<(i) -> (i)>, affine_map<(i) -> ()>", '"reduction"', "%X : memref<7xf32>",
        "%C : memref<f32>", f"%x: f32, %acc: f32|{body}",
    )
    fill_op = f"linalg.fill ins(%init : f32) outs(%C : memref<f32>)" if out_fill else ""
    return f"""func.func @r(%X: memref<7xf32>, %C: memref<f32>) {{
      %init = arith.constant {fill} : f32
      %two = arith.constant 2.0 : f32
      {fill_op}
      {op}
      func.return
    }}"""


REFUSED = {
    "not-one-combine": (
        reduction("%m = arith.mulf %acc, %two : f32\n%s = arith.addf %m, %x : f32\n"
                  "linalg.yield %s : f32"),
        "output #0 is not updated as arith.addf(out, f(inputs)): not a single associative",
    ),
    "not-associative": (
        reduction("%s = arith.subf %acc, %x : f32\nlinalg.yield %s : f32"),
        "output #0 is reduced by arith.subf, not by a single associative combine",
    ),
    "dynamic-shape": (
        """func.func @d(%X: memref<?xf32>, %C: memref<?xf32>) {
          linalg.copy ins(%X : memref<?xf32>) outs(%C : memref<?xf32>)
          func.return
        }""",
        "linalg.copy: cannot convert to mdh.compute: operand #0 has a dynamic shape",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", REFUSED)
def test_refused_with_one_line(name):
    text, message = REFUSED[name]
    with pytest.raises(MDHError) as info:
        convert(text)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value.op, GenericOp | CopyOp)


# linalg.reduce after MLIR's mlir/test/Dialect/Linalg/roundtrip.mlir (@reduce: a sum over
# dimension 1 of a 16x32x64 tensor), on memrefs filled with 0, and a max over dimension 0.
REDUCE_SUM = """
func.func @reduce(%input: memref<16x32x64xf32>) -> memref<16x64xf32> {
  %init = memref.alloc() : memref<16x64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%init : memref<16x64xf32>)
  linalg.reduce ins(%input : memref<16x32x64xf32>) outs(%init : memref<16x64xf32>)
      dimensions = [1]
      (%in: f32, %out: f32) {
        %0 = arith.addf %out, %in : f32
        linalg.yield %0 : f32
      }
  func.return %init : memref<16x64xf32>
}"""

REDUCE_MAX = """
func.func @reduce_max(%input: memref<9x7xf32>) -> memref<7xf32> {
  %init = memref.alloc() : memref<7xf32>
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%init : memref<7xf32>)
  linalg.reduce ins(%input : memref<9x7xf32>) outs(%init : memref<7xf32>) dimensions = [0]
      (%in: f32, %out: f32) {
        %0 = arith.maximumf %in, %out : f32
        linalg.yield %0 : f32
      }
  func.return %init : memref<7xf32>
}"""

RUNS.update({
    "reduce-sum": (REDUCE_SUM, [(16, 32, 64)], lambda x: x.sum(axis=1)),
    "reduce-max": (REDUCE_MAX, [(9, 7)], lambda x: x.max(axis=0)),
})  # fmt: skip


def test_reduce_is_a_pw_combine():
    op = find_compute(convert(REDUCE_SUM))
    assert [str(c) for c in op.combines] == ["cc", "pw(add)", "cc"]
    assert [str(m) for m in op.output_maps] == ["(d0, d1, d2) -> (d0, d2)"]


BROADCAST = """
func.func @broadcast(%X: memref<5x3xf32>) -> memref<5x4x3xf32> {
  %C = memref.alloc() : memref<5x4x3xf32>
  linalg.broadcast ins(%X : memref<5x3xf32>) outs(%C : memref<5x4x3xf32>) dimensions = [1]
  func.return %C : memref<5x4x3xf32>
}"""


def test_broadcast_reads_the_input_along_the_kept_dimensions():
    module = convert(BROADCAST)
    x = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    (got,) = evaluate(module, [x])
    np.testing.assert_array_equal(got, np.broadcast_to(x[:, None, :], (5, 4, 3)))


def test_a_linalg_op_without_a_rule_is_refused_by_name():
    """No linalg op is left behind silently (an op xDSL may add later; built here from
    `linalg.index`, which the parser only accepts inside a generic)."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import IndexType
    from xdsl.dialects.linalg.ops import IndexOp

    index = IndexOp(0)
    f = func.FuncOp("f", ((), (IndexType(),)))
    f.body.block.add_ops([index, func.ReturnOp(index.result)])
    with pytest.raises(MDHError, match="^linalg.index: cannot convert to mdh.compute: the pass has no rule for it$"):
        ConvertLinalgToMDH().apply(make_context(), ModuleOp([f]))


# Accumulation into an existing output: out = start ⊕ reduce(...), the start folded into
# the first point of the reduction dimensions (no pass over the output of its own).

# MLIR's mlir/test/Integration/Dialect/Linalg/CPU/test-tensor-matmul.mlir accumulates into
# a 1000.0-filled output; on memrefs here, so that it runs as a host function.
MATMUL_FROM_1000 = program(
    "matmul", "%A: memref<8x16xf32>, %B: memref<16x32xf32>", "memref<8x32xf32>", "1000.0",
    "linalg.matmul ins(%A, %B : memref<8x16xf32>, memref<16x32xf32>) "
    "outs(%C : memref<8x32xf32>)",
)  # fmt: skip

RUNS["matmul-from-1000"] = (MATMUL_FROM_1000, [(8, 16), (16, 32)], lambda a, b: 1000.0 + a @ b)

# C += A B on memref arguments: linalg.matmul as MLIR's mlir/test/Dialect/Linalg/named-ops.mlir
# writes it (@matmul on memrefs), static shapes.
GEMM = """
func.func @gemm(%A: memref<12x7xf32>, %B: memref<7x9xf32>, %C: memref<12x9xf32>) {
  linalg.matmul ins(%A, %B : memref<12x7xf32>, memref<7x9xf32>) outs(%C : memref<12x9xf32>)
  func.return
}"""

# linalg.reduce into an argument: MLIR's mlir/test/Dialect/Linalg/roundtrip.mlir @reduce as
# it is (the init is the function's argument), on memrefs.
REDUCE_INTO = """
func.func @reduce(%input: memref<16x32x64xf32>, %init: memref<16x64xf32>) {
  linalg.reduce ins(%input : memref<16x32x64xf32>) outs(%init : memref<16x64xf32>)
      dimensions = [1]
      (%in: f32, %out: f32) {
        %0 = arith.addf %out, %in : f32
        linalg.yield %0 : f32
      }
  func.return
}"""

ACCUMULATE = {
    "gemm": (GEMM, [(12, 7), (7, 9), (12, 9)], lambda a, b, c: c + a @ b),
    "reduce": (REDUCE_INTO, [(16, 32, 64), (16, 64)], lambda x, c: c + x.sum(axis=1)),
    "sum-from-1": (
        reduction("%s = arith.addf %acc, %x : f32\nlinalg.yield %s : f32", fill="1.0"),
        [(7,), ()], lambda x, c: 1.0 + x.sum(),
    ),
    "max-into-argument": (
        reduction("%s = arith.maximumf %x, %acc : f32\nlinalg.yield %s : f32", out_fill=False),
        [(7,), ()], lambda x, c: np.maximum(c, x.max()),
    ),
}  # fmt: skip


def kernel_only(module: ModuleOp) -> ModuleOp:
    """The host function of `module` returning its `mdh.compute`'s result instead of copying
    it into the argument (the copy is the host level's to run)."""
    from xdsl.dialects import func

    op = find_compute(module)
    host = op.parent_op()
    assert isinstance(host, func.FuncOp)
    for o in list(host.body.block.ops):
        if isinstance(o, memref.CopyOp | func.ReturnOp):
            host.body.block.erase_op(o)
    host.body.block.add_op(func.ReturnOp(*op.results))
    host.function_type = func.FunctionType.from_lists(
        host.function_type.inputs.data, [r.type for r in op.results]
    )
    return module


@pytest.mark.parametrize("name", ACCUMULATE)
def test_accumulation_runs(name):
    """The old contents of the output, or the constant it was filled with, combined into
    the reduction: checked with the reference semantics and run on OpenCL."""
    from mdh_ir.driver import compile_module

    text, shapes, numpy = ACCUMULATE[name]
    module = convert(text)
    inputs = [np.asarray(rng.uniform(-1, 1, s), np.float32) for s in shapes]
    want = numpy(*inputs)
    (reference,) = evaluate(module, [inputs[i] for i in _compute_inputs(module, len(inputs))])
    np.testing.assert_allclose(reference, want, rtol=1e-5, atol=1e-5)
    (got,) = compile_module(kernel_only(module), TEST_DEVICE)(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _compute_inputs(module: ModuleOp, n: int) -> list[int]:
    """Which of the host function's `n` arguments the `mdh.compute` reads, in its order."""
    op = find_compute(module)
    args = list(op.parent_block().args)
    return [args.index(v) for v in op.inputs]


def test_accumulation_folds_the_start_into_the_first_reduction_point():
    """C += A B: C is one more input, read with the output's view; the fill with a
    constant other than the identity is dropped and the constant folded in."""
    op = find_compute(convert(GEMM))
    assert len(op.inputs) == 3 and str(op.input_maps[2][0]) == "(d0, d1, d2) -> (d0, d1)"
    module = convert(MATMUL_FROM_1000)
    op = find_compute(module)
    assert len(op.inputs) == 2 and not any(isinstance(o, FillOp) for o in module.walk())


# A scalar operand (MLIR's fusion-elementwise-ops.mlir broadcasts `ins(%cst : f32)` with the
# map (d0) -> ()): a constant, inlined into the scalar function.
AXPY = """
func.func @axpy(%X: memref<6xf32>, %Y: memref<6xf32>) -> memref<6xf32> {
  %C = memref.alloc() : memref<6xf32>
  %a = arith.constant 2.5 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>,
                                   affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%a, %X, %Y : f32, memref<6xf32>, memref<6xf32>) outs(%C : memref<6xf32>) {
  ^bb0(%s: f32, %x: f32, %y: f32, %c: f32):
    %m = arith.mulf %s, %x : f32
    %r = arith.addf %m, %y : f32
    linalg.yield %r : f32
  }
  func.return %C : memref<6xf32>
}"""

RUNS["scalar-constant"] = (AXPY, [(6,), (6,)], lambda x, y: 2.5 * x + y)

# A 0-d generic (no iterators, rank-0 views): one point, on a dimension of size 1.
ZERO_D = """
func.func @zero_d(%X: memref<f32>, %Y: memref<f32>) -> memref<f32> {
  %C = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>,
                                   affine_map<() -> ()>],
                  iterator_types = []}
      ins(%X, %Y : memref<f32>, memref<f32>) outs(%C : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %r = arith.subf %x, %y : f32
    linalg.yield %r : f32
  }
  func.return %C : memref<f32>
}"""


def test_zero_d_generic_runs():
    from mdh_ir.driver import compile_module

    module = convert(ZERO_D)
    assert [str(c) for c in find_compute(module).combines] == ["pw(mul)"]
    x, y = (np.asarray(v, np.float32) for v in rng.uniform(-1, 1, 2))
    (got,) = compile_module(module, TEST_DEVICE)(x, y)
    assert got.shape == () and got == x - y


REFUSED["scalar-not-constant"] = (
    """func.func @s(%a: f32, %X: memref<6xf32>, %C: memref<6xf32>) {
      """ + generic(
        "affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>", '"parallel"',
        "%a, %X : f32, memref<6xf32>", "%C : memref<6xf32>",
        "%s: f32, %x: f32, %c: f32|%m = arith.mulf %s, %x : f32\nlinalg.yield %m : f32",
    ) + """
      func.return
    }""",
    "operand #0 is a scalar (f32) that is not a constant",
)  # fmt: skip
