"""f16 and bf16 inputs and precision "tf32", from the IR to PoCL.

- The reference's TF32 rounding against an independent one (scaling by the TF32 ulp and
  numpy's round-half-to-even), on random values of every exponent and on the cases a
  bit trick gets wrong (ties, subnormals, the largest values, infinities, NaN).
- Generated code against the reference: matmul, a convolution with zero padding and a
  contraction with f16, bf16 and TF32 inputs, at awkward sizes (primes, 1, a power of
  two plus one), under random legal configurations of the tuning space; local and
  private caches of 16-bit inputs keep 16-bit elements; scans and every boundary mode;
  the GPU class's default configuration (built and run on PoCL, no `half` declared).
- A TF32 product computed by the generated code equals the product of the rounded
  inputs exactly (11 x 11 significant bits fit a float), and differs from the
  unrounded one: every read is rounded, in scalar and vector code.
- The verifier's, the builder's and the front ends' refusals, the comparison's
  tolerances (unchanged for f32 ops), the device model's tensor cores and the rules
  `tensor-cores` and `mma-inputs` on the `mma` decision.
"""

from __future__ import annotations

import os
import re

import ml_dtypes
from dataclasses import replace

import numpy as np
import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import BFloat16Type, Float16Type, ModuleOp

from mdh_ir.builder import Input, Output, bf16, cc, compute_module, f16, f32, ps, pw
from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.dialects.lowlevel import PTX_ATTR, LoadWidenedOp, RoundTF32Op, memory_space
from mdh_ir.driver import compile_module, lower
from mdh_ir.errors import MDHError
from mdh_ir.frontend import Buffer, cc as fcc, inp, inp_view, md_hom, mdh, out, out_view, pw as fpw
from mdh_ir.runtime import device_info
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.semantics.compare import L2_TOLERANCE, compare
from mdh_ir.semantics.precision import F32_ACCUMULATION, TF32_ROUNDING, precision_tolerance, round_tf32
from mdh_ir.semantics.reference import evaluate, find_compute, random_inputs
from tests.lowering_check import TEST_DEVICE, check_outputs, draw_config
from tests.test_mma import emulated

DRAWS = int(os.environ.get("MDH_DRAWS", "8"))
TYPES = {"f16": (f16, "ieee"), "bf16": (bf16, "ieee"), "tf32": (f32, "tf32")}


# --- the reference's rounding ------------------------------------------------------------


def independent_tf32(x: np.ndarray) -> np.ndarray:
    """TF32 rounding by arithmetic: the value divided by its TF32 ulp (2^(e-11) for
    x = m 2^e, m in [0.5, 1); 2^-136 below f32's normal range), rounded half to even
    (numpy's `round`), multiplied back, in float64 (exact), then as float32 (the largest
    values overflow to infinity, as they should)."""
    x64 = x.astype(np.float64)
    _, e = np.frexp(x64)
    ulp = np.ldexp(1.0, np.maximum(e, -125) - 11)
    with np.errstate(over="ignore"):
        return (np.round(x64 / ulp) * ulp).astype(np.float32)


def special_values() -> np.ndarray:
    bits = [
        0x3F801000,  # 1 + 2^-11: a tie, rounds down to the even 1.0
        0x3F803000,  # a tie above an odd mantissa: rounds up
        0x3F801001, 0x3F800FFF,  # just above and below a tie
        0x00000001, 0x00001000, 0x00003000, 0x007FFFFF,  # subnormals (ties among them)
        0x00800000, 0x7F7FE000, 0x7F7FEFFF, 0x7F7FF000, 0x7F7FFFFF,  # normal range ends
        0x7F800000, 0xFF800000, 0x80000000, 0x00000000,  # infinities and zeros
        0xBF803000, 0xC0401000,  # negative ties
    ]  # fmt: skip
    return np.array(bits, dtype=np.uint32).view(np.float32)


