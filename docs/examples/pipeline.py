"""A pipeline mixing xDSL's passes with mdh_ir's, from Python.

    .venv/bin/python docs/examples/pipeline.py

A linalg matmul (a named op, as other front ends emit it) is generalized by xDSL's
`linalg-generalize-named-ops`, converted by our `convert-linalg-to-mdh`, cleaned by
xDSL's `dce`; the resulting `mdh.compute` program runs on OpenCL (tuning database's best
configuration, else the default one) and, lowered by our `lower-to-opencl`, prints as
OpenCL C with our target.
"""

import io

import numpy as np
from xdsl.passes import PassPipeline
from xdsl.transforms import get_all_passes

from mdh_ir.emit_opencl import print_opencl
from mdh_ir.passes import ALL_PASSES
from mdh_ir.driver import compile_module
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module

MATMUL = """
func.func @matmul(%A: memref<32x16xf32>, %B: memref<16x24xf32>) -> memref<32x24xf32> {
  %C = memref.alloc() : memref<32x24xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<32x24xf32>)
  linalg.matmul ins(%A, %B : memref<32x16xf32>, memref<16x24xf32>) outs(%C : memref<32x24xf32>)
  func.return %C : memref<32x24xf32>
}
"""

PASSES = {**get_all_passes(), **ALL_PASSES}
"""Every pass xDSL knows and every pass of mdh_ir, by name."""


def main() -> str:
    """Convert, run and check the matmul; return its OpenCL program."""
    ctx = make_context()
    module = load_module(ctx, MATMUL, "matmul.mlir")
    spec = "linalg-generalize-named-ops,convert-linalg-to-mdh,dce"
    PassPipeline.parse_spec(PASSES, spec).apply(ctx, module)

    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, shape).astype(np.float32) for shape in [(32, 16), (16, 24)])
    (c,) = compile_module(module, "cpu")(a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)

    PassPipeline.parse_spec(PASSES, "lower-to-opencl{device=cpu}").apply(ctx, module)
    source = io.StringIO()
    print_opencl(module, source)
    return source.getvalue()


if __name__ == "__main__":
    print(main())
