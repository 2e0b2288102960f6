"""Epilogue and prologue fusion (`mdh-fuse`): a fused chain's reference result equals the unfused
chain's, and the fused op lowered under random legal configurations (split reductions,
awkward sizes) gives its reference result on the test device."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.context import Context

from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.driver import compile_module
from mdh_ir.passes.fuse import FusionRemark, MDHFuse
from mdh_ir.runtime import select_device
from mdh_ir.schedule.tiling import TilePlan
from mdh_ir.semantics.host import evaluate_host, host_function, random_arguments
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from tests.lowering_check import TEST_DEVICE, check_outputs, draw_config

FUNCS = """
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @bias(%b: f32, %c: f32) -> f32 {
  %r = arith.addf %c, %b : f32
  func.return %r : f32
}
func.func @relu(%c: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %c, %z : f32
  func.return %r : f32
}
func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s = arith.addf %l, %c : f32
  %t = arith.addf %s, %r : f32
  %k = arith.constant 0.33333334 : f32
  %u = arith.mulf %t, %k : f32
  func.return %u : f32
}
func.func @axpy(%y: f32, %c: f32) -> f32 {
  %k = arith.constant 2.0 : f32
  %t = arith.mulf %y, %k : f32
  %r = arith.subf %t, %c : f32
  func.return %r : f32
}
"""


def matmul_bias_relu(m: int, n: int, k: int) -> str:
    """C = A @ B, D = b + C (bias read first: the epilogue needs a wrapper), R = relu(D)."""
    return FUNCS + f"""
