"""The tensor-core lowering (`mdh-mma`, `mma = "tf32"`, "f16", "bf16"), checked without a GPU.

The configuration checks see a model of the test device with tensor cores (compute
capability 9.0); the lowering for the test device itself has none, so each
`lowlevel.mma` runs as FMAs over the same fragment layout (`lowlevel-expand-mma`): the
fragment loads, accumulators and write-back run as on tensor cores and are compared
with the reference within the precision's tolerance (for f16 and bf16 the registers
packed two 16-bit elements each are unpacked and widened by the emulation).
tests/test_mma_gpu.py runs the inline PTX on an NVIDIA GPU.
"""

from __future__ import annotations

import dataclasses
from math import prod
from dataclasses import replace

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import IndexType, MemRefType, i32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from mdh_ir.builder import Input, Output, bf16, cc, compute_module, f16, f32, pw
from mdh_ir.catalog import sum_of_products
from mdh_ir.device import PRESETS
from mdh_ir.dialects.lowlevel import ALIGNMENT_ATTR, LCL, PRV, AsyncWaitOp, CpAsyncOp, KernelOp, LdMatrixOp, LoadWidenedOp, MmaOp, memory_space
from mdh_ir.driver.compiler import configure, lower_configured
from mdh_ir.emit_opencl import opencl_source
from mdh_ir.passes.lower_to_opencl import lowering
from mdh_ir.passes.mma import MDHMma
from mdh_ir.runtime import device_info, select_device
from mdh_ir.runtime.program import Program
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.schedule.mma import SHAPES, MmaForm, MmaPlan
from mdh_ir.schedule.tiling import ceildiv
from mdh_ir.tuning.space import LCL_PADS
from mdh_ir.schedule.tiling import TilePlan
from mdh_ir.semantics.reference import find_compute, random_inputs
from mdh_ir.schedule.constraints import mma_kind
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import TEST_DEVICE, check_outputs
from tests.test_fuse import fused, matmul_bias_relu, parse

DRAWS = 3


KINDS = {"tf32": (f32, "tf32"), "f16": (f16, "ieee"), "bf16": (bf16, "ieee")}
"""Per mma kind, the input type and precision of an op it computes."""


def matmul(i: int, j: int, k: int, transposed: bool = False, precision: str = "tf32", t=f32):
    """C[i, j] = sum_k A[i, k] B[k, j] of inputs of type `t` (B stored as [j, k] where
    `transposed`)."""
    b = "j, k" if transposed else "k, j"
    return sum_of_products("mm", {"i": i, "j": j, "k": k}, "i, k", b, "i, j", t, precision)


def kind_matmul(kind: str, i: int, j: int, k: int, transposed: bool = False):
    """The matmul that mma `kind` computes."""
    t, precision = KINDS[kind]
    return matmul(i, j, k, transposed, precision, t)


def with_tensor_cores(info):
    return dataclasses.replace(info, compute_capability=(9, 0))


MOST_WARP_MMAS = 32
"""The most `mma`s a warp issues per private tile in the configurations the random tests
draw: emulated on PoCL each is a barrier pair and 64 FMAs, and PoCL takes minutes to
build a work-group function of hundreds (a warp tile of 128 x 64 x 64: 256)."""


def mma_config(op, info, rng: np.random.Generator, tries: int = 20000):
    """A legal configuration with mma other than "none" drawn from the tuning space,
    of at most `MOST_WARP_MMAS` mmas a warp and private tile."""
    for _ in range(tries):
        try:
            cfg = sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
        if cfg.mma == "none":
            continue
        if warp_mmas(op, cfg) <= MOST_WARP_MMAS:
            return cfg
    raise AssertionError("no legal configuration with mma drawn")


def warp_mmas(op, cfg) -> int:
    """The `mma`s a warp issues per private tile of a legal configuration with mma, at
    every point of the outer dimensions."""
    plan = TilePlan(op, cfg)
    mma = MmaPlan.of(plan)
    assert isinstance(mma, MmaPlan), mma
    points = prod(plan.max_trips("pt", d) * cfg.pt_size[d] for d in mma.form.outer)
    return points * mma.frags_m * mma.frags_n * cfg.pt_size[mma.form.k] // mma.shape[2]


def emulated(module, cfg) -> Program:
    """`module` under `cfg`, checked for a device with tensor cores and built for the
    test device, where the mma ops become FMAs."""
    device = select_device(TEST_DEVICE)
    info = device_info(device)
    configured, _ = configure(module, with_tensor_cores(info), cfg)
    lowered = lower_configured(configured, info)
    assert not any(isinstance(o, MmaOp) for o in lowered.walk()) or info.tensor_cores
    return Program(lowered, opencl_source(lowered), device)


def run_emulated(module, cfg, inputs):
    """`module` under `cfg` run on the test device (`emulated`)."""
    return emulated(module, cfg)(*inputs)


def emulated_whole_tiles(module, cfg) -> Program:
    """`emulated`, but with whole local tiles along a padded k in a branch of their own
    (`MDHMma.whole_tiles`, as on a device with tensor cores)."""
    device = select_device(TEST_DEVICE)
    info = device_info(device)
    lowered, _ = configure(module, with_tensor_cores(info), cfg)
    for p in lowering(info.kind, info.tensor_cores, info.tf32_conversion, info.async_copies):
        (MDHMma(whole_tiles=True) if isinstance(p, MDHMma) else p).apply(Context(), lowered)
    return Program(lowered, opencl_source(lowered), device)


SIZES = [(16, 8, 8), (33, 17, 9), (128, 128, 64), (37, 29, 23), (31, 64, 17)]
SIZES_16 = [(32, 16, 16), (33, 17, 19), (128, 64, 64), (37, 29, 47), (31, 64, 33)]
"""Sizes for the 16-bit kinds, whose fragments take 16 along k."""