def test_round_tf32_matches_an_independent_rounding() -> None:
    rng = np.random.default_rng(0)
    random_bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([random_bits.view(np.float32), special_values()])
    x = x[~np.isnan(x)]
    got, want = round_tf32(x), independent_tf32(x)
    assert np.array_equal(got.view(np.uint32) & 0x1FFF, np.zeros_like(x, dtype=np.uint32))
    assert np.array_equal(got, want)
    tie = np.array([1 + 2.0**-11, 1 + 3 * 2.0**-11], dtype=np.float32)
    assert round_tf32(tie).tolist() == [1.0, 1 + 2 * 2.0**-10]


def test_round_tf32_keeps_nan() -> None:
    nans = np.array([0x7FC00000, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001], dtype=np.uint32).view(np.float32)
    assert np.isnan(round_tf32(nans)).all()


# --- generated code against the reference ------------------------------------------------


def matmul(t, precision: str, i: int, j: int, k: int) -> ModuleOp:
    return compute_module(
        "mm", {"i": i, "j": j, "k": k}, [Input("A", t, "i, k"), Input("B", t, "k, j")],
        [Output("C", f32, "i, j")], lambda a, b: a * b, [cc, cc, pw("add")], precision=precision,
    )  # fmt: skip


def conv(t, precision: str, n: int, p: int, c: int, kk: int) -> ModuleOp:
    """NHWC 3x3 convolution with zero padding 1, KRSC filter."""
    sizes = {"n": n, "p": p, "q": p, "k": kk, "r": 3, "s": 3, "c": c}
    x = Input("x", t, "n, p + r - 1, q + s - 1, c", "zero", (n, p, p, c))
    w = Input("w", t, "k, r, s, c")
    combine = [cc] * 4 + [pw("add")] * 3
    return compute_module("conv", sizes, [x, w], [Output("y", f32, "n, p, q, k")], lambda a, b: a * b, combine,
                          precision=precision)  # fmt: skip


def contraction(t, precision: str, a: int, b: int, d: int, c: int) -> ModuleOp:
    """out[a, b, d] = sum_c A[a, c, b] * B[c, d]."""
    sizes = {"a": a, "b": b, "d": d, "c": c}
    inputs = [Input("A", t, "a, c, b"), Input("B", t, "c, d")]
    return compute_module("tc", sizes, inputs, [Output("out", f32, "a, b, d")], lambda x, y: x * y,
                          [cc, cc, cc, pw("add")], precision=precision)  # fmt: skip


AWKWARD = [1, 13, 17, 31]
BUILDERS = {
    "matmul": lambda t, p, rng: matmul(t, p, *map(int, rng.choice(AWKWARD, 3))),
    "conv": lambda t, p, rng: conv(t, p, int(rng.choice([1, 2])), int(rng.choice([1, 5, 9])), int(rng.choice([1, 3, 17])), int(rng.choice([1, 4, 7]))),
    "contraction": lambda t, p, rng: contraction(t, p, *map(int, rng.choice([1, 5, 13, 17], 4))),
}  # fmt: skip


def config_for(op, seed: int):
    config = draw_config(op, device_info(TEST_DEVICE), np.random.default_rng(seed))
    assert config is not None, "no legal configuration found"
    return config


@pytest.mark.parametrize("type_name", list(TYPES))
@pytest.mark.parametrize("name", list(BUILDERS))
def test_random_configurations(name: str, type_name: str) -> None:
    t, precision = TYPES[type_name]
    for draw in range(DRAWS):
        seed = 1000 * list(BUILDERS).index(name) + 100 * list(TYPES).index(type_name) + draw
        rng = np.random.default_rng(seed)
        module = BUILDERS[name](t, precision, rng)
        op = find_compute(module)
        inputs = random_inputs(op, rng)
        config = config_for(op, seed)
        try:
            check_outputs(module, inputs, compile_module(module, TEST_DEVICE, config)(*inputs))
        except Exception as e:
            raise AssertionError(f"{name} {type_name} draw {draw} (seed {seed}), sizes {op.sizes}, config {config}: {e}") from e


