"""The check on the device (`mdh_ir.tuning.device_check`) accepts and rejects crafted
outputs exactly as the host's comparison (`compare.Expected`) does, with the host's
message for every failure; it decides the passing ones on the device."""

from __future__ import annotations

import numpy as np
import pytest

from mdh_ir.driver import compile_module
from mdh_ir.semantics.compare import Expected, reference_outputs
from mdh_ir.tuning.device_check import DeviceCheck
from tests.test_compare import LOG, module_of, random_inputs_of

CASES = {'"cc"': "8x4", '["pw", "add"]': "8"}


def setup(combine: str, body: str = LOG):
    """The module (`test_compare.module_of`), its reference with a NaN and a -inf where
    the body is the logarithm, its program on PoCL and both checks."""
    module = module_of(body, combine, CASES[combine])
    x = random_inputs_of(module)
    x[0][:] = np.abs(x[0]) + 0.5
    if body == LOG:
        x[0][1, 1], x[0][2, 2] = -1.0, 0.0  # log: NaN, -inf
    reference = reference_outputs(module, x)
    expected = Expected(module, reference)
    return compile_module(module, "cpu").program, expected, DeviceCheck(expected)


def both(program, expected: Expected, check: DeviceCheck, got: np.ndarray):
    """The host's comparison of `got`, the device's, and whether the device decided."""
    import pyopencl as cl

    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buffers = [cl.Buffer(program.ctx, flags, hostbuf=np.ascontiguousarray(got))]
    device = check.compare(program, buffers)
    decided = check.uploaded[program.ctx].passing_error(program.queue, buffers, program.output_specs()) is not None
    return expected.compare([got]), device, decided


def crafted(want: np.ndarray, tolerance: float) -> dict[str, np.ndarray]:
    """Outputs against `want` (float32): right, and wrong in each way a candidate can be."""
    right = want.astype(np.float32)
    finite = [tuple(i) for i in np.argwhere(np.isfinite(want))]
    nan = tuple(np.argwhere(np.isnan(want))[0]) if np.isnan(want).any() else None
    cases = {"right": right.copy()}

    def edit(name: str, where, value) -> None:
        got = right.copy()
        got[where] = value
        cases[name] = got

    edit("nan at a finite value", finite[0], np.nan)
    edit("inf at a finite value", finite[1], np.inf)
    edit("-inf at a finite value", finite[2], -np.inf)
    edit("wrong sign", finite[3], -right[finite[3]])
    if nan is not None:
        edit("finite at a nan", nan, 1.0)
        edit("inf at a nan", nan, np.inf)
    if np.isneginf(want).any():
        edit("+inf at a -inf", tuple(np.argwhere(np.isneginf(want))[0]), np.inf)
    cases["within tolerance"] = (want * (1 + tolerance / 4)).astype(np.float32)
    cases["off by tolerance"] = (want * (1 + 4 * tolerance)).astype(np.float32)
    cases["off by tolerance at one value"] = right.copy()
    cases["off by tolerance at one value"][finite[4]] *= 1 + 4 * tolerance
    cases["signed zeros"] = np.where(right == 0, -0.0, right).astype(np.float32)
    return cases


@pytest.mark.parametrize("combine", CASES)
def test_device_check_agrees_with_the_host(combine: str) -> None:
    """Crafted outputs (NaN, Inf, off by the tolerance, a wrong sign): the same verdict
    as the host's, the host's message for every failure, and the passing ones decided
    on the device (with the same error, for an element-wise result to the bit)."""
    program, expected, check = setup(combine)
    want = expected.reference[0]
    tolerance = expected.tolerance(np.dtype(np.float32))
    for name, got in crafted(want, tolerance).items():
        host, device, decided = both(program, expected, check, got)
        assert device.ok == host.ok, (name, host, device)
        assert decided == host.ok, name
        if host.ok:
            assert device.error == (host.error if combine == '"cc"' else pytest.approx(host.error, rel=1e-12)), name
        else:
            assert device.message == host.message, name
    assert not both(program, expected, check, crafted(want, tolerance)["wrong sign"])[0].ok


def test_element_error_at_the_tolerance_decided_to_the_bit() -> None:
    """An element-wise result's error, stepped one float32 at a time across the
    tolerance: the device accepts exactly the values the host accepts."""
    program, expected, check = setup('"cc"', "  func.return %x : f32")
    want = expected.reference[0]
    tolerance = expected.tolerance(np.dtype(np.float32))
    value = np.float32(want.flat[5] * (1 + tolerance))
    for _ in range(8):
        value = np.nextafter(value, np.float32(0))
    verdicts = []
    for _ in range(16):
        got = want.copy()
        got.flat[5] = value
        host, device, decided = both(program, expected, check, got)
        assert (device.ok, decided) == (host.ok, host.ok), value
        assert not host.ok or device.error == host.error
        verdicts.append(host.ok)
        value = np.nextafter(value, np.float32(np.inf))
    assert True in verdicts and False in verdicts, "the steps should cross the tolerance"


def test_outputs_the_device_cannot_compare_go_to_the_host() -> None:
    """An output the device does not compare (here a float64 reference of an
    element-wise result, compared on the host in float64) gets the host's verdict and
    message."""
    program, expected, _ = setup('"cc"')
    wide = Expected(module_of(LOG, '"cc"', "8x4"), [expected.reference[0].astype(np.float64)])
    check = DeviceCheck(wide)
    for name, got in crafted(wide.reference[0], wide.tolerance(np.dtype(np.float32))).items():
        host, device, decided = both(program, wide, check, got)
        assert not decided and device == host, name


INTEGER = """
func.func @f(%x: i32) -> i32 {
  %r = arith.addi %x, %x : i32
  func.return %r : i32
}
func.func @host(%X: memref<8x4xi32>) -> memref<8x4xi32> {
  %w = mdh.compute "c"
    {inp_view = [[affine_map<(i, k) -> (i, k)>]],
     md_hom = {scalar_func = @f, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, k) -> (i, k)>]]}
    {inp_types = [i32], mda_size = [8, 4], out_types = [i32]}
    (%X) : (memref<8x4xi32>) -> memref<8x4xi32>
  func.return %w : memref<8x4xi32>
}
"""


def test_integer_outputs_compared_by_value() -> None:
    """Integer outputs: equal ones pass on the device, one that differs anywhere fails
    with the host's message."""
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module

    module = load_module(make_context(), INTEGER, "test.mlir")
    reference = reference_outputs(module, random_inputs_of(module))
    expected = Expected(module, reference)
    program, check = compile_module(module, "cpu").program, DeviceCheck(expected)
    host, device, decided = both(program, expected, check, reference[0])
    assert host.ok and device == host and decided
    for where, delta in (((0, 0), 1), ((7, 3), -1), ((3, 2), 1 << 31)):
        got = reference[0].copy()
        got[where] += np.int32(delta) if delta != 1 << 31 else np.int32(-(1 << 31))
        host, device, decided = both(program, expected, check, got)
        assert not host.ok and device == host and not decided, where