def check_random_configurations(kind: str, sizes, transposed: bool, seed0: int) -> None:
    module = kind_matmul(kind, *sizes, transposed=transposed)
    op = find_compute(module)
    info = with_tensor_cores(device_info(TEST_DEVICE))
    for draw in range(DRAWS):
        seed = seed0 + 10 * transposed + draw
        rng = np.random.default_rng(seed)
        cfg = mma_config(op, info, rng)
        assert cfg.mma == kind
        inputs = random_inputs(op, rng)
        try:
            check_outputs(module, inputs, run_emulated(module, cfg, inputs))
        except Exception as e:
            raise AssertionError(f"sizes {sizes} draw {draw} (seed {seed}), config {cfg}: {e}") from e


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("sizes", SIZES, ids=lambda s: "x".join(map(str, s)))
def test_random_mma_configurations(sizes, transposed: bool) -> None:
    check_random_configurations("tf32", sizes, transposed, 100 * SIZES.index(sizes))


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("sizes", SIZES_16, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_random_16_bit_mma_configurations(kind: str, sizes, transposed: bool) -> None:
    """f16 and bf16 fragments (m16n8k16, two elements a register) at awkward sizes: k
    of 19, 47 and 33 pads the last fragment step."""
    check_random_configurations(kind, sizes, transposed, 1000 + 100 * SIZES_16.index(sizes))


@pytest.mark.skipif(
    TEST_DEVICE == "cpu",
    reason="a form the lowering never gives PoCL (MDHMma.whole_tiles is on only with tensor "
    "cores): PoCL 3.1 miscompiles its emulated barriers inside the two branches; "
    "test_oclgrind runs this test on Oclgrind, and it runs on GPUs",
)
@pytest.mark.parametrize("kind", ["tf32", "f16"])
def test_whole_k_tiles_in_a_branch_of_their_own(kind: str) -> None:
    """Where k's local tiles are padded, the fragments of whole tiles compute without
    masks and those of the partial one with them (`MDHMma.whole_tiles`): random
    configurations with a padded k at awkward sizes give the reference's results."""
    sizes = (33, 17, 23) if kind == "tf32" else (37, 29, 47)
    module = kind_matmul(kind, *sizes, transposed=kind == "tf32")
    op = find_compute(module)
    info = with_tensor_cores(device_info(TEST_DEVICE))
    rng = np.random.default_rng(7)
    drawn = 0
    while drawn < 2:
        cfg = mma_config(op, info, rng)
        k = MmaForm.of(op).k
        if not TilePlan(op, cfg).padded(k) or cfg.lt_size[k] % cfg.pt_size[k]:
            continue
        drawn += 1
        program = emulated_whole_tiles(module, cfg)
        assert "^ true" in program.source  # the partial tile's branch
        inputs = random_inputs(op, rng)
        check_outputs(module, inputs, program(*inputs))


OUTER_FORMS = {
    "bmatmul": ({"b": 3, "i": 33, "j": 17, "k": 19}, "b, i, k", "b, k, j", "b, i, j"),
    "conv": (
        {"n": 2, "p": 2, "q": 20, "k": 16, "r": 3, "s": 2, "c": 17},
        "n, 2*p + r, 2*q + s, c", "k, r, s, c", "n, p, q, k",
    ),
    "conv-k-first": (
        {"n": 1, "p": 2, "q": 16, "k": 9, "r": 2, "s": 2, "c": 16}, "c, n, p + r, q + s", "c, r, s, k", "n, k, p, q"
    ),
    "contraction": ({"a": 3, "b": 17, "c": 8, "d": 2, "g": 17}, "g, d, a, b", "g, c, d", "a, b, c, d"),
}  # fmt: skip
"""Sums of products with dimensions besides the fragments' i, j and k (`MmaForm.outer`):
a batch, convolutions (k = c last in both inputs, or first in both, read by element), a
contraction whose rows and columns take one of several dimensions each."""


def outer_module(name: str, kind: str):
    """`OUTER_FORMS[name]` with mma `kind`'s inputs."""
    t, precision = KINDS[kind]
    sizes, a, b, out = OUTER_FORMS[name]
    return sum_of_products(name.replace("-", "_"), sizes, a, b, out, t, precision)


def outer_config(op, info, kind: str, rng: np.random.Generator):
    """A legal configuration with mma `kind` of an op with outer dimensions: a random
    warp tile (blocks of 16 or 32 rows by 8 to 32 columns, 32 or 64 work-items), one or
    two private tiles along i, j and k, random local and private tiles along the outer
    dimensions, layouts, loop orders, prefetch, padding and combine layer (the space
    draws a legal one of 7 dimensions too rarely to search for it)."""
    form = MmaForm.of(op)
    base = default_config(op, info)
    pw = [d for d, c in enumerate(op.combines) if c.kind == "pw"]
    for _ in range(2000):
        lt, pt, wi = [1] * op.rank, [1] * op.rank, [1] * op.rank
        for d, m in ((form.i, 16), (form.j, 8)):
            block = m * int(rng.choice([1, 2, 4 if d == form.j else 2]))
            wi[d] = int(rng.choice([w for w in (1, 2, 4, 8, 16, 32) if block % w == 0]))
            pt[d], lt[d] = block // wi[d], min(block * int(rng.integers(1, 3)), op.sizes[d])
        pt[form.k] = SHAPES[kind][2] * int(rng.integers(1, 3))
        lt[form.k] = pt[form.k] * int(rng.integers(1, 3))
        for d in form.outer:
            lt[d] = int(rng.integers(1, min(op.sizes[d], 3) + 1))
            pt[d] = int(rng.integers(1, lt[d] + 1))
        if prod(wi) not in (32, 64):
            continue
        wg = [1 if d in pw else ceildiv(n, lt[d]) // int(rng.integers(1, 3)) or 1 for d, n in enumerate(op.sizes)]
        prefetch = int(rng.integers(0, 4))
        layouts = tuple(tuple(rng.permutation(len(v.type.get_shape())).tolist()) for v in op.inputs)
        cfg = base.with_(
            num_wg=tuple(wg), num_wi=tuple(wi), lt_size=tuple(lt), pt_size=tuple(pt),
            inp_mem=(("lcl", "lcl"), ("glb", "glb")), res_mem=("prv",), vector_width=1, mma=kind,
            ocl_dim=tuple(tuple(int(rng.integers(0, 3)) if n > 1 else 2 for n in ns) for ns in (wg, wi)),
            buf_layout=(layouts, base.buf_layout[1]),
            loop_order=tuple(tuple(rng.permutation(op.rank).tolist()) for _ in range(2)),
            combine_layer=str(rng.choice(["end", "lt"])), prefetch=prefetch,
            stages=int(rng.integers(2, 5)) if prefetch == 3 else 2,
            lcl_pad=int(rng.choice(LCL_PADS)), wg_combine="kernel",
        )  # fmt: skip
        if not violations(op, cfg, info) and warp_mmas(op, cfg) <= MOST_WARP_MMAS:
            return cfg
    raise AssertionError("no legal configuration with mma found")


@pytest.mark.parametrize("name", list(OUTER_FORMS))
@pytest.mark.parametrize("kind", list(KINDS))
def test_random_mma_configurations_with_outer_dimensions(kind: str, name: str) -> None:
    """Fragments computed at every point of the outer dimensions (kept ones: fragments
    per point; pw ones: summed into the same fragments, a padded point skipped)."""
    module = outer_module(name, kind)
    op = find_compute(module)
    assert MmaForm.of(op).outer
    info = with_tensor_cores(device_info(TEST_DEVICE))
    for draw in range(DRAWS):
        seed = 3000 + 100 * list(OUTER_FORMS).index(name) + 10 * list(KINDS).index(kind) + draw
        rng = np.random.default_rng(seed)
        cfg = outer_config(op, info, kind, rng)
        inputs = random_inputs(op, rng)
        try:
            check_outputs(module, inputs, run_emulated(module, cfg, inputs))
        except Exception as e:
            raise AssertionError(f"{name} draw {draw} (seed {seed}), config {cfg}: {e}") from e


INSTRUCTIONS = {
    "tf32": "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "f16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "bf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_lowered_with_tensor_cores_holds_the_mma(kind: str) -> None:
    """For a device with tensor cores the lowering keeps `lowlevel.mma` (printed as
    inline PTX) and reads no input in the private-tile loops any more; the 16-bit kinds'
    A and B registers are 32-bit words of two elements, never widened to floats."""
    module = kind_matmul(kind, 64, 32, 32)
    op = find_compute(module)
    info = with_tensor_cores(PRESETS["gpu"])
    cfg = mma_config(op, info, np.random.default_rng(0))
    configured, _ = configure(module, info, cfg)
    lowered = lower_configured(configured, info)
    mmas = [o for o in lowered.walk() if isinstance(o, MmaOp)]
    assert mmas and all(o.kind.data == kind for o in mmas)
    registers = {str(v.type) for o in mmas for v in [*o.a, *o.b]}
    assert registers == {"f32" if kind == "tf32" else "i32"}
    assert not any(isinstance(o, LoadWidenedOp) for o in lowered.walk())
    assert INSTRUCTIONS[kind] in opencl_source(lowered)


@pytest.mark.parametrize("kind", list(KINDS))
def test_mma_op_takes_its_kinds_registers(kind: str) -> None:
    """TF32 registers are f32, a 16-bit kind's i32 (two elements each)."""
    block = Block(arg_types=[f32, i32])
    words = {"f32": block.args[0], "i32": block.args[1]}
    right = "f32" if kind == "tf32" else "i32"
    for register, ok in ((right, True), ({"f32": "i32", "i32": "f32"}[right], False)):
        mma = MmaOp(kind, [words[register]] * 4, [words[register]] * 2, [block.args[0]] * 4)
        if ok:
            mma.verify()
        else:
            with pytest.raises(VerifyException, match=f"registers are {right}"):
                mma.verify()


def test_ldmatrix_verifier() -> None:
    """`lowlevel.ldmatrix` reads 16-byte rows of f32, f16 or bf16 from local memory
    into 1, 2 or 4 registers (f32, or i32 of two 16-bit elements), transposed only for
    16-bit elements."""
    def ldmatrix(element, shape=(16, 8), space=LCL, count=4, trans=False):
        block = Block(arg_types=[MemRefType(element, shape, memory_space=space), IndexType(), IndexType()])
        return LdMatrixOp(block.args[0], block.args[1:], count, trans)

    ldmatrix(f32).verify()
    ldmatrix(f16, trans=True).verify()
    assert [str(r.type) for r in ldmatrix(bf16, count=2).d] == ["i32", "i32"]
    for bad, message in [
        (lambda: ldmatrix(f32, trans=True), "transposed ldmatrix takes 16-bit elements"),
        (lambda: ldmatrix(f32, shape=(16, 6)), "multiple of 16 bytes"),
        (lambda: ldmatrix(f16, shape=(16, 12)), "multiple of 16 bytes"),
        (lambda: ldmatrix(f32, space=PRV), "reads local memory"),
        (lambda: ldmatrix(f32, count=3), "1, 2 or 4 matrices"),
        (lambda: ldmatrix(i32), "f32, f16 or bf16"),
    ]:
        with pytest.raises(VerifyException, match=message):
            bad().verify()


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_ldmatrix_transposed_in_a_local_tile_not_a_multiple_of_8(kind: str) -> None:
    """A transposed `ldmatrix` reads 8 rows of a k-first copy from an address at a
    multiple of 8 rows from the tile's start; in a local tile of 31 rows (a copy row of
    31 + 1 elements) the lanes of the rows beyond it keep that alignment and the tile's
    own rows 24-30 in place (they were read one row off: error 0.66)."""
    module = kind_matmul(kind, 31, 64, 33)
    op = find_compute(module)
    info = with_tensor_cores(device_info(TEST_DEVICE))
    cfg = default_config(op, info).with_(**{
        **MMA_BASE, "mma": kind, "num_wi": (8, 4, 1), "lt_size": (31, 64, 32), "pt_size": (4, 16, 16),
        "buf_layout": (((1, 0), (1, 0)), ((0, 1), (0, 1))), "lcl_pad": 1, "prefetch": 1,
    })  # fmt: skip
    assert rules(op, cfg, info) == []
    configured, _ = configure(module, info, cfg)
    loads = [o for o in lower_configured(configured, info).walk() if isinstance(o, LdMatrixOp)]
    assert loads and all(o.trans is not None for o in loads)
    inputs = random_inputs(op, np.random.default_rng(31))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def test_async_copy_ops_verifier() -> None:
    """`lowlevel.cp_async` moves 4, 8 or 16 bytes from global to local memory;
    `lowlevel.async_wait` leaves no negative number of groups pending and prints the
    number it leaves (none: every copy)."""
    block = Block(arg_types=[MemRefType(f32, (8,)), MemRefType(f32, (8,), memory_space=LCL), IndexType()])
    glb, lcl, i = block.args
    CpAsyncOp(glb, [i], lcl, [i], 16).verify()
    for bad, message in [
        (lambda: CpAsyncOp(glb, [i], lcl, [i], 12), "4, 8 or 16 bytes"),
        (lambda: CpAsyncOp(lcl, [i], glb, [i], 4), "from global to local memory"),
        (lambda: AsyncWaitOp(-1), "not a negative one"),
    ]:
        with pytest.raises(VerifyException, match=message):
            bad().verify()
    assert (AsyncWaitOp(2).groups_pending, AsyncWaitOp().groups_pending) == (2, 0)
    assert "pending" not in str(AsyncWaitOp()) and "pending 2" in str(AsyncWaitOp(2))


def rules(op, cfg, info) -> list[str]:
    return [v.rule for v in violations(op, cfg, info)]


MMA_BASE = dict(
    num_wg=(1, 1, 1), num_wi=(2, 16, 1), lt_size=(32, 16, 8), pt_size=(16, 1, 8),
    inp_mem=(("lcl", "lcl"), ("glb", "glb")), res_mem=("prv",), combine_layer="end", vector_width=1, mma="tf32",
)  # fmt: skip


def test_mma_rule() -> None:
    """Rule `mma` says why fragments cannot compute a configuration's private tiles."""
    op = find_compute(matmul(32, 16, 8))
    info = with_tensor_cores(PRESETS["gpu"])
    cfg = default_config(op, info).with_(**MMA_BASE)
    assert rules(op, cfg, info) == []
    assert rules(op, cfg, PRESETS["cpu"]) == ["tensor-cores"]

    def message(**changes) -> str:
        found = [v for v in violations(op, cfg.with_(**changes), info) if v.rule == "mma"]
        assert found, changes
        return found[0].message

    assert "no whole number of warps" in message(num_wi=(1, 16, 1), lt_size=(16, 16, 8))
    assert "inp_mem 'lcl'" in message(inp_mem=(("lcl", "glb"), ("glb", "glb")))
    assert "multiple of the fragment's K = 8" in message(pt_size=(16, 1, 4), lt_size=(32, 16, 4))
    half = find_compute(kind_matmul("f16", 32, 16, 16))
    f16_cfg = default_config(half, info).with_(**{**MMA_BASE, "mma": "f16"})
    assert rules(half, f16_cfg.with_(lt_size=(32, 16, 16), pt_size=(16, 1, 16)), info) == []
    found = [v.message for v in violations(half, f16_cfg, info) if v.rule == "mma"]
    assert found and "multiple of the fragment's K = 16" in found[0]
    assert "block of 8 x 8" in message(pt_size=(2, 1, 8), num_wi=(4, 8, 1), lt_size=(8, 8, 8))
    assert "combine_layer 'end' or 'lt'" in message(combine_layer="pt")
    other = find_compute(compute_module(
        "mx", {"i": 32, "j": 16, "k": 8}, [Input("A", f32, "i, k"), Input("B", f32, "k, j")],
        [Output("C", f32, "i, j")], lambda x, y: x + y, [cc, cc, pw("add")], precision="tf32",
    ))  # fmt: skip
    found = [v.message for v in violations(other, cfg, info) if v.rule == "mma"]
    assert found == ["the scalar function is not one multiplication of its two inputs"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_mma_drawn_only_with_tensor_cores_and_its_inputs(kind: str) -> None:
    op = find_compute(kind_matmul(kind, 64, 64, 64))
    ieee = find_compute(matmul(64, 64, 64, precision="ieee"))
    mixed = find_compute(compute_module(
        "mm", {"i": 64, "j": 64, "k": 64}, [Input("A", f16, "i, k"), Input("B", bf16, "k, j")],
        [Output("C", f32, "i, j")], lambda x, y: x * y, [cc, cc, pw("add")],
    ))  # fmt: skip
    gpu, cpu = PRESETS["gpu"], PRESETS["cpu"]
    assert gpu.tensor_cores and not cpu.tensor_cores
    assert mma_kind(op, gpu) == kind
    assert mma_kind(op, cpu) == "none"
    assert mma_kind(ieee, gpu) == mma_kind(mixed, gpu) == "none"
    short = 4 if kind == "tf32" else 8  # below the fragment's K
    assert mma_kind(find_compute(kind_matmul(kind, 64, 64, short)), gpu) == "none"
    rng = np.random.default_rng(1)
    drawn: dict[str, set[str]] = {"gpu": set(), "cpu": set()}
    for _ in range(300):
        for name, info in (("gpu", gpu), ("cpu", cpu)):
            try:
                drawn[name].add(sample_config(op, info, RandomTrial(rng)).mma)
            except Infeasible:
                pass
    assert drawn == {"gpu": {"none", kind}, "cpu": {"none"}}


@pytest.mark.parametrize("sizes", [(256, 128, 264), (300, 200, 280)], ids=lambda s: "x".join(map(str, s)))
def test_gpu_default_computes_tf32_on_fragments(sizes) -> None:
    """On a GPU with tensor cores (here of 4 compute units, which these sizes keep busy)
    the default configuration of a TF32 matrix product takes the fragments (whole and
    partial work-group tiles; k of 264 and 280: padded local tiles of 16, each mma
    twice, for whole local tiles and for the partial one), its copies
    round the inputs once, A keeps its layout (k last) in local memory, where
    `ldmatrix` loads its fragments, and its results match the reference; the same
    product in IEEE precision keeps FP32 FMAs."""
    module = matmul(*sizes)
    op = find_compute(module)
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=4)
    cfg = default_config(op, gpu)
    assert cfg.mma == "tf32" and not violations(op, cfg, gpu)
    assert default_config(find_compute(matmul(*sizes, precision="ieee")), gpu).mma == "none"
    configured, _ = configure(module, gpu, cfg)
    lowered = lower_configured(configured, gpu)
    warp_frags = (cfg.lt_size[0] * cfg.lt_size[1]) // (cfg.num_wi[0] * cfg.num_wi[1] // 32) // (16 * 8)
    # twice: whole local tiles along k without masks, the partial one with them
    assert sum(isinstance(o, MmaOp) for o in lowered.walk()) == 2 * warp_frags
    assert cfg.buf_layout[0][0] == (0, 1) and any(isinstance(o, LdMatrixOp) for o in lowered.walk())
    inputs = random_inputs(op, np.random.default_rng(sum(sizes)))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


GPU_DEFAULT_TILES = {
    "tf32": [((4096,) * 3, (128, 128), 1), ((2000,) * 3, (128, 128), 1), ((1000,) * 3, (64, 128), 1),
             ((128, 4096, 4096), (128, 128), 4), ((768,) * 3, (16, 64), 1), ((500,) * 3, (16, 64), 2),
             ((16, 1000, 2048), (16, 64), 16), ((20, 8192, 1024), (16, 64), 4), ((48, 4096, 4096), (16, 64), 4),
             ((2302, 71, 2296), (16, 64), 2), ((16, 512, 512), None, 1), ((89, 137, 204), None, 1)],
    "f16": [((4096,) * 3, (128, 128), 1), ((2000,) * 3, (128, 128), 1), ((1536,) * 3, (64, 128), 1),
            ((1024,) * 3, (64, 128), 1), ((1000,) * 3, (64, 128), 1), ((128, 4096, 4096), (128, 128), 4),
            ((256, 256, 8192), (64, 64), 8), ((768,) * 3, (64, 64), 1), ((384,) * 3, (64, 64), 1),
            ((256,) * 3, (16, 64), 2), ((16, 1000, 2048), (16, 64), 8), ((20, 4096, 4096), (16, 128), 4),
            ((2924, 76, 2643), (16, 64), 2), ((1025,) * 3, (64, 128), 1)],
}  # fmt: skip
"""Sizes, the GPU default's work-group tile on tensor cores (None: the FP32 path) and the
work-groups its sum is split over."""
UNPIPELINED = {(256, 256, 256)}
"""Sizes of `GPU_DEFAULT_TILES` whose rows `cp.async` could move, but where no tile of
asynchronous copies keeps the compute units busy, and those without take over."""


@pytest.mark.parametrize("kind", ["tf32", "f16", "bf16"])
def test_gpu_default_tile_keeps_the_compute_units_busy(kind: str) -> None:
    """The GPU default on tensor cores takes the largest work-group tile whose
    work-groups keep 3/4 of the compute units busy (132 here). TF32: 128 x 128 at
    4096^3 and 2000^3 (256 work-groups), 64 x 128 at 1000^3 (128 of them); at
    768^3 no tile does, and the FP32 path computes it (128 x 4096 x 4096: see the split
    below). f16 / bf16
    (asynchronous copies): 128 x 128 where it gives 1.5 work-groups a compute unit
    (2000^3: 256; not 1536^3: 144), else 64 x 128, or 64 x 64 down to 1/8 of the
    compute units (768^3: 144 work-groups, 384^3: 36), below that (256^3: 16) the
    tiles without asynchronous copies (16 x 64 of one warp, split 2 ways);
    k in local tiles of 32 (64 for 16 x 64 tiles, `FEW_ROWS_K_TILE`), rows swizzled,
    as many slots (at most 4) as the 48 KB of local memory hold: 3 for 128 x 128, 4 for
    the others. TF32 and 16-bit rows that `cp.async` cannot move (1025^3, 2924 x 76
    x 2643): two slots, rows padded, k tiles of 32 where a work-item accumulates at
    most 64 outputs (`LONG_K_TILE`), else 16 (128 x 128).
    Where the tiles leave compute units idle (fewer than 1.5 work-groups a compute
    unit, or none keeping 3/4 busy) and the sum is long, it is split over work-groups,
    each reading 16 input elements per partial result: 128 x 4096 x 4096 in 128 x 128
    tiles 4 ways (1024 products each), 256 x 256 x 8192 in 64 x 64 tiles 8 ways;
    not 1024^3 (512 products each would be too few in 128 x 128 tiles, and 64 x 128
    ones give 128 work-groups unsplit). Fewer than 32 rows take tiles of 16 rows:
    16-bit kinds 16 x 1000 x 2048 in 16 x 64 tiles split 8 ways (256 products each),
    20 x 4096 x 4096 in 16 x 128 tiles (two along the rows) split 4 ways; TF32 in 16 x 64
    tiles of one warp, split until they give 4 work-groups a compute unit, each summing
    at least 128 products, wherever the rows are fewer than 64: 16 x 1000 x 2048 16 ways,
    20 x 8192 x 1024 (256 work-groups unsplit) 4 ways, 48 x 4096 x 4096 4 ways;
    16 x 512 x 512 (8 tiles, 4 ways at most) and 89 x 137 x 204 the FP32 path. Tiles
    without asynchronous copies take those 16 x 64 tiles of one warp at any rows where
    no larger tile keeps 3/4 of the compute units busy: TF32 768^3 (576 work-groups),
    500^3 and 2302 x 71 x 2296 2 ways, f16 2924 x 76 x 2643 (rows of 2643 halves) 2
    ways. The last of a split's work-groups to finish combines their partial results
    (`_split`)."""
    gpu = with_tensor_cores(PRESETS["gpu"])
    for sizes, tile, splits in GPU_DEFAULT_TILES["tf32" if kind == "tf32" else "f16"]:
        cfg = default_config(find_compute(kind_matmul(kind, *sizes)), gpu)
        assert (cfg.mma, cfg.lt_size[:2]) == ((kind, tile) if tile else ("none", cfg.lt_size[:2])), sizes
        if tile and kind != "tf32" and all(n % 4 == 0 for n in sizes[1:]) and sizes not in UNPIPELINED:
            k_tile = 64 if tile == (16, 64) else 32
            assert (cfg.lt_size[2], cfg.stages, cfg.lcl_swizzle, cfg.lcl_pad) == (k_tile, 3 if tile == (128, 128) else 4, 1, 0), sizes
        elif tile:
            k_tile = 16 if tile == (128, 128) else 32
            assert (cfg.lt_size[2], cfg.stages, cfg.lcl_swizzle, cfg.lcl_pad) == (k_tile, 2, 0, 8), sizes
        assert not tile or cfg.num_wg[2] == splits, (sizes, cfg.num_wg)
        assert cfg.wg_combine == ("last" if tile and splits > 1 else "kernel"), sizes


@pytest.mark.parametrize("kind", ["f16", "bf16", "tf32"])
def test_gpu_default_of_few_rows_matches_the_reference(kind: str) -> None:
    """The GPU default of 20 rows (4 compute units): tiles of 16 rows (16 x 64 for TF32),
    two along the rows (the second padded), the sum split over work-groups; the
    reference's results."""
    module = kind_matmul(kind, 20, 200, 1032)
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=4)
    cfg = default_config(find_compute(module), gpu)
    tile = (16, 64) if kind == "tf32" else (16, 128)
    assert (cfg.mma, cfg.lt_size[:2], cfg.num_wg[0]) == (kind, tile, 2) and cfg.num_wg[2] > 1, cfg
    inputs = random_inputs(find_compute(module), np.random.default_rng(5))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def test_gpu_default_of_few_rows_and_columns_matches_the_reference() -> None:
    """The f16 GPU default of 20 x 100 x 1032 (4 compute units): 16 x 64 tiles with k in
    local tiles of 64 (`FEW_ROWS_K_TILE`; 1032 leaves a partial last one) in 4 slots;
    the reference's results."""
    module = kind_matmul("f16", 20, 100, 1032)
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=4)
    cfg = default_config(find_compute(module), gpu)
    assert (cfg.mma, cfg.lt_size, cfg.stages) == ("f16", (16, 64, 64), 4), cfg
    inputs = random_inputs(find_compute(module), np.random.default_rng(6))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def test_gpu_default_without_async_tiles_takes_the_tiles_without() -> None:
    """f16 165 x 68 x 4856, whose rows `cp.async` can move, but whose tiles of
    asynchronous copies (at most 64 columns: 6 work-groups of 64 x 64 at 132 compute
    units) keep too few busy: the 16 x 64 tiles of one warp without them, split, not
    the FP32 path; the reference's results (on 64 compute units: 100 x 68 x 1032)."""
    gpu = with_tensor_cores(PRESETS["gpu"])
    cfg = default_config(find_compute(kind_matmul("f16", 165, 68, 4856)), gpu)
    assert (cfg.mma, cfg.lt_size[:2], cfg.prefetch) == ("f16", (16, 64), 1) and cfg.num_wg[2] > 1, cfg
    module = kind_matmul("f16", 100, 68, 1032)
    small = default_config(find_compute(module), replace(gpu, compute_units=64))
    assert (small.mma, small.lt_size[:2], small.prefetch) == ("f16", (16, 64), 1), small
    inputs = random_inputs(find_compute(module), np.random.default_rng(7))
    check_outputs(module, inputs, run_emulated(module, small, inputs))


def test_copies_of_rows_of_even_length_move_aligned_pairs() -> None:
    """A local copy from rows of 2 more than a multiple of 4 elements (f16 72 x 178 x 94:
    B's rows of 178) moves 2 elements at a time, aligned (one 4-byte load; NVIDIA's
    OpenCL splits an unaligned `vload4` into scalar loads); the reference's results."""
    module = kind_matmul("f16", 72, 178, 94)
    gpu = with_tensor_cores(PRESETS["gpu"])
    cfg = default_config(find_compute(module), gpu)
    lowered = lower_configured(configure(module, gpu, cfg)[0], gpu)
    loads = {
        (o.result.type.get_shape()[0], o.attributes[ALIGNMENT_ATTR].value.data if ALIGNMENT_ATTR in o.attributes else 0)
        for o in lowered.walk() if isinstance(o, vector.LoadOp) and memory_space(o.base.type) == "glb"
    }  # fmt: skip
    assert loads == {(2, 4)}, loads
    inputs = random_inputs(find_compute(module), np.random.default_rng(8))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def conv(kind: str, n: int, p: int, k: int, r: int, c: int, stride: int = 1):
    """ResNet-50's convolution out[n, p, q, k] = sum x[n, σp + r, σq + s, c] w[k, r, s, c]
    (p = q, r = s) with mma `kind`'s inputs."""
    t, precision = KINDS[kind]
    sizes = dict(n=n, p=p, q=p, k=k, r=r, s=r, c=c)
    x = f"n, {stride}*p + r, {stride}*q + s, c"
    return sum_of_products("mcc", sizes, x, "k, r, s, c", "n, p, q, k", t, precision)


def test_space_draws_whole_fragments_and_warps() -> None:
    """Where the space draws a kind, the work-items and tiles along the fragments' rows
    and columns can give whole fragments and warps (`space._warp_shapes`): of 1000
    random draws of a batch-32 convolution some are legal configurations on fragments
    (1 of 2000 before), and every drawn one has a whole-warp work-group."""
    op = find_compute(conv("f16", 32, 28, 128, 3, 128))
    info = with_tensor_cores(PRESETS["gpu"])
    rng = np.random.default_rng(0)
    drawn = []
    for _ in range(1000):
        try:
            cfg = sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
        if cfg.mma != "none":
            drawn.append(cfg)
    assert len(drawn) >= 5
    assert all(TilePlan(op, cfg).wg_size % 32 == 0 and isinstance(MmaPlan.of(TilePlan(op, cfg)), MmaPlan) for cfg in drawn)


@pytest.mark.parametrize("case", ["f16-product", "tf32-convolution"])
def test_gpu_default_without_async_copies_matches_the_reference(case: str) -> None:
    """The GPU default's tiles where `cp.async` does not fill the local tiles (4 compute
    units): an f16 product of 70 rows whose rows of 101 halves no copy of 8 bytes
    moves, in 16 x 64 tiles of one warp although it has more than 64 rows (no larger
    tile fits it), k in local tiles of 32 (the last padded); a TF32 convolution at
    batch 32 in 32 x 128 tiles of 4 warps (its 25 pixels give the work-groups without a
    split), two pixels a work-group, k tiles of 32. Both compute the reference's results."""
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=4)
    if case == "f16-product":
        kind, module, tile, wi, q = "f16", kind_matmul("f16", 70, 90, 101), (16, 64), (2, 16), None
    else:
        kind, module, tile, wi, q = "tf32", conv("tf32", 32, 5, 128, 1, 32), (32, 128), (4, 32), 2
    op = find_compute(module)
    cfg = default_config(op, gpu)
    form = MmaForm.of(op)
    assert cfg.mma == kind and cfg.prefetch == 1, cfg
    assert (cfg.lt_size[form.i], cfg.lt_size[form.j], cfg.lt_size[form.k]) == (*tile, 32), cfg
    assert (cfg.num_wi[form.i], cfg.num_wi[form.j]) == wi and (q is None or cfg.lt_size[2] == q), cfg
    inputs = random_inputs(op, np.random.default_rng(13))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def test_gpu_default_convolutions_and_batches_on_fragments() -> None:
    """The GPU default (132 compute units) computes ResNet-50's convolutions at batch 32
    on fragments: rows along the batch (32 x 128 tiles), the filter taps r, s outer,
    k = c in local tiles of `ASYNC_K_TILE` (32) in 3 slots, two output pixels along q a
    work-group where that leaves `PAIRED_BUSY` work-groups a compute unit (conv3:
    392; conv4: 196 would not, one pixel each), 3 slots deep either way (paired: 36 KB);
    conv5's 196 work-groups (fewer than 1.5 a compute unit) split the sum over two
    work-groups each; at batch 16, tiles of 16 rows (2 warps); a batched product with a
    sum of 8 stays on the FP32 path (`MMA_SHORTEST_SUM`), one of 16 or 512 takes
    fragments, one batch a work-group (both inputs read the batch: no pairing). A
    paired work-group of a sum of `PAIRED_WARPS_SUM` products or more has 2 warps
    (conv3 3 x 3, 1152 products), one of a shorter sum 4 (1 x 1, 128)."""
    gpu = with_tensor_cores(PRESETS["gpu"])
    q, c_ = 2, 6
    for sizes, lt, paired, splits, wi in [
        ((32, 28, 128, 3, 128), 32, True, 1, 2), ((32, 14, 256, 3, 256), 32, False, 1, 4),
        ((32, 7, 512, 3, 512), 32, False, 2, 4), ((32, 28, 512, 1, 128), 32, True, 1, 4),
    ]:  # fmt: skip
        op = find_compute(conv("f16", *sizes))
        cfg = default_config(op, gpu)
        assert (cfg.mma, cfg.num_wi[0], cfg.lt_size[0], cfg.lt_size[c_]) == ("f16", wi, 32, lt), sizes
        assert (cfg.lt_size[q], cfg.stages) == (2 if paired else 1, 3), sizes
        assert cfg.num_wg[c_] == splits, sizes
    assert default_config(find_compute(conv("tf32", 32, 28, 128, 3, 128)), gpu).mma == "tf32"
    batch16 = default_config(find_compute(conv("f16", 16, 28, 128, 3, 128)), gpu)
    assert (batch16.mma, batch16.lt_size[0], batch16.num_wi[0]) == ("f16", 16, 2)
    for k, mma in ((8, "none"), (16, "f16"), (512, "f16")):
        op = find_compute(sum_of_products("bmm", dict(b=32, i=512, j=512, k=k), "b, i, k", "b, k, j", "b, i, j", f16))
        cfg = default_config(op, gpu)
        assert cfg.mma == mma and (mma == "none" or cfg.lt_size[0] == 1), k