def cached_types(module: ModuleOp) -> dict[str, set[str]]:
    """The element types (of vectors: their lanes') of the local and private arrays of
    the lowered `module` (prefetch stages hold vectors)."""
    found: dict[str, set[str]] = {"lcl": set(), "prv": set()}
    for alloca in module.walk():
        if isinstance(alloca, memref.AllocaOp):
            elem = alloca.memref.type.element_type
            found[memory_space(alloca.memref.type)].add(str(getattr(elem, "element_type", elem)))
    return found


@pytest.mark.parametrize("t", [f16, bf16], ids=str)
@pytest.mark.parametrize("prefetch", [0, 2])
def test_cached_16_bit_inputs_stay_16_bit(t, prefetch: int) -> None:
    """Local and private copies of f16/bf16 inputs hold 16-bit elements (half the
    traffic of floats); they become floats only as the computation reads them."""
    module = matmul(t, "ieee", 33, 17, 29)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["cpu"]).with_(
        num_wg=(3, 1, 1), num_wi=(4, 2, 1), lt_size=(16, 17, 8), pt_size=(4, 8, 8),
        inp_mem=(("lcl", "lcl"), ("prv", "glb")), prefetch=prefetch, vector_width=1,
    )  # fmt: skip
    assert violations(op, cfg, device_info(TEST_DEVICE)) == []
    compiled = compile_module(module, TEST_DEVICE, cfg)
    assert cached_types(compiled.lowered) == {"lcl": {str(t)}, "prv": {str(t), "f32"}}
    assert any(isinstance(o, LoadWidenedOp) for o in compiled.lowered.walk())
    rng = np.random.default_rng(1)
    inputs = random_inputs(op, rng)
    check_outputs(module, inputs, compiled(*inputs))


def product(precision: str, n: int, m: int) -> ModuleOp:
    return compute_module(
        "prod", {"i": n, "j": m}, [Input("A", f32, "i, j"), Input("B", f32, "i, j")],
        [Output("C", f32, "i, j")], lambda a, b: a * b, [cc, cc], precision=precision,
    )  # fmt: skip


@pytest.mark.parametrize("vector_width", [1, 4])
def test_tf32_rounds_every_read_exactly(vector_width: int) -> None:
    module = product("tf32", 7, 36)
    op = find_compute(module)
    cfg = default_config(op, PRESETS["cpu"]).with_(
        num_wg=(7, 1), num_wi=(1, 1), lt_size=(1, 36), pt_size=(1, 36), vector_width=vector_width,
        loop_order=((0, 1), (0, 1)),
    )  # fmt: skip
    assert violations(op, cfg, device_info(TEST_DEVICE)) == []
    compiled = compile_module(module, TEST_DEVICE, cfg)
    assert sum(isinstance(o, RoundTF32Op) for o in compiled.lowered.walk()) >= 2
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-2, 2, (7, 36)).astype(np.float32) for _ in range(2))
    a[0, :4] = [np.inf, -np.inf, np.nan, 0x7F7FFFFF]  # kept, kept, kept, rounded up to inf
    (got,) = compiled(a, b)
    want = round_tf32(a) * round_tf32(b)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.count_nonzero(got != a * b) > 200
    assert np.array_equal(evaluate(module, [a, b], promote=False)[0], want, equal_nan=True)


def test_the_reference_reads_16_bit_inputs_exactly() -> None:
    """The reference computes in float64 from the stored values: a sum of products of
    f16 inputs equals numpy's float64 matmul of the same values."""
    module = matmul(f16, "ieee", 5, 3, 300)
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-1, 1, s).astype(np.float16) for s in ((5, 300), (300, 3)))
    (got,) = evaluate(module, [a, b])
    assert got.dtype == np.float64
    assert np.array_equal(got, a.astype(np.float64) @ b.astype(np.float64))
    bf = rng.uniform(-1, 1, (5, 300)).astype(ml_dtypes.bfloat16)
    module = matmul(bf16, "ieee", 5, 3, 300)
    (got,) = evaluate(module, [bf, b.astype(ml_dtypes.bfloat16)])
    assert np.allclose(got, bf.astype(np.float64) @ b.astype(ml_dtypes.bfloat16).astype(np.float64), rtol=0, atol=1e-12)


