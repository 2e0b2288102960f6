"""The checker (`mdh_ir.semantics.compare`): non-finite values are compared by position,
the finite rest within a tolerance that grows with the scalar function's operation count,
and zeros by value (the sign of a zero is not checked)."""

from __future__ import annotations

import numpy as np
import pytest

from mdh_ir.semantics.compare import compare, reference_outputs
from mdh_ir.semantics.reference import evaluate, random_inputs
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module


def module_of(body: str, combine: str, out_shape: str = "8") -> object:
    """`out[i] = combine over k of f(x[i, k])` for an 8x4 input, `f` given by its body."""
    text = f"""
func.func @f(%x: f32) -> f32 {{
{body}
}}
func.func @host(%X: memref<8x4xf32>) -> memref<{out_shape}xf32> {{
  %w = mdh.compute "c"
    {{inp_view = [[affine_map<(i, k) -> (i, k)>]],
     md_hom = {{scalar_func = @f, combine_ops = ["cc", {combine}]}},
     out_view = [[affine_map<(i, k) -> ({"i, k" if out_shape == "8x4" else "i"})>]]}}
    {{inp_types = [f32], mda_size = [8, 4], out_types = [f32]}}
    (%X) : (memref<8x4xf32>) -> memref<{out_shape}xf32>
  func.return %w : memref<{out_shape}xf32>
}}
"""
    return load_module(make_context(), text, "test.mlir")


LOG = "  %r = math.log %x : f32\n  func.return %r : f32"
"""NaN for the negative half of the random inputs in [-1, 1), -inf for zero."""


@pytest.mark.parametrize("combine", ['"cc"', '["pw", "add"]'])
def test_nan_and_inf_equal_by_position(combine: str) -> None:
    """A result equal to the reference, NaN and Inf included, is right (cc-only and
    reducing computations)."""
    shape = "8x4" if combine == '"cc"' else "8"
    module = module_of(LOG, combine, shape)
    x = random_inputs_of(module)
    x[0][0, 0] = 0.0  # log(0) = -inf
    got = evaluate(module, x, promote=False)
    assert not np.isfinite(got[0]).all()
    result = compare(module, x, got)
    assert result.ok, result.message


def random_inputs_of(module) -> list[np.ndarray]:
    from mdh_ir.semantics.reference import find_compute

    return random_inputs(find_compute(module), np.random.default_rng(0))


@pytest.mark.parametrize(
    "where, value",
    [((1, 1), np.nan), ((1, 1), np.inf), ((0, 0), 1.0), ((0, 0), np.inf), ((0, 0), np.nan)],
)
def test_non_finite_values_differ_by_position(where, value) -> None:
    """A NaN or Inf where the reference has a finite value (or a finite value, another
    non-finite value where it has NaN or -inf) is wrong; the message says where."""
    module = module_of(LOG, '"cc"', "8x4")
    x = random_inputs_of(module)
    x[0][0, 0], x[0][1, 1] = 0.0, 0.5  # reference: -inf at (0, 0), finite at (1, 1)
    got = evaluate(module, x, promote=False)
    got[0][where] = value
    result = compare(module, x, got)
    assert not result.ok
    assert f"at {where}" in result.message, result.message


def test_finite_values_still_within_tolerance() -> None:
    module = module_of(LOG, '"cc"', "8x4")
    x = random_inputs_of(module)
    got = evaluate(module, x, promote=False)
    finite = np.argwhere(np.isfinite(got[0]))[0]
    got[0][tuple(finite)] += 1e-2
    assert not compare(module, x, got).ok


def test_long_float32_chain_within_scaled_tolerance() -> None:
    """A scalar function of 20,000 additions, computed in float32 in order, is right
    against the float64 reference: the tolerance scales with the operation count."""
    n = 20000
    body = "\n".join(
        ["  %a0 = arith.addf %x, %x : f32"]
        + [f"  %a{i} = arith.addf %a{i - 1}, %x : f32" for i in range(1, n)]
        + [f"  func.return %a{n - 1} : f32"]
    )
    module = module_of(body, '["pw", "add"]')
    x = random_inputs_of(module)
    x[0][:] = np.float32(0.1)
    got = evaluate(module, x, promote=False)
    result = compare(module, x, got)
    assert result.error > 1e-4, "the chain should lose more than the fixed tolerance"
    assert result.ok, result.message
    got[0][0] *= 1.5
    assert not compare(module, x, got).ok


def test_sign_of_zero_is_not_checked() -> None:
    """A sum over -0.0 is -0.0 in the reference and +0.0 where the accumulator starts at
    +0.0: both are right (IEEE equality), for sums and element-wise results."""
    for combine, shape in (('["pw", "add"]', "8"), ('"cc"', "8x4")):
        module = module_of("  func.return %x : f32", combine, shape)
        x = [np.full((8, 4), -0.0, np.float32)]
        want = reference_outputs(module, x)
        assert np.signbit(want[0]).all()
        result = compare(module, x, [np.zeros_like(want[0], dtype=np.float32)], want)
        assert result.ok, result.message