@pytest.mark.parametrize("kind", list(KINDS))
def test_gpu_default_convolution_matches_the_reference(kind: str) -> None:
    """The GPU default of a small convolution at batch 32 (4 compute units: two output
    pixels a work-group, 32 x 64 tiles) computes the reference's results."""
    module = conv(kind, 32, 5, 64, 3, 32 if kind == "tf32" else 48)
    op = find_compute(module)
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=4)
    cfg = default_config(op, gpu)
    assert cfg.mma == kind and cfg.lt_size[2] == 2 and cfg.lt_size[3] == 64, cfg
    inputs = random_inputs(op, np.random.default_rng(7))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


def test_gpu_default_of_two_warps_matches_the_reference() -> None:
    """The GPU default of an f16 convolution at batch 32 with a sum of 576 products (2
    compute units: two output pixels a work-group of 2 warps, 32 x 128 tiles,
    `_fewer_warps`) computes the reference's results (bf16 differs only in its
    elements' conversion, which the other tests cover)."""
    kind = "f16"
    module = conv(kind, 32, 3, 128, 3, 64)
    op = find_compute(module)
    gpu = replace(with_tensor_cores(PRESETS["gpu"]), compute_units=2)
    cfg = default_config(op, gpu)
    assert (cfg.mma, cfg.num_wi[0], cfg.lt_size[2], cfg.lt_size[3]) == (kind, 2, 2, 128), cfg
    inputs = random_inputs(op, np.random.default_rng(11))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