def test_16_bit_arrays_are_passed_as_such_and_floats_rounded() -> None:
    """A float32 array for an f16 input is rounded to f16 (as numpy casts), both in the
    run and in the reference: the results agree."""
    module = matmul(bf16, "ieee", 4, 4, 8)
    rng = np.random.default_rng(4)
    a, b = (rng.uniform(-1, 1, (4, 8)).astype(np.float32), rng.uniform(-1, 1, (8, 4)).astype(np.float32))
    compiled = compile_module(module, TEST_DEVICE)
    (got,) = compiled(a, b)
    want = a.astype(ml_dtypes.bfloat16).astype(np.float64) @ b.astype(ml_dtypes.bfloat16).astype(np.float64)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6)
    assert not np.allclose(got, a.astype(np.float64) @ b, rtol=1e-6, atol=1e-6)


# --- refusals, tolerances, the device model and the mma decision --------------------------


def test_builder_refusals() -> None:
    """(The verifier's refusals of f16/bf16 outputs and of a scalar function taking
    them are lit tests: lit_tests/mdh/verify_types.mlir.)"""
    with pytest.raises(Exception, match='precision: "tf32" rounds f32 inputs, but input 0 has element type bf16'):
        matmul(bf16, "tf32", 4, 4, 4)
    with pytest.raises(Exception, match='precision: unknown precision "tf16"'):
        matmul(f32, "tf16", 4, 4, 4)


def test_tolerances() -> None:
    """f32 ops keep their tolerances; reduced-precision ones grow with the reduction."""
    assert precision_tolerance(find_compute(matmul(f32, "ieee", 4, 4, 1000))) == 0.0
    assert precision_tolerance(find_compute(matmul(f16, "ieee", 4, 4, 1000))) == 1000 * F32_ACCUMULATION
    assert precision_tolerance(find_compute(matmul(f32, "tf32", 4, 4, 10))) == TF32_ROUNDING + 10 * F32_ACCUMULATION
    halves, floats = matmul(f16, "ieee", 6, 6, 4096), matmul(f32, "ieee", 6, 6, 4096)
    inputs = random_inputs(find_compute(halves), np.random.default_rng(5))
    (want,) = evaluate(halves, inputs)
    reduced = precision_tolerance(find_compute(halves))
    off = (want * (1 + L2_TOLERANCE + 0.5 * reduced)).astype(np.float32)  # within f16's allowance only
    assert compare(halves, inputs, [off]).ok
    assert not compare(floats, [x.astype(np.float32) for x in inputs], [off]).ok
    assert not compare(halves, inputs, [(want * (1 + L2_TOLERANCE + 2 * reduced)).astype(np.float32)]).ok


def test_linalg_converts_16_bit_inputs() -> None:
    from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module

    def convert(text: str) -> ModuleOp:
        ctx = make_context()
        module = load_module(ctx, text, "linalg.mlir")
        ConvertLinalgToMDH().apply(ctx, module)
        return module

    text = """
    func.func @mm(%A: memref<5x7xf16>, %B: memref<7x3xbf16>, %C: memref<5x3xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                                       affine_map<(i, j, k) -> (i, j)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%A, %B : memref<5x7xf16>, memref<7x3xbf16>) outs(%C : memref<5x3xf32>) {
      ^bb0(%a: f16, %b: bf16, %c: f32):
        %x = arith.extf %a : f16 to f32
        %y = arith.extf %b : bf16 to f32
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %c, %p : f32
        linalg.yield %s : f32
      }
      func.return
    }
    """
    module = convert(text)
    op = find_compute(module)
    assert [str(t) for t in op.inp_types.data] == ["f16", "bf16", "f32"]
    assert [str(t) for t in op.input_read_types] == ["f32", "f32", "f32"]
    computing_on_halves = text.replace("%x = arith.extf %a : f16 to f32", "%h = arith.mulf %a, %a : f16\n %x = arith.extf %h : f16 to f32")
    with pytest.raises(MDHError, match="computes on f16 values"):
        convert(computing_on_halves)


