"""Row fusion (`mdh-fuse`, row statistics): a row softmax written as three ops (max,
sum of exp(x - max), divide) becomes one op and one kernel whose result equals the
chain's, under the default and random legal configurations, at awkward sizes, on the
test device; a statistic used outside the chain keeps the chain."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import memref, vector

from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.dialects.lowlevel import BarrierOp, KernelOp
from mdh_ir.driver import compile_module
from mdh_ir.driver.compiler import lower
from mdh_ir.passes.fuse import FusionRemark, MDHFuse
from mdh_ir.runtime import select_device
from mdh_ir.schedule.constraints import vector_problem, violations
from mdh_ir.schedule.default_config import ROW_SHARE, default_config
from mdh_ir.schedule.tiling import TilePlan
from mdh_ir.semantics.host import evaluate_host, host_function, random_arguments
from mdh_ir.tools.context import make_context
from mdh_ir.tools.diagnostics import load_module
from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config
from tests.lowering_check import TEST_DEVICE, check_outputs
from tests.test_fuse import AWKWARD, computes

FUNCS = """
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div(%m: f32, %x: f32, %s: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  %r = arith.divf %e, %s : f32
  func.return %r : f32
}
"""


def softmax(m: int, n: int, returned: str = "%y") -> str:
    results = {"%y": f"memref<{m}x{n}xf32>", "%y, %m": f"memref<{m}x{n}xf32>, memref<{m}xf32>"}[returned]
    return FUNCS + f"""