@pytest.mark.parametrize(
    "kind, trans", [("tf32", False), ("f16", False), ("f16", True), ("bf16", False), ("bf16", True)]
)
def test_ldmatrix_loads_fragments(kind: str, trans: bool) -> None:
    """Local copies whose rows hold k (A as [i][k], B as [j][k]) or, for the 16-bit
    kinds, the fragment's rows (A as [k][i], B as [k][j], `trans`) are loaded by
    `ldmatrix`: two x4 for A's two fragments, one x4 for B's two, in partial
    work-group tiles (37 x 29: the last rows clamped inside the copy) and a padded
    local tile along k (23, 47: its elements beyond the tile dropped, in the partial
    local tile's computation); the results match the reference."""
    k = 23 if kind == "tf32" else 47
    module = kind_matmul(kind, 37, 29, k, transposed=not trans)
    op = find_compute(module)
    info = with_tensor_cores(device_info(TEST_DEVICE))
    fragment_k = 8 if kind == "tf32" else 16
    layout = (1, 0) if trans else (0, 1)
    base = default_config(op, info)
    cfg = base.with_(**{
        **MMA_BASE, "mma": kind, "num_wg": (2, 2, 1), "lt_size": (32, 16, 16), "pt_size": (16, 1, fragment_k),
        "buf_layout": ((layout, (0, 1)), base.buf_layout[1]), "lcl_pad": 8,
    })  # fmt: skip
    assert rules(op, cfg, info) == []
    configured, _ = configure(module, info, cfg)
    loads = [o for o in lower_configured(configured, info).walk() if isinstance(o, LdMatrixOp)]
    sources = sorted((o.source.type.get_shape(), o.trans is not None, len(o.d)) for o in loads)
    a_shape, b_shape = ((16, 40), (16, 24)) if trans else ((32, 24), (16, 24))
    # twice: for the whole local tiles along k and for the partial one (`whole_tiles`)
    assert sources == sorted(([(a_shape, trans, 4)] * 2 + [(b_shape, trans, 4)]) * 2), sources
    inputs = random_inputs(op, np.random.default_rng(k))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