def test_python_interface_takes_16_bit_buffers_and_precision() -> None:
    @mdh(out(w=Buffer[f32]), inp(M=Buffer[bf16], v=Buffer[f16]), precision="ieee")
    def matvec():
        def mul(out, inp):
            out["w"] = inp["M"] * inp["v"]

        return (
            out_view[f32](w=[lambda i, k: (i)]),
            md_hom[9, 31](mul, (fcc, fpw("add"))),
            inp_view[bf16, f16](M=[lambda i, k: (i, k)], v=[lambda i, k: (k)]),
        )

    rng = np.random.default_rng(6)
    m = rng.uniform(-1, 1, (9, 31)).astype(ml_dtypes.bfloat16)
    v = rng.uniform(-1, 1, 31).astype(np.float16)
    assert np.allclose(matvec(m, v), m.astype(np.float64) @ v.astype(np.float64), rtol=1e-5, atol=1e-6)

    @mdh(precision="tf32")
    def dot():
        def mul(out, inp):
            out["s"] = inp["x"] * inp["y"]

        return (out_view[f32](s=[lambda i: ()]), md_hom[8](mul, fpw("add")),
                inp_view[f32, f32](x=[lambda i: (i)], y=[lambda i: (i)]))  # fmt: skip

    assert find_compute(dot.module).input_precision == "tf32"


def test_device_model_knows_tensor_cores() -> None:
    assert not device_info(TEST_DEVICE).tensor_cores or TEST_DEVICE != "cpu"
    assert not PRESETS["cpu"].tensor_cores and PRESETS["gpu"].tensor_cores
    base = PRESETS["gpu"]
    assert DeviceInfo(**{**base.__dict__, "compute_capability": (8, 0)}).tensor_cores
    assert not DeviceInfo(**{**base.__dict__, "compute_capability": (7, 5)}).tensor_cores


def test_tf32_rounding_is_the_instruction_from_compute_capability_9() -> None:
    """`cvt.rn.tf32.f32` (ties to even, as `round_tf32`) exists from compute capability
    9.0; the lowering for such a device marks every rounding `ptx`, others keep the
    integer rounding (8.x has only `cvt.rna`, ties away from zero)."""
    module = product("tf32", 7, 36)
    op = find_compute(module)
    for capability, marked in (((9, 0), True), ((8, 0), False)):
        info = DeviceInfo(**{**PRESETS["gpu"].__dict__, "compute_capability": capability})
        assert info.tf32_conversion is marked
        lowered = lower(module, info, default_config(op, info))
        roundings = [o for o in lowered.walk() if isinstance(o, RoundTF32Op)]
        assert roundings and all((PTX_ATTR in o.attributes) is marked for o in roundings)
    assert not PRESETS["cpu"].tf32_conversion


def rules(op, cfg, device) -> list[str]:
    return [v.rule for v in violations(op, cfg, device)]


def test_mma_decision_rules() -> None:
    """`mma` other than "none" is refused on PoCL for want of tensor cores and for inputs
    it does not read; "none" breaks none of these rules; f16 fragments on f16 inputs
    break none (rule `mma`, what fragments need of the tiles: tests/test_mma.py)."""
    op = find_compute(matmul(f16, "ieee", 32, 16, 16))
    cfg = default_config(op, PRESETS["gpu"]).with_(
        num_wg=(1, 1, 1), num_wi=(2, 16, 1), lt_size=(32, 16, 16), pt_size=(16, 1, 16),
        inp_mem=(("lcl", "lcl"), ("glb", "glb")), res_mem=("prv",), vector_width=1,
    )  # fmt: skip
    assert rules(op, cfg, PRESETS["gpu"]) == []
    assert rules(op, cfg.with_(mma="f16"), PRESETS["cpu"]) == ["tensor-cores"]
    assert rules(op, cfg.with_(mma="f16"), PRESETS["gpu"]) == []
    assert rules(op, cfg.with_(mma="bf16"), PRESETS["gpu"]) == ["mma-inputs"]
    tf32, ieee = (find_compute(matmul(f32, p, 32, 16, 16)) for p in ("tf32", "ieee"))
    assert rules(tf32, cfg.with_(mma="tf32"), PRESETS["gpu"]) == []
    message = [v.message for v in violations(ieee, cfg.with_(mma="tf32"), PRESETS["gpu"])]
    assert message[0].startswith("mma 'tf32' rounds f32 inputs to TF32, which only the op's own precision")