func.func @main(%x: memref<{m}x{n}xf32>) -> ({results}) {{
  %m = mdh.compute "max"
    {{inp_view = [[affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @id, combine_ops = ["cc", ["pw", "max"]]}},
      out_view = [[affine_map<(i,j) -> (i)>]]}}
    {{inp_types = [f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%x) : (memref<{m}x{n}xf32>) -> memref<{m}xf32>
  %s = mdh.compute "sum"
    {{inp_view = [[affine_map<(i,j) -> (i)>], [affine_map<(i,j) -> (i,j)>]],
      md_hom = {{scalar_func = @exp_sub, combine_ops = ["cc", ["pw", "add"]]}},
      out_view = [[affine_map<(i,j) -> (i)>]]}}
    {{inp_types = [f32, f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%m, %x) : (memref<{m}xf32>, memref<{m}x{n}xf32>) -> memref<{m}xf32>
  %y = mdh.compute "div"
    {{inp_view = [[affine_map<(i,j) -> (i)>], [affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (i)>]],
      md_hom = {{scalar_func = @div, combine_ops = ["cc", "cc"]}},
      out_view = [[affine_map<(i,j) -> (i,j)>]]}}
    {{inp_types = [f32, f32, f32], mda_size = [{m}, {n}], out_types = [f32]}}
    (%m, %x, %s) : (memref<{m}xf32>, memref<{m}x{n}xf32>, memref<{m}xf32>) -> memref<{m}x{n}xf32>
  func.return {returned} : {results}
}}
"""


def parse(text: str):
    return load_module(make_context(), text, "softmax.mlir")


def fused(module):
    one = module.clone()
    MDHFuse().apply(Context(), one)
    one.verify()
    return one


def test_fused_softmax_reference_equals_the_chain() -> None:
    rng = np.random.default_rng(1)
    for m, n in [(1, 1), (3, 17), (13, 1), (9, 33), (2, 129)]:
        chain = parse(softmax(m, n))
        (op,) = computes(fused(chain))
        assert op.stats is not None and len(op.row_stats) == 2
        args = [rng.uniform(-30, 30, (m, n)).astype(np.float32)]
        (want,) = evaluate_host(chain, args)
        (got,) = evaluate_host(fused(chain), args)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        e = np.exp(args[0].astype(np.float64) - args[0].max(1, keepdims=True))
        np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-6, atol=1e-7)


def test_fused_softmax_is_one_kernel_and_runs() -> None:
    module = fused(parse(softmax(7, 33)))
    program = compile_module(module, TEST_DEVICE)
    assert len([k for k in program.lowered.walk() if isinstance(k, KernelOp)]) == 1
    args = random_arguments(host_function(module), np.random.default_rng(2))
    check_outputs(module, args, program(*args))


def random_fused_softmax(rng: np.random.Generator, rows: list[int], columns: list[int], draws: int):
    """(m, n, fused module, config) of up to `draws` random legal configurations of the
    fused softmax at m of `rows` x n of `columns` for the test device: rows in one
    work-group along the reduction (rule `rows`), vectors only where the rule allows."""
    info = DeviceInfo.from_cl(select_device(TEST_DEVICE))
    for _ in range(draws):
        m, n = int(rng.choice(rows)), int(rng.choice(columns))
        module = fused(parse(softmax(m, n)))
        (op,) = computes(module)
        try:
            config = sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
        config = config.with_(num_wg=(config.num_wg[0], 1))
        if vector_problem(TilePlan(op, config)) is not None:
            config = config.with_(vector_width=1)
        yield m, n, module, config


def test_fused_softmax_lowered_under_random_configs() -> None:
    """Random legal configurations of the fused op (several work-items along a row:
    statistics combined in local memory before the next phase reads them), with their
    vectors where the rule `vector-width` allows them (each lane accumulates its own
    part of a row's statistics)."""
    rng = np.random.default_rng(4)
    done = vectors = 0
    for m, n, module, config in random_fused_softmax(rng, AWKWARD, AWKWARD + [127, 128, 129], 40):
        vectors += config.vector_width > 1
        args = random_arguments(host_function(module), rng)
        try:
            check_outputs(module, args, compile_module(module, TEST_DEVICE, config)(*args))
        except Exception as e:
            raise AssertionError(f"softmax {m}x{n} config={config.to_attr()}\n{e}") from e
        done += 1
        if done == 10:
            break
    assert done == 10 and vectors > 0


def test_a_statistic_used_outside_keeps_the_chain() -> None:
    module = parse(softmax(4, 5, returned="%y, %m"))
    with pytest.warns(FusionRemark, match='"max" not fused: its result is used 3 times'):
        MDHFuse().apply(Context(), module)
    assert [op.comp_name.data for op in computes(module)] == ["max", "sum", "div"]
    args = random_arguments(host_function(module), np.random.default_rng(3))
    check_outputs(module, args, compile_module(module, TEST_DEVICE)(*args))


ROWS, COLUMNS = [1, 7, 129], [1, 33, 127, 128, 4097]
"""Awkward sizes of a softmax: one row, a prime, a tile + 1; one column, a vector + 1,
a vector - 1, whole vectors, a row of 4096 + 1."""


@pytest.mark.parametrize("device", ["gpu", "cpu"])
def test_fused_softmax_defaults_at_awkward_sizes(device: str) -> None:
    """The default configuration of each device class (`PRESETS`; `_gpu_rows` on a GPU)
    of the fused softmax, run on the test device, equals the reference at every size of
    `ROWS` x `COLUMNS`."""
    rng = np.random.default_rng(5)
    for m in ROWS:
        for n in COLUMNS:
            module = fused(parse(softmax(m, n)))
            (op,) = computes(module)
            config = default_config(op, PRESETS[device])
            args = random_arguments(host_function(module), rng)
            try:
                check_outputs(module, args, compile_module(module, TEST_DEVICE, config)(*args))
            except Exception as e:
                raise AssertionError(f"softmax {m}x{n} config={config.to_attr()}\n{e}") from e


def test_gpu_default_shares_each_row_among_few_vector_readers() -> None:
    """The GPU default of the fused softmax: each row shared by the work-items that read
    about `ROW_SHARE` of its elements in vectors of 4 (private tiles of one vector dealt
    in turn: consecutive reads), the rest of 256 work-items on several rows. 8192 x 128:
    8 readers (3 tree levels a phase, not 5 of 32 scalar readers of 4 elements 16 bytes
    apart), 8 rows a work-group (4 work-groups a compute unit, not 32 rows and 2);
    4096 x 4096: 256 readers, one row a work-group."""
    gpu = PRESETS["gpu"]
    for (m, n), readers, rows in [((8192, 128), 8, 8), ((4096, 4096), 256, 1)]:
        (op,) = computes(fused(parse(softmax(m, n))))
        cfg = default_config(op, gpu)
        assert not violations(op, cfg, gpu)
        assert cfg.num_wi == (rows, readers) and cfg.num_wg == (m // rows, 1)
        assert cfg.lt_size == (rows, n) and cfg.pt_size == (1, 4) and cfg.vector_width == 4
        assert n // readers == ROW_SHARE


def kept_on_chip(lowered) -> tuple[int, int, int]:
    """Of the fused softmax's one kernel (x its first argument, the statistics the
    arguments of one axis): the ops reading x, the reads of statistics from global
    memory, the barriers on global memory."""
    (kernel,) = [k for k in lowered.walk() if isinstance(k, KernelOp)]
    x, *others = kernel.body.block.args
    stats = [a for a in others if a.type.get_num_dims() == 1]
    reads = lambda v: sum(isinstance(u.operation, memref.LoadOp | vector.LoadOp) for u in v.uses)  # noqa: E731
    barriers = sum(isinstance(o, BarrierOp) and o.global_memory is not None for o in kernel.walk())
    return reads(x), sum(reads(s) for s in stats), barriers


def test_gpu_default_keeps_rows_and_statistics_on_chip() -> None:
    """`mdh-keep-rows` on the GPU default of 8192 x 128 and 4096 x 4096: x read by one
    op (the first phase, kept in private memory), no statistic read from global memory
    (each phase reads the earlier ones' tree results in local memory), no barrier on
    global memory."""
    gpu = PRESETS["gpu"]
    for m, n in [(8192, 128), (4096, 4096)]:
        (op,) = computes(fused(parse(softmax(m, n))))
        config = default_config(op, gpu)
        module = fused(parse(softmax(m, n)))
        assert kept_on_chip(lower(module, gpu, config)) == (1, 0, 0)


def test_rows_and_statistics_kept_under_random_configs() -> None:
    """Random legal configurations at `ROWS` x `COLUMNS`, each equal to the reference on
    the test device; among them some keep the statistics in local memory and some not
    (one work-item a row, several local tiles of rows a work-group), some keep x in
    private memory and some read it again (more than `KEPT_ELEMS` a work-item)."""
    rng = np.random.default_rng(6)
    seen = set()
    done = 0
    for m, n, module, config in random_fused_softmax(rng, ROWS, COLUMNS, 200):
        program = compile_module(module, TEST_DEVICE, config)
        x_reads, stat_reads, _ = kept_on_chip(program.lowered)
        seen |= {("stats local", stat_reads == 0), ("x kept", x_reads == 1)}
        args = random_arguments(host_function(module), rng)
        try:
            check_outputs(module, args, program(*args))
        except Exception as e:
            raise AssertionError(f"softmax {m}x{n} config={config.to_attr()}\n{e}") from e
        done += 1
        if done == 24 and len(seen) == 4:
            break
    assert seen == {(k, v) for k in ("stats local", "x kept") for v in (True, False)}, seen