FLUSHES = {
    "to the output": {},
    "k over 3 work-groups": {"num_wg": (2, 2, 3)},
    "k over 3 work-groups, the last combines": {"num_wg": (2, 2, 3), "wg_combine": "last"},
    "after each local tile of k": {"combine_layer": "lt"},
}  # fmt: skip
"""Flushes that `mdh-place-combine` writes, by the configuration keys that ask for them."""


@pytest.mark.parametrize("epilogue", [False, True])
@pytest.mark.parametrize("flush", list(FLUSHES))
def test_fragments_take_the_accumulators_place(flush: str, epilogue: bool) -> None:
    """The fragments take the place of the work-items' accumulators: each flush that
    `mdh-place-combine` wrote (to the output; work-group partial results, combined by a
    second kernel or by the last work-group; combined with the previous local tile's
    flush) runs over the lane's fragment elements, with a bias-relu epilogue or without,
    in partial work-group tiles (37 x 29, k 40 in local tiles of 16): no private
    accumulator beside the fragments, no local memory beside the input tiles, and the
    results match the reference."""
    if epilogue:
        text = matmul_bias_relu(37, 29, 40).replace("out_types = [f32]}", 'out_types = [f32], precision = "tf32"}', 1)
        module = fused(parse(text))
    else:
        module = matmul(37, 29, 40)
    op = find_compute(module)
    assert (op.epilogue is not None) == epilogue
    info = with_tensor_cores(device_info(TEST_DEVICE))
    cfg = default_config(op, info).with_(**{**MMA_BASE, "num_wg": (2, 2, 1), "lt_size": (32, 16, 16), **FLUSHES[flush]})
    assert rules(op, cfg, info) == []
    configured, _ = configure(module, info, cfg)
    kernel = next(o for o in lower_configured(configured, info).walk() if isinstance(o, KernelOp))
    arrays = sorted(
        (memory_space(a.memref.type), a.memref.type.get_shape()) for a in kernel.walk() if isinstance(a, memref.AllocaOp)
    )
    flag = [("lcl", (1,))] if cfg.wg_combine == "last" else []  # whether a work-group counted last
    assert arrays == [*flag, ("lcl", (16, 16)), ("lcl", (32, 16)), ("prv", (1, 1, 2, 2, 4))], arrays
    inputs = random_inputs(op, np.random.default_rng(40))
    check_outputs(module, inputs, run_emulated(module, cfg, inputs))