def test_default_configuration_never_asks_for_tensor_cores() -> None:
    for device in PRESETS.values():
        for module in (matmul(f16, "ieee", 64, 64, 64), matmul(f32, "tf32", 64, 64, 64)):
            assert default_config(find_compute(module), device).mma == "none"
    assert isinstance(f16, Float16Type) and isinstance(bf16, BFloat16Type)
    lowered = lower(matmul(f16, "ieee", 8, 8, 8), PRESETS["cpu"])
    assert any(isinstance(o, LoadWidenedOp) for o in lowered.walk())


@pytest.mark.parametrize("type_name", list(TYPES))
def test_gpu_default_configuration_runs_on_pocl(type_name: str) -> None:
    """The GPU class's default configuration of 16-bit and TF32 inputs (local tiles,
    prefetching; warp fragments, which PoCL runs as FMAs: tests/test_mma.py, where the
    work-groups keep the compute units busy, as 4 work-groups keep 4, and each output
    sums enough products, 260 (`MMA_SHORTEST_SUM`); else FP32 FMAs with
    vectors of 16-bit copies) builds and computes the reference's result on PoCL, as it
    would on NVIDIA's OpenCL (no cl_khr_fp16 needed)."""
    t, precision = TYPES[type_name]
    module = matmul(t, precision, 129, 65, 260)
    op = find_compute(module)
    for units, mma in ((4, type_name), (132, "none")):
        cfg = default_config(op, replace(PRESETS["gpu"], compute_units=units))
        assert "lcl" in cfg.inp_mem[0] and cfg.mma == mma
        check_emulated(module, cfg)


def check_emulated(module: ModuleOp, cfg) -> None:
    """`module` in `cfg` on PoCL computes the reference's result, with no half type."""
    op = find_compute(module)
    inputs = random_inputs(op, np.random.default_rng(7))
    program = emulated(module, cfg)
    check_outputs(module, inputs, program(*inputs))
    assert "cl_khr_fp16" not in program.source
    assert not re.search(r"\bhalf\d*\s+\w", program.source), "a half variable, array or parameter"


def scan(t) -> ModuleOp:
    return compute_module("scan", {"b": 3, "n": 37}, [Input("x", t, "b, n")], [Output("y", f32, "b, n")],
                          lambda x: x, [cc, ps("add")])  # fmt: skip


def stencil(t, boundary: str) -> ModuleOp:
    return compute_module(
        "blur", {"i": 29, "j": 18}, [Input("x", t, ["i, j - 1", "i, j", "i + 1, j + 1"], boundary, (29, 18))],
        [Output("y", f32, "i, j")], lambda a, b, c: a - b * c, [cc, cc],
    )  # fmt: skip


@pytest.mark.parametrize("t", [f16, bf16], ids=str)
def test_scans_and_boundary_modes(t) -> None:
    """A prefix sum (its scan kernels read the inputs themselves) and a stencil under
    every boundary mode, with 16-bit inputs, under random configurations."""
    modules = [scan(t)] + [stencil(t, mode) for mode in ("clamp", "zero", "wrap", "mirror")]
    for k, module in enumerate(modules):
        op = find_compute(module)
        rng = np.random.default_rng(10 + k)
        inputs = random_inputs(op, rng)
        for seed in range(3):
            config = config_for(op, 100 * k + seed)
            check_outputs(module, inputs, compile_module(module, TEST_DEVICE, config)(*inputs))
