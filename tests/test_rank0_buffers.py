"""Rank-0 buffers (`memref<f32>`): an input read at every point (a scale factor) and a
result of a full reduction run end to end on the device, whatever memory caches them."""

from __future__ import annotations

import numpy as np
import pytest

from mdh_ir.driver import compile_module
from mdh_ir.schedule.config import Config
from mdh_ir.semantics.compare import compare
from mdh_ir.semantics.host import evaluate_host, host_function, random_arguments
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module

SCALE = """
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @scale(%M: memref<8x12xf32>, %s: memref<f32>) -> memref<8x12xf32> {
  %w = mdh.compute "scale"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> ()>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, k) -> (i, k)>]]}
    {inp_types = [f32, f32], mda_size = [8, 12], out_types = [f32]}
    (%M, %s) : (memref<8x12xf32>, memref<f32>) -> memref<8x12xf32>
  func.return %w : memref<8x12xf32>
}
"""


def check(text: str, config: dict | None = None) -> None:
    module = load_module(make_context(), text, "rank0.mlir")
    compiled = compile_module(module, "cpu")
    if config is not None:
        compiled = compile_module(module, "cpu", Config(**{**compiled.config.__dict__, **config}))
    inputs = random_arguments(host_function(compiled.module), np.random.default_rng(0))
    outputs = compiled(*inputs)
    result = compare(compiled.module, inputs, outputs, evaluate_host(compiled.module, inputs))
    assert result.ok, result.message


@pytest.mark.parametrize(
    "inp_mem",
    [(("glb", "lcl"), ("glb", "glb")), (("glb", "glb"), ("glb", "prv")), (("lcl", "lcl"), ("prv", "prv"))],
    ids=["local", "private", "both"],
)  # fmt: skip
def test_a_cached_rank0_input(inp_mem) -> None:
    """A rank-0 input copied into local or private memory: a copy of one element (the
    copy's lowering indexed the innermost axis of a box that has none)."""
    check(SCALE, dict(
        num_wg=(2, 1), num_wi=(4, 3), lt_size=(4, 12), pt_size=(1, 4), inp_mem=inp_mem,
        ocl_dim=((0, 2), (1, 0)), vector_width=1, prefetch=0,
    ))  # fmt: skip


def test_a_rank0_input_and_result() -> None:
    check(SCALE)
    check(SCALE.replace('"cc", "cc"]', '["pw", "add"], ["pw", "add"]]').replace(
        "out_view = [[affine_map<(i, k) -> (i, k)>]]", "out_view = [[affine_map<(i, k) -> ()>]]"
    ).replace("-> memref<8x12xf32>", "-> memref<f32>").replace("%w : memref<8x12xf32>", "%w : memref<f32>"))