SWIZZLED = [("matmul", "f16", False), ("matmul", "bf16", True), ("matmul", "tf32", False), ("conv", "f16", False),
            ("bmatmul", "bf16", False)]  # fmt: skip
"""Ops whose random configurations `test_swizzled_local_rows` runs with `lcl_swizzle`:
awkward matmul sizes (B stored transposed in one), a convolution whose A rows step
along its first axis, a batch."""


@pytest.mark.parametrize("name, kind, transposed", SWIZZLED)
def test_swizzled_local_rows(name: str, kind: str, transposed: bool) -> None:
    """Random legal configurations on fragments with `lcl_swizzle = 1` (rows unpadded):
    the local buffers whose rows hold 2, 4, 8 or more 16-byte chunks are marked
    `swizzle` with the axis the fragment rows step along, every access of them permutes
    the chunks (`arith.xori` on its last index) and the results match the reference,
    the `ldmatrix` rows and 16-byte copies landing where the fragment loads read them."""
    module = kind_matmul(kind, 37, 29, 47, transposed) if name == "matmul" else outer_module(name, kind)
    op = find_compute(module)
    info = with_tensor_cores(device_info(TEST_DEVICE))
    rng = np.random.default_rng(7000 + SWIZZLED.index((name, kind, transposed)))
    checked = 0
    for _ in range(200):
        cfg = (mma_config(op, info, rng) if name == "matmul" else outer_config(op, info, kind, rng)).with_(
            lcl_swizzle=1, lcl_pad=0
        )
        plan = TilePlan(op, cfg)
        if violations(op, cfg, info) or not any(plan.swizzled(b) for b in range(2)):
            continue
        program = emulated(module, cfg)
        marked = [o for o in program.lowered.walk() if isinstance(o, memref.AllocaOp) and "swizzle" in o.attributes]
        assert marked and any(o.name == "arith.xori" for o in program.lowered.walk()), cfg
        inputs = random_inputs(op, rng)
        try:
            check_outputs(module, inputs, program(*inputs))
        except Exception as e:
            raise AssertionError(f"{name} {kind} config {cfg}: {e}") from e
        checked += 1
        if checked == 2:
            return
    raise AssertionError(f"{checked} swizzled configurations drawn")
