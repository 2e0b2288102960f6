"""The `mma.sync` lowering (TF32, f16, bf16) on an NVIDIA GPU with tensor cores: inline
PTX through NVIDIA's OpenCL. Skipped where no such device is present (PoCL runs the same
lowering as FMAs: tests/test_mma.py).

    MDH_MMA_GPU=gpu .venv/bin/python -m pytest -q -p no:xdist -s tests/test_mma_gpu.py

checks random mma configurations of each kind at awkward sizes against the reference,
then times matmul 4096^3 under a few hand-made mma configurations and prints TFLOP/s.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mdh_ir.dialects.lowlevel import CpAsyncOp, MmaOp
from mdh_ir.driver import compile_module
from mdh_ir.runtime import device_info, select_device
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.schedule.mma import SHAPES
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import check_outputs
from tests.test_mma import (
    OUTER_FORMS, SIZES, SIZES_16, conv, kind_matmul, matmul, mma_config, outer_config, outer_module,
)


def nvidia_device():
    """The device of `$MDH_MMA_GPU` (default "gpu") if it is NVIDIA's with tensor cores."""
    try:
        device = select_device(os.environ.get("MDH_MMA_GPU", "gpu"))
    except Exception:
        return None
    return device if device_info(device).tensor_cores else None


DEVICE = nvidia_device()
pytestmark = pytest.mark.skipif(
    DEVICE is None, reason="needs an NVIDIA GPU with tensor cores (compute capability 8.0+) in NVIDIA's OpenCL"
)


CASES = [("tf32", s) for s in SIZES] + [(kind, s) for kind in ("f16", "bf16") for s in SIZES_16]


@pytest.mark.parametrize(("kind", "sizes"), CASES, ids=lambda c: c if isinstance(c, str) else "x".join(map(str, c)))
def test_random_mma_configurations_on_tensor_cores(kind: str, sizes) -> None:
    module = kind_matmul(kind, *sizes)
    op = find_compute(module)
    info = device_info(DEVICE)
    for draw in range(3):
        rng = np.random.default_rng(7 * draw + sum(sizes))
        cfg = mma_config(op, info, rng)
        assert cfg.mma == kind
        compiled = compile_module(module, DEVICE, cfg)
        assert any(isinstance(o, MmaOp) for o in compiled.lowered.walk())
        inputs = random_inputs(op, rng)
        check_outputs(module, inputs, compiled(*inputs))


@pytest.mark.parametrize("name", list(OUTER_FORMS))
@pytest.mark.parametrize("kind", ["tf32", "f16", "bf16"])
def test_outer_dimensions_on_tensor_cores(kind: str, name: str) -> None:
    """Random configurations of batched products, convolutions and a contraction on
    fragments (`test_mma.outer_config`) against the reference."""
    module = outer_module(name, kind)
    op = find_compute(module)
    info = device_info(DEVICE)
    for draw in range(3):
        rng = np.random.default_rng(5000 + draw)
        cfg = outer_config(op, info, kind, rng)
        compiled = compile_module(module, DEVICE, cfg)
        assert any(isinstance(o, MmaOp) for o in compiled.lowered.walk())
        inputs = random_inputs(op, rng)
        check_outputs(module, inputs, compiled(*inputs))


@pytest.mark.parametrize("kind", ["tf32", "f16", "bf16"])
def test_default_convolution_on_tensor_cores(kind: str) -> None:
    """The device's default of a convolution at batch 32 (3 x 3, 64 to 128 channels, 8 x 8
    pixels) is on fragments and matches the reference."""
    module = conv(kind, 32, 8, 128, 3, 64)
    op = find_compute(module)
    cfg = default_config(op, device_info(DEVICE))
    assert cfg.mma == kind, cfg
    compiled = compile_module(module, DEVICE, cfg)
    inputs = random_inputs(op, np.random.default_rng(32))
    check_outputs(module, inputs, compiled(*inputs))


