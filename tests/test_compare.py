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
    """A sum over -0.0 is -0.0 in IEEE order and +0.0 where the accumulator starts at
    +0.0 (as numpy's and a kernel's may): both are right (IEEE equality), for sums and
    element-wise results."""
    for combine, shape in (('["pw", "add"]', "8"), ('"cc"', "8x4")):
        module = module_of("  func.return %x : f32", combine, shape)
        x = [np.full((8, 4), -0.0, np.float32)]
        want = [np.full_like(w, -0.0) for w in reference_outputs(module, x)]
        result = compare(module, x, [np.zeros_like(want[0], dtype=np.float32)], want)
        assert result.ok, result.message
        assert compare(module, x, [np.full_like(want[0], -0.0, dtype=np.float32)], [np.zeros_like(want[0])]).ok


@pytest.mark.parametrize("combine, shape", [('"cc"', "8x4"), ('["pw", "add"]', "8")])
def test_chunked_error_is_the_whole_arrays_error(monkeypatch, combine: str, shape: str) -> None:
    """The prepared comparison (`Expected`), reading outputs a chunk at a time (chunks
    of 5 here, so that chunks end inside the arrays), gives the error of the whole
    arrays: the relative L2 error of a reduction, the largest relative element error
    of an element-wise result; with a NaN in the reference, over its finite rest."""
    from mdh_ir.semantics import compare as checker

    monkeypatch.setattr(checker, "CHUNK", 5)
    module = module_of(LOG, combine, shape)
    x = random_inputs_of(module)
    x[0][:] = np.abs(x[0]) + 0.5
    x[0][1, 1] = -1.0  # log: NaN in the reference
    want = reference_outputs(module, x)[0]
    got = (want * (1 + 1e-6 * np.random.default_rng(1).standard_normal(want.shape))).astype(np.float32)
    result = checker.Expected(module, [want]).compare([got])
    finite = np.isfinite(want)
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    if combine == '"cc"':
        direct = float(np.max(np.abs(g - w) / np.maximum(np.abs(w), 1.0)))
    else:
        direct = float(np.linalg.norm(g - w) / np.linalg.norm(w))
    assert result.ok, result.message
    assert result.error == pytest.approx(direct, rel=1e-5)
    got[np.unravel_index(np.flatnonzero(finite)[-1], got.shape)] += 1.0  # the last chunk's last finite value
    assert not checker.Expected(module, [want]).compare([got]).ok