func.func @main(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %b: memref<{n}xf32>) -> memref<{m}x{n}xf32> {{
  %C = mdh.compute "mm"
    {{inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
      md_hom = {{scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]}},
      out_view = [[affine_map<(i,j,k) -> (i,j)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {n}, {k}], out_types = [f32]}}
    (%A, %B) : (memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) -> memref<{m}x{n}xf32>
  %D = mdh.compute "bias"
    {{inp_view = [[affine_map<(i,j) -> (j)>], [affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @bias, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,j) -> (i,j)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%b, %C) : (memref<{n}xf32>, memref<{m}x{n}xf32>) -> memref<{m}x{n}xf32>
  %R = mdh.compute "relu"
    {{inp_view = [[affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @relu, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,j) -> (i,j)>]]}}
    {{inp_types = [f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%D) : (memref<{m}x{n}xf32>) -> memref<{m}x{n}xf32>
  func.return %R : memref<{m}x{n}xf32>
}}
"""


def row_sum_scale(m: int, n: int) -> str:
    """r[i] = sum_j A[i,j], then s[i] = r[i] * w[i]."""
    return FUNCS + f"""
func.func @main(%A: memref<{m}x{n}xf32>, %w: memref<{m}xf32>) -> memref<{m}xf32> {{
  %r = mdh.compute "row_sum"
    {{inp_view = [[affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @id, combine_ops = ["cc", ["pw", @add]]}},
      out_view = [[affine_map<(i,j) -> (i)>]]}}
    {{inp_types = [f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%A) : (memref<{m}x{n}xf32>) -> memref<{m}xf32>
  %s = mdh.compute "scale"
    {{inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
      md_hom = {{scalar_func = @mul, combine_ops = ["cc"]}},
      out_view = [[affine_map<(i) -> (i)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}], out_types = [f32]}}
    (%r, %w) : (memref<{m}xf32>, memref<{m}xf32>) -> memref<{m}xf32>
  func.return %s : memref<{m}xf32>
}}
"""


def stencil_pointwise(m: int, n: int) -> str:
    """y[i,j] = mean of x[i,j-1..j+1] (clamped), then z[q,p] = 2 y[p,q] - c[q]: the
    consumer iterates the result transposed."""
    return FUNCS + f"""
func.func @main(%x: memref<{m}x{n}xf32>, %c: memref<{n}xf32>) -> memref<{n}x{m}xf32> {{
  %y = mdh.compute "blur"
    {{inp_view = [[affine_map<(i,j) -> (i,j - 1)>, affine_map<(i,j) -> (i,j)>, affine_map<(i,j) -> (i,j + 1)>]],
      md_hom = {{scalar_func = @avg3, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,j) -> (i,j)>]], boundary = ["clamp"]}}
    {{inp_types = [f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%x) : (memref<{m}x{n}xf32>) -> memref<{m}x{n}xf32>
  %z = mdh.compute "axpy"
    {{inp_view = [[affine_map<(q,p) -> (p,q)>], [affine_map<(q,p) -> (q)>]],
      md_hom = {{scalar_func = @axpy, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(q,p) -> (q,p)>]]}}
    {{inp_types = [f32, f32], mda_size = [{n}, {m}], out_types = [f32]}}
    (%y, %c) : (memref<{m}x{n}xf32>, memref<{n}xf32>) -> memref<{n}x{m}xf32>
  func.return %z : memref<{n}x{m}xf32>
}}
"""


def scaled_matmul(m: int, n: int, k: int) -> str:
    """As = A * s[i] (row scaling), B = relu(Bt)^T, C = As @ B: two prologues."""
    return FUNCS + f"""
func.func @main(%A: memref<{m}x{k}xf32>, %s: memref<{m}xf32>, %Bt: memref<{n}x{k}xf32>) -> memref<{m}x{n}xf32> {{
  %As = mdh.compute "rowscale"
    {{inp_view = [[affine_map<(i,k) -> (i,k)>], [affine_map<(i,k) -> (i)>]],
      md_hom = {{scalar_func = @mul, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,k) -> (i,k)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {k}], out_types = [f32]}}
    (%A, %s) : (memref<{m}x{k}xf32>, memref<{m}xf32>) -> memref<{m}x{k}xf32>
  %B = mdh.compute "relu"
    {{inp_view = [[affine_map<(j,k) -> (j,k)>]],
      md_hom = {{scalar_func = @relu, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(j,k) -> (k,j)>]]}}
    {{inp_types = [f32], mda_size = [{n}, {k}], out_types = [f32]}}
    (%Bt) : (memref<{n}x{k}xf32>) -> memref<{k}x{n}xf32>
  %C = mdh.compute "mm"
    {{inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
      md_hom = {{scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]}},
      out_view = [[affine_map<(i,j,k) -> (i,j)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {n}, {k}], out_types = [f32]}}
    (%As, %B) : (memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) -> memref<{m}x{n}xf32>
  func.return %C : memref<{m}x{n}xf32>
}}
"""


def blurred_sum(m: int, n: int) -> str:
    """y = x * w (point-wise), r[i] = sum_j of y[i,j-1] + y[i,j] + y[i,j+1] over the
    inner columns: a prologue over three accesses."""
    return FUNCS + f"""
func.func @main(%x: memref<{m}x{n + 2}xf32>, %w: memref<{m}x{n + 2}xf32>) -> memref<{m}xf32> {{
  %y = mdh.compute "weigh"
    {{inp_view = [[affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @mul, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,j) -> (i,j)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {n + 2}], out_types = [f32]}}
    (%x, %w) : (memref<{m}x{n + 2}xf32>, memref<{m}x{n + 2}xf32>) -> memref<{m}x{n + 2}xf32>
  %r = mdh.compute "sum3"
    {{inp_view = [[affine_map<(i,j) -> (i,j)>, affine_map<(i,j) -> (i,j + 1)>, affine_map<(i,j) -> (i,j + 2)>]],
      md_hom = {{scalar_func = @avg3, combine_ops = ["cc", ["pw", @add]]}},
      out_view = [[affine_map<(i,j) -> (i)>]]}}
    {{inp_types = [f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%y) : (memref<{m}x{n + 2}xf32>) -> memref<{m}xf32>
  func.return %r : memref<{m}xf32>
}}
"""


CHAINS = {
    "matmul_bias_relu": (matmul_bias_relu, 3),
    "row_sum_scale": (row_sum_scale, 2),
    "stencil_pointwise": (stencil_pointwise, 2),
    "scaled_matmul": (scaled_matmul, 3),
    "blurred_sum": (blurred_sum, 2),
}
AWKWARD = [1, 2, 7, 9, 13, 17, 33]
"""Sizes: 1, primes, one more than a power of two (a tile + 1)."""


def parse(text: str):
    return load_module(make_context(), text, "chain.mlir")


def fused(module):
    fused = module.clone()
    MDHFuse().apply(Context(), fused)
    fused.verify()
    return fused


def computes(module) -> list[ComputeOp]:
    return [op for op in module.walk() if isinstance(op, ComputeOp)]


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_fused_reference_equals_the_chain(name: str) -> None:
    build, rank = CHAINS[name]
    rng = np.random.default_rng(3)
    for _ in range(4):
        sizes = [int(rng.choice(AWKWARD)) for _ in range(rank)]
        chain = parse(build(*sizes))
        one = fused(chain)
        assert len(computes(chain)) > 1 and len(computes(one)) == 1
        assert computes(one)[0].epilogue is not None or computes(one)[0].prologue is not None
        args = random_arguments(host_function(chain), rng)
        for want, got in zip(evaluate_host(chain, args), evaluate_host(one, args)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_fused_op_lowered_matches_the_reference(name: str) -> None:
    """Random sizes and legal configurations of the tuning space; the reductions' draws
    include work-groups splitting the pw dimension (both `wg_combine`s)."""
    build, rank = CHAINS[name]
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    rng = np.random.default_rng(sum(map(ord, name)))
    split = 0
    for draw in range(12):
        sizes = [int(rng.choice(AWKWARD)) for _ in range(rank)]
        module = fused(parse(build(*sizes)))
        (op,) = computes(module)
        config = draw_config(op, info, rng)
        assert config is not None, f"no legal configuration for {op.comp_name.data} {op.sizes}"
        plan = TilePlan(op, config)
        if plan.accumulates and draw % 3 == 0:  # force a split reduction where there is room
            d = plan.pw_dims[0]
            groups = -(-op.sizes[d] // config.lt_size[d])
            if groups > 1:
                config = config.with_(num_wg=tuple(groups if e == d else g for e, g in enumerate(config.num_wg)))
                config = config.with_(wg_combine=str(rng.choice(["kernel", "last"])))
        split += TilePlan(op, config).accumulates and TilePlan(op, config).pw_groups > 1
        args = random_arguments(host_function(module), rng)
        try:
            check_outputs(module, args, compile_module(module, TEST_DEVICE, config)(*args))
        except Exception as e:
            raise AssertionError(f"{name} sizes={sizes} config={config.to_attr()}\n{e}") from e
    if name != "stencil_pointwise":
        assert split > 0, "no draw split the reduction across work-groups"


def test_the_epilogue_applies_to_the_final_value_of_a_split_reduction_only() -> None:
    """matmul 9x13x33 with k split over 3 work-groups: relu(bias + sum) differs from the
    sum of relu'd partials, so an epilogue applied to partial results fails the check."""
    module = fused(parse(matmul_bias_relu(9, 13, 33)))
    (op,) = computes(module)
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    rng = np.random.default_rng(0)
    for wg_combine in ("kernel", "last"):
        config = draw_config(op, info, rng).with_(
            num_wg=(1, 1, 3), num_wi=(1, 1, 1), lt_size=(9, 13, 11), pt_size=(9, 13, 11), wg_combine=wg_combine,
        )
        args = random_arguments(host_function(module), rng)
        check_outputs(module, args, compile_module(module, TEST_DEVICE, config)(*args))


def test_refusals_leave_the_chain_and_say_why() -> None:
    text = matmul_bias_relu(4, 5, 6).replace(
        "func.return %R : memref<4x5xf32>", "func.return %R, %C : memref<4x5xf32>, memref<4x5xf32>"
    ).replace("-> memref<4x5xf32> {\n  %C", "-> (memref<4x5xf32>, memref<4x5xf32>) {\n  %C")
    module = parse(text)
    with pytest.warns(FusionRemark, match='"mm" not fused: its result is used 2 times'):
        MDHFuse().apply(Context(), module)
    assert [op.comp_name.data for op in computes(module)] == ["mm", "bias_relu"]


def test_compile_module_fuses_on_request() -> None:
    chain = parse(matmul_bias_relu(7, 9, 17))
    args = random_arguments(host_function(chain), np.random.default_rng(5))
    (want,) = evaluate_host(chain, args)
    plain = compile_module(chain, TEST_DEVICE)
    one = compile_module(chain, TEST_DEVICE, fuse=True)
    assert len(plain.ops) == 3 and [op.comp_name.data for op in one.ops] == ["mm_bias_relu"]
    for program in (plain, one):
        np.testing.assert_allclose(program(*args)[0], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "change, reason",
    [
        (('out_types = [f32]}\n    (%r, %w)', 'out_types = [f32], precision = "tf32"}\n    (%r, %w)'),
         'the consumer reads its inputs as tf32 (precision = "tf32"), an epilogue reads them as they are'),
        (("%w: memref<6xf32>", "%w: memref<6xbf16>"), "the consumer reads f16 or bf16 inputs, which an epilogue does not"),
    ],
)  # fmt: skip
def test_a_consumer_of_reduced_precision_inputs_stays(change, reason) -> None:
    """A consumer that reads its inputs rounded (TF32) or widened (bf16) is not fused: an
    epilogue reads its inputs as they are, so fusing would change its result."""
    text = row_sum_scale(6, 5).replace(*change)
    if "bf16" in change[1]:
        text = text.replace("inp_types = [f32, f32], mda_size = [6]", "inp_types = [f32, bf16], mda_size = [6]")
        text = text.replace("(memref<6xf32>, memref<6xf32>) -> memref<6xf32>", "(memref<6xf32>, memref<6xbf16>) -> memref<6xf32>")
    module = parse(text)
    with pytest.warns(FusionRemark, match=re.escape(f'"row_sum" not fused: {reason}')):
        MDHFuse().apply(Context(), module)
    assert [op.comp_name.data for op in computes(module)] == ["row_sum", "scale"]