@pytest.mark.parametrize("kind", ["ieee", "tf32", "f16"])
@pytest.mark.parametrize("sizes", [(256, 128, 96), (37, 29, 47)], ids=lambda s: "x".join(map(str, s)))
def test_async_copies_on_the_device(kind: str, sizes) -> None:
    """`prefetch = 3`, the inputs in their own layouts in local memory: copies move by
    `cp.async` (TF32 unrounded: the tensor cores truncate) where their moves are 4, 8
    or 16 aligned bytes (at 256 x 128 x 96 A's always are), the others staged, 1 to 3
    local tiles ahead (`stages` 2 to 4, in turn); FP32 FMAs and fragments alike give
    the reference result."""
    module = matmul(*sizes, precision="ieee") if kind == "ieee" else kind_matmul(kind, *sizes)
    op = find_compute(module)
    info = device_info(DEVICE)
    rng = np.random.default_rng(sum(sizes))
    checked, moved = 0, 0
    while checked < 3:
        try:
            cfg = sample_config(op, info, RandomTrial(rng)) if kind == "ieee" else mma_config(op, info, rng)
        except Infeasible:
            continue
        own = tuple(tuple(range(len(v.type.get_shape()))) for v in op.inputs)  # no copy transposes
        cfg = cfg.with_(prefetch=3, stages=2 + checked, buf_layout=(own, cfg.buf_layout[1]))
        if "lcl" not in cfg.inp_mem[0] or violations(op, cfg, info):
            continue
        compiled = compile_module(module, DEVICE, cfg)
        moved += any(isinstance(o, CpAsyncOp) for o in compiled.lowered.walk())
        inputs = random_inputs(op, rng)
        check_outputs(module, inputs, compiled(*inputs))
        checked += 1
    assert moved or sizes[2] % 4


HAND_MADE = [
    # step blocks (num_wi * pt_size) of 8 warps, of 4 warps 32 along k, of 8 warps 4 x 4 each
    dict(num_wi=(16, 8, 1), pt_size=(8, 8), lt_size=(128, 64, 16)),
    dict(num_wi=(8, 16, 1), pt_size=(8, 4), lt_size=(64, 64, 32)),
    dict(num_wi=(16, 16, 1), pt_size=(4, 4), lt_size=(64, 64, 32)),
]
"""pt_size along k: the kind's fragment K."""


@pytest.mark.parametrize("kind", ["tf32", "f16", "bf16"])
def test_mma_matmul_4096_throughput(kind: str) -> None:
    n = 4096
    module = kind_matmul(kind, n, n, n)
    op = find_compute(module)
    info = device_info(DEVICE)
    rng = np.random.default_rng(0)
    inputs = random_inputs(op, rng)
    base = default_config(op, info)
    for shape in HAND_MADE:
        cfg = base.with_(
            **{**shape, "pt_size": (*shape["pt_size"], SHAPES[kind][2])},
            num_wg=(n // shape["lt_size"][0], n // shape["lt_size"][1], 1),
            inp_mem=(("lcl", "lcl"), ("glb", "glb")), res_mem=("prv",), vector_width=1,
            combine_layer="end", mma=kind,
        )  # fmt: skip
        compiled = compile_module(module, DEVICE, cfg)
        outputs, seconds = compiled.run(inputs, repeats=10)
        best = min(seconds)
        print(f"matmul {n}^3 {kind} mma {shape}: {best * 1e3:.3f} ms, {2 * n**3 / best / 1e12:.1f} TFLOP/s")
        sample = rng.integers(0, n, (64, 2))
        a, b = (np.asarray(x, np.float64) for x in inputs)
        for i, j in sample:
            exact = a[i] @ b[:, j]
            assert abs(outputs[0][i, j] - exact) <= 2e-3 * (np.abs(a[i]) @ np.abs(b[:, j])), (i, j)


@pytest.mark.parametrize("vector_width", [1, 4])
def test_tf32_rounding_instruction_rounds_as_the_reference(vector_width: int) -> None:
    """On compute capability 9.0+ `round_tf32` is PTX `cvt.rn.tf32.f32`: it rounds as
    `semantics.precision.round_tf32` does, bit for bit, ties (both parities), NaN,
    infinities and the largest float (up to infinity) included."""
    from tests.test_reduced_precision import product

    from mdh_ir.dialects.lowlevel import PTX_ATTR, RoundTF32Op
    from mdh_ir.semantics.precision import round_tf32

    module = product("tf32", 7, 36)
    op = find_compute(module)
    info = device_info(DEVICE)
    cfg = default_config(op, info).with_(
        num_wg=(7, 1), num_wi=(1, 1), lt_size=(1, 36), pt_size=(1, 36), vector_width=vector_width,
        loop_order=((0, 1), (0, 1)),
    )  # fmt: skip
    compiled = compile_module(module, DEVICE, cfg)
    roundings = [o for o in compiled.lowered.walk() if isinstance(o, RoundTF32Op)]
    assert roundings and all((PTX_ATTR in o.attributes) is info.tf32_conversion for o in roundings)
    rng = np.random.default_rng(3)
    a = rng.uniform(-2, 2, (7, 36)).astype(np.float32)
    ties = np.array([0x3F801000, 0x3F803000, 0xBF801000, 0xBF803000], np.uint32).view(np.float32)
    a[0, :8] = [np.inf, -np.inf, np.nan, np.float32(3.4028235e38), *ties]
    b = np.ones_like(a)
    (got,) = compiled(a, b)
    assert np.array_equal(got, round_tf32(a), equal_nan=True)
