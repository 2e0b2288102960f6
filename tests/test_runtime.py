"""The pyopencl runtime and the compile driver above it: device choice, constraint check
against the device, build errors, multiple kernels and temporaries, profiling times,
several ops in one module, every level kept."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region

from mdh_ir.catalog import CATALOG
from mdh_ir.schedule.config import Config
from mdh_ir.database.store import Database
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.constraints import violations
from mdh_ir.schedule.default_config import default_config
from mdh_ir.device import PRESETS, DeviceInfo
from mdh_ir.errors import MDHError
from mdh_ir.driver import Choice, compile_module
from mdh_ir.runtime import BuildError, DeviceError, build, device_info, gated
from mdh_ir.runtime import select_device, span
from mdh_ir.runtime import _context as context
from mdh_ir.runtime.timing import Stopwatch
from mdh_ir.semantics.reference import find_compute, random_inputs
from tests.lowering_check import TEST_DEVICE, check_outputs


def matvec(i=13, k=7):
    return CATALOG["matvec"].build(i=i, k=k)


def test_unknown_device_lists_the_available_ones() -> None:
    with pytest.raises(DeviceError, match="no OpenCL device matches 'nosuchdevice'.*available: .*"):
        select_device("nosuchdevice")


def test_device_from_environment(monkeypatch) -> None:
    monkeypatch.setenv("MDH_DEVICE", "0:0")
    select_device.cache_clear()
    try:
        assert select_device() == select_device("0:0")
    finally:
        select_device.cache_clear()


def test_configuration_checked_against_the_device_before_building() -> None:
    device = select_device("cpu")
    too_many = device.max_work_group_size * 2
    module = matvec(i=too_many, k=4)
    base = default_config(find_compute(module), DeviceInfo.from_cl(device))
    bad = base.with_(num_wi=(too_many, 1), lt_size=(too_many, 4), pt_size=(1, 4), num_wg=(1, 1))
    with pytest.raises(MDHError, match="rule 'wg-size'"):
        compile_module(module, "cpu", bad)


def test_device_limits_lower_the_device_model(monkeypatch) -> None:
    """`MDH_DEVICE_LIMITS` lowers the limits every configuration is checked against,
    never raises them; the lowered model has its own tuning results."""
    real = DeviceInfo.from_cl(select_device("cpu"))
    monkeypatch.setenv("MDH_DEVICE_LIMITS", f"local_mem={real.local_mem // 4}, max_wg_size=8")
    small = device_info("cpu")
    assert (small.local_mem, small.max_wg_size, max(small.max_wi_sizes)) == (real.local_mem // 4, 8, 8)
    assert small.key != real.key and small.model.startswith(f"{real.name}, limited to ")
    monkeypatch.setenv("MDH_DEVICE_LIMITS", f"local_mem={real.local_mem * 2}")
    assert device_info("cpu") == real
    monkeypatch.setenv("MDH_DEVICE_LIMITS", "registers=4")
    with pytest.raises(DeviceError, match="MDH_DEVICE_LIMITS: device limit 'registers=4'"):
        device_info("cpu")


def test_the_runtime_configures_and_checks_for_the_device_model(monkeypatch) -> None:
    """Under a model with 1 KiB of local memory and 4 work-items per work-group, the
    default configuration fits it and computes the right result, and a configuration
    that needs more is refused naming the model's limit."""
    module = CATALOG["matmul"].build(i=32, j=24, k=40)
    monkeypatch.setenv("MDH_DEVICE_LIMITS", "local_mem=1024,max_wg_size=4")
    program = compile_module(module, "cpu")
    assert violations(program.op, program.config, device_info("cpu")) == []
    inputs = random_inputs(program.op, np.random.default_rng(0))
    check_outputs(module, inputs, program(*inputs))
    wide = program.config.with_(num_wi=(8, 1, 1), lt_size=(8, 24, 40), pt_size=(1, 24, 40), num_wg=(4, 1, 1))
    with pytest.raises(MDHError, match=r"rule 'wg-size': 8 work-items per work-group > device limit 4 \("):
        compile_module(module, "cpu", wide)


def test_build_failure_carries_log_and_source() -> None:
    ctx, _ = context(select_device("cpu"))
    source = "__kernel void broken(__global float* x) { x[0] = undefined_name; }"
    with pytest.raises(BuildError) as info:
        build(ctx, source, [])
    assert "undefined_name" in info.value.log
    assert info.value.source == source


def test_two_kernels_and_temporaries_and_profiling() -> None:
    """pw split over work-groups: a temporary and a second kernel combine partials."""
    module = CATALOG["dot"].build(k=5000)
    cfg = default_config(find_compute(module), PRESETS["gpu"]).with_(wg_combine="kernel")
    assert cfg.num_wg[0] == 5
    program = compile_module(module, "cpu", cfg)
    assert program.kernel_names() == ["dot_0", "dot_0_combine"]
    inputs = CATALOG["dot"].inputs(np.random.default_rng(1), k=5000)
    outputs, times = program.run(inputs, repeats=3)
    check_outputs(module, inputs, outputs)
    assert len(times) == 3 and all(t > 0 for t in times)


def test_last_work_group_combines_with_a_zeroed_counter() -> None:
    """wg_combine "last" (the GPU default of dot): one kernel; its counter is a global
    that starts at zero and that the last work-group sets back to zero, so every run
    finds it zeroed (a counter left at the last run's count would leave the output
    unwritten and poisoned)."""
    module = CATALOG["dot"].build(k=5000)
    cfg = default_config(find_compute(module), PRESETS["gpu"])
    assert (cfg.num_wg[0], cfg.wg_combine) == (5, "last")
    program = compile_module(module, "cpu", cfg)
    assert program.kernel_names() == ["dot_0"]
    inputs = CATALOG["dot"].inputs(np.random.default_rng(2), k=5000)
    resident = program.upload(inputs)
    for _ in range(3):
        check_outputs(module, inputs, program.run(resident)[0])


def test_a_run_is_timed_from_its_first_command_to_its_last() -> None:
    """A program's time spans its kernels, the gaps between them included: one kernel for
    wg_combine "last" (its counters a global kept across runs, not filled before each),
    two for "kernel"."""
    import pyopencl as cl

    def event(start: int, end: int) -> SimpleNamespace:
        return SimpleNamespace(profile=SimpleNamespace(start=start, end=end))

    assert span([event(100, 110), event(115, 120)]) == pytest.approx(20e-9)
    module = CATALOG["dot"].build(k=5000)
    base = default_config(find_compute(module), PRESETS["gpu"])
    inputs = CATALOG["dot"].inputs(np.random.default_rng(4), k=5000)
    kernel = cl.command_type.NDRANGE_KERNEL
    for wg_combine, kinds in [("last", [kernel]), ("kernel", [kernel, kernel])]:
        program = compile_module(module, "cpu", base.with_(wg_combine=wg_combine)).program
        buffers = dict(zip(program.host.body.block.args, program.upload(inputs).buffers)) | program.workspace
        events = gated(program.queue, lambda: program._enqueue(buffers))
        cl.wait_for_events(events)
        assert [e.command_type for e in events] == kinds


def test_buffer_fills_come_before_the_first_kernel(monkeypatch) -> None:
    """The 0xFF fills of a chain's buffers are all enqueued before its first kernel, so
    none lands between two kernels, inside the span that times the program (the
    intermediate's and the output's allocations sit between the launches)."""
    import pyopencl as cl

    from mdh_bench.chains import jacobi3d_twice

    program = compile_module(jacobi3d_twice(i=6, j=5, k=4), "cpu").program
    order: list[str] = []
    fill = cl.enqueue_fill_buffer
    monkeypatch.setattr(cl, "enqueue_fill_buffer", lambda *a, **k: (order.append("fill"), fill(*a, **k))[1])
    for name, kernel in program.kernels.items():
        program.kernels[name] = lambda *a, kernel=kernel: (order.append("kernel"), kernel(*a))[1]
    x = np.random.default_rng(5).standard_normal((10, 9, 8)).astype(np.float32)
    program.run([x])
    assert order == ["fill", "fill", "kernel", "kernel"]


@pytest.mark.parametrize("wg_combine", ["kernel", "last"])
def test_many_work_group_partials_combine_in_a_loop(wg_combine: str) -> None:
    """Over 256 work-groups' partial results for one work-item to combine are combined in
    an unrolled loop (straight-line code for 32768 of them did not build within the
    tuner's 60 s)."""
    module = CATALOG["dot"].build(k=5000)
    base = default_config(find_compute(module), PRESETS["gpu"])
    cfg = base.with_(
        num_wg=(300,), num_wi=(1,), lt_size=(8,), pt_size=(1,), vector_width=1, wg_combine=wg_combine
    )
    program = compile_module(module, "cpu", cfg)
    assert "#pragma unroll 16" in program.source
    inputs = CATALOG["dot"].inputs(np.random.default_rng(3), k=5000)
    check_outputs(module, inputs, program(*inputs))


def test_last_work_group_needs_fences_across_work_groups() -> None:
    """A device whose fences are not known to order memory across work-groups (Oclgrind
    reports the last work-group's reads as races) refuses wg_combine "last", and its
    default keeps the second kernel."""
    module = CATALOG["dot"].build(k=5000)
    op = find_compute(module)
    oclgrind = replace(PRESETS["gpu"], platform="Oclgrind")
    assert [v.rule for v in violations(op, default_config(op, PRESETS["gpu"]), oclgrind)] == ["wg-combine"]
    assert default_config(op, oclgrind).wg_combine == "kernel"


def test_rejects_inputs_of_the_wrong_shape() -> None:
    program = compile_module(matvec(), "cpu")
    with pytest.raises(ValueError, match="expected"):
        program(np.zeros((3, 3), np.float32), np.zeros(7, np.float32))


def test_outputs_are_poisoned_before_each_run() -> None:
    """Buffers start as 0xFF bytes (NaN), so an output a kernel never writes shows."""
    program = compile_module(matvec(), "cpu")
    (w,) = program(np.zeros((13, 7), np.float32), np.zeros(7, np.float32))
    assert np.all(w == 0)


def test_vectors_written_to_work_group_partials() -> None:
    """res_mem "glb" with the pw dim split over work-groups: the vectorized combine reads
    and writes the flattened partials buffer one vector at a time (a regression: it
    once kept a scalar store of a vector)."""
    from mdh_ir.schedule.config import Config

    sizes = dict(i=8, j=4, k=8)
    module = CATALOG["reduce_sum"].build(**sizes)
    op = find_compute(module)
    cfg = Config(**{
        **default_config(op, PRESETS["cpu"]).__dict__,
        "num_wg": [2, 1, 1], "num_wi": [1, 2, 2], "lt_size": [4, 4, 8], "pt_size": [4, 2, 4],
        "inp_mem": [["lcl"], ["prv"]], "res_mem": ["glb"], "combine_layer": "lt",
        "loop_order": [[1, 2, 0], [0, 1, 2]], "vector_width": 2, "unroll": 2,
    })  # fmt: skip
    program = compile_module(module, "cpu", cfg)
    assert "*(__global float2*)(" in program.source  # an aligned vector store
    inputs = CATALOG["reduce_sum"].inputs(np.random.default_rng(2), **sizes)
    check_outputs(module, inputs, program(*inputs))


def test_flushed_runs_give_the_same_outputs() -> None:
    """`flush_bytes` reads scratch memory before each repeat; results and the number of
    timings are unchanged."""
    module = CATALOG["matvec"].build(i=64, k=32)
    inputs = CATALOG["matvec"].inputs(np.random.default_rng(0), i=64, k=32)
    program = compile_module(module, "cpu")
    plain, _ = program.run(inputs, repeats=2)
    flushed, times = program.run(inputs, repeats=3, flush_bytes=1 << 20)
    np.testing.assert_array_equal(plain[0], flushed[0])
    assert len(times) == 3 and all(t > 0 for t in times)


def test_the_flush_reads_every_word_of_its_scratch() -> None:
    """A work-item of the flush kernel reads every global-size-th word, and its result
    depends on each (their xor: here one work-item reads them all), so no read is
    optimized away; it writes only when the xor is its key."""
    import pyopencl as cl

    from mdh_ir.runtime import _context, _flush_kernel, select_device

    ctx, queue = _context(select_device("cpu"))
    kernel = _flush_kernel(ctx)
    words = np.random.default_rng(0).integers(0, 2**32, ((3 << 16) + 5, 4), dtype=np.uint32)
    key = np.array([0x9E3779B9, 0x7F4A7C15, 7, 0], np.uint32) ^ np.bitwise_xor.reduce(words[1:])
    for first, written in [(key, 7), (key ^ np.uint32(1), 0)]:
        words[0] = first
        scratch = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=words)
        sink = np.zeros(1, np.uint32)
        sink_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=sink)
        kernel(queue, (1,), None, scratch, sink_buf, np.uint32(len(words)))
        cl.enqueue_copy(queue, sink, sink_buf)
        assert sink[0] == written


def test_uploaded_inputs_serve_many_runs() -> None:
    """`upload` keeps inputs on the device: every run on those buffers (of a program with
    a temporary and a second kernel) gives the result of a run on the arrays."""
    module = CATALOG["dot"].build(k=1000)
    program = compile_module(module, "cpu", default_config(find_compute(module), PRESETS["gpu"]))
    inputs = CATALOG["dot"].inputs(np.random.default_rng(3), k=1000)
    resident = program.upload(inputs)
    (want,), _ = program.run(inputs)
    for _ in range(3):
        (got,), _ = program.run(resident, repeats=2)
        np.testing.assert_array_equal(got, want)
    check_outputs(module, inputs, [want])
    with pytest.raises(ValueError, match="expected"):
        program.upload([inputs[0][:10], inputs[1]])


def test_uploaded_inputs_serve_the_programs_of_other_configurations() -> None:
    """The inputs one program uploaded are read by a program of another configuration
    (what a tuning's candidates share); inputs of other shapes are refused."""
    module = CATALOG["dot"].build(k=5000)
    base = default_config(find_compute(module), PRESETS["gpu"])
    inputs = CATALOG["dot"].inputs(np.random.default_rng(5), k=5000)
    first = compile_module(module, "cpu", base).program
    other = compile_module(module, "cpu", base.with_(wg_combine="kernel")).program
    assert other.kernel_names() != first.kernel_names()
    resident = first.upload(inputs)
    (want,), _ = first.run(inputs)
    (got,), _ = other.run(resident, repeats=2)
    np.testing.assert_array_equal(got, want)
    shorter = compile_module(CATALOG["dot"].build(k=999), "cpu").program
    with pytest.raises(MDHError, match=r"expected inputs of \(999,\) float32, \(999,\) float32, got \(5000,\)"):
        shorter.run(resident)


ACCUMULATE = """
func.func @acc(%b: memref<64x32xf32>, %c: memref<64x32xf32>) {
  linalg.add ins(%c, %b : memref<64x32xf32>, memref<64x32xf32>) outs(%c : memref<64x32xf32>)
  func.return
}
"""


def test_an_argument_a_run_writes_is_a_copy_of_the_uploaded_input() -> None:
    """A run writes no buffer of uploaded inputs: an argument written by a copy (%c
    here), or stored to by a kernel (%b once the launch writes its result there, as no
    lowering does yet), is written in a copy made from the input before each run."""
    import pyopencl as cl

    from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
    from mdh_ir.runtime import Program
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module

    ctx = make_context()
    module = load_module(ctx, ACCUMULATE, "acc.mlir")
    ConvertLinalgToMDH().apply(ctx, module)
    compiled = compile_module(module, "cpu")
    rng = np.random.default_rng(6)
    b, c = (rng.uniform(-1, 1, (64, 32)).astype(np.float32) for _ in range(2))
    program = compiled.program
    assert [a.name_hint for a in program.overwritten] == ["c"]
    resident = program.upload([b, c])
    for _ in range(2):
        (got,), _ = program.run(resident, repeats=3)
        np.testing.assert_array_equal(got, c + b)

    launch, copy = (op for op in program.host.body.block.ops if op.name in ("lowlevel.launch", "memref.copy"))
    b_arg = program.host.body.block.args[0]
    launch.operands[2] = b_arg  # the kernel's result into %b
    copy.detach()
    copy.erase()
    storing = Program(compiled.lowered, compiled.source, program.device)
    assert storing.written == [] and storing.overwritten == [b_arg]
    assert storing.run(resident, repeats=3)[0] == []
    written = np.empty_like(b)
    cl.enqueue_copy(storing.queue, written, storing.argument_copies[b_arg])
    np.testing.assert_array_equal(written, c + b)  # from the input at every run, not c + 3b
    for buffer, x in zip(resident.buffers, (b, c)):
        kept = np.empty_like(x)
        cl.enqueue_copy(storing.queue, kept, buffer)
        np.testing.assert_array_equal(kept, x)


def test_the_gate_keeps_the_device_busy_for_several_enqueues() -> None:
    """The gate runs for at least 50 us by its own event, the time the host takes to
    enqueue several commands (pyopencl here: about 10 us each, more on a loaded
    machine), and a kernel enqueued behind it starts after it: what makes `run`'s
    profiling events time kernels rather than their submission. (A host-side timing of
    the enqueues fails on a loaded 2-core machine: the measure here is the device's.)
    The first run of a fresh PoCL context can report a bogus duration, so it is not
    checked."""
    import pyopencl as cl

    from mdh_ir.runtime import _context, _gate, select_device

    ctx, queue = _context(select_device("cpu"))
    kernel = cl.Kernel(cl.Program(ctx, "__kernel void k(__global float* x) { x[0] = 1.0f; }").build(), "k")
    cell = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    for run in range(3):
        gate = _gate(queue)()
        event = kernel(queue, (1,), (1,), cell)
        event.wait()
        if run:
            assert (gate.profile.end - gate.profile.start) * 1e-9 >= 50e-6
            assert gate.profile.end <= event.profile.start


def two_independent_computes() -> ModuleOp:
    """One function computing a MatVec and a dot product, each its own `mdh.compute`
    (their scalar functions from the catalog's modules)."""
    parts = [CATALOG["matvec"].build(i=48, k=40), CATALOG["dot"].build(k=3000)]
    funcs, ops = [], []
    for part in parts:
        for f in list(part.ops):
            f.detach()
            found = [o for o in f.walk() if isinstance(o, ComputeOp)]
            ops += found
            if not found:
                funcs.append(f)
    block = Block(arg_types=[t for op in ops for t in op.inputs.types])
    args, computes = list(block.args), []
    for op in ops:
        computes.append(ComputeOp(op.comp_name.data, args[: len(op.inputs)], dict(op.properties), op.outputs.types))
        args = args[len(op.inputs) :]
    outputs = [r for c in computes for r in c.results]
    block.add_ops([*computes, func.ReturnOp(*outputs)])
    host = func.FuncOp("both", (block.arg_types, [r.type for r in outputs]), Region(block))
    return ModuleOp([*funcs, host])


def test_two_independent_computes_compile_into_one_program() -> None:
    """A module of two `mdh.compute` ops: each gets its own configuration (the dot's given,
    the MatVec's the default), they become one program whose kernels run in order, and
    each output is the reference semantics' of its op."""
    module = two_independent_computes()
    module.verify()
    matvec_op, dot_op = [o for o in module.walk() if isinstance(o, ComputeOp)]
    dot_cfg = default_config(dot_op, PRESETS["gpu"]).with_(wg_combine="kernel")
    compiled = compile_module(module, "cpu", [None, dot_cfg], database=Database())
    default = default_config(matvec_op, device_info("cpu"))
    assert compiled.choices == [Choice(default, "default"), Choice(dot_cfg, "given")]
    assert [Config.of(op) for op in compiled.ops] == [default, dot_cfg]
    assert compiled.kernel_names() == ["both_0", "both_1", "both_1_combine"]
    rng = np.random.default_rng(5)
    mv = CATALOG["matvec"].inputs(rng, i=48, k=40)
    dot = CATALOG["dot"].inputs(rng, k=3000)
    w, d = compiled(*mv, *dot)
    check_outputs(CATALOG["matvec"].build(i=48, k=40), mv, [w])
    check_outputs(CATALOG["dot"].build(k=3000), dot, [d])
    with pytest.raises(ValueError, match="1 configurations for 2 mdh.compute ops"):
        compile_module(module, "cpu", [dot_cfg])


def test_the_compiled_module_keeps_every_level() -> None:
    """The `mdh` module with its configuration, the low-level IR and the OpenCL source; the
    module given is left as it was."""
    module = matvec()
    compiled = compile_module(module, "cpu", database=Database())
    assert find_compute(module).config is None
    assert compiled.op.config == compiled.config.to_attr()
    asm = compiled.asm
    assert "mdh.compute" in asm["mdh"] and "#mdh.config<" in asm["mdh"]
    assert not any(isinstance(o, ComputeOp) for o in compiled.lowered.walk())
    assert "lowlevel.launch" in asm["lowlevel"] and asm["lowlevel"] == str(compiled.lowered)
    assert asm["opencl"] == compiled.source and " void matvec_0(" in compiled.source


def test_names_moved_to_the_driver_stay_importable_from_the_runtime() -> None:
    """`compile_module` and `lower` moved to the driver; the runtime hands them out on
    request only, so that it imports the driver at no import of its own."""
    import mdh_ir.runtime
    from mdh_ir import driver
    from mdh_ir.runtime import compile_module as old_compile_module

    assert old_compile_module is driver.compile_module
    assert mdh_ir.runtime.lower is driver.lower
    with pytest.raises(AttributeError):
        mdh_ir.runtime.no_such_name  # noqa: B018


def test_stopwatch_counts_inner_phases_once() -> None:
    """A phase inside another, or seconds added inside it, are not counted in the outer
    one too: the phases add up to the time they took together."""
    import time

    watch = Stopwatch()
    start = time.perf_counter()
    with watch.phase("outer"):
        time.sleep(0.02)
        with watch.phase("inner"):
            time.sleep(0.03)
        watch.add("measured", 0.01)
    with watch.phase("inner"):
        time.sleep(0.01)
    total = time.perf_counter() - start
    assert set(watch.seconds) == {"outer", "inner", "measured"}
    assert 0.04 <= watch.seconds["inner"] < 0.04 + 0.02
    assert 0.01 <= watch.seconds["outer"] < 0.02 + 0.02  # 0.02 slept, 0.01 measured otherwise
    assert sum(watch.seconds.values()) == pytest.approx(total, abs=2e-3)


@pytest.mark.parametrize("name", ["tensor_matmul_1000", "generalize_matmul_buffer", "conv_2d_nhwc_hwcf_call"])
def test_a_program_loads_its_binaries_with_the_host_view(name: str) -> None:
    """`host_view` (what a tuning's build pool sends instead of the whole lowered module)
    gives a program of the same binaries the same launches, the same arguments written
    (a linalg output written in place), the same build options and outputs; it parses
    in a fraction of the time."""
    from mdh_ir.dialects.lowlevel import BarrierOp
    from mdh_ir.driver import lower
    from mdh_ir.passes.convert_linalg_to_mdh import ConvertLinalgToMDH
    from mdh_ir.runtime import Program
    from mdh_ir.runtime.program import build_options, host_view
    from mdh_ir.tools.context import make_context
    from mdh_ir.tools.diagnostics import load_module
    from tests.test_linalg_programs import PROGRAMS, arguments

    ctx = make_context()
    module = load_module(ctx, (PROGRAMS / f"{name}.mlir").read_text(), name)
    args = arguments(module, np.random.default_rng(0))
    ConvertLinalgToMDH().apply(ctx, module)
    here = compile_module(module, TEST_DEVICE)
    view = load_module(make_context(), str(host_view(here.lowered)), "<view>")
    loaded = Program(view, here.source, TEST_DEVICE, here.program.binaries())
    assert loaded.kernel_names() == here.program.kernel_names()
    positions = [[a.index for a in p.overwritten] for p in (loaded, here.program)]
    assert positions[0] == positions[1] and (positions[0] or name != "generalize_matmul_buffer")
    assert build_options(loaded.device, view) == build_options(here.program.device, here.lowered)
    assert all(np.array_equal(a, b) for a, b in zip(loaded(*args), here(*args)))
    for lowered in (here.lowered, lower(module, PRESETS["gpu"])):  # with barriers and without
        barriers = [any(isinstance(o, BarrierOp) for o in m.walk()) for m in (lowered, host_view(lowered))]
        assert barriers[0] == barriers[1]
    assert len(str(view)) < len(str(here.lowered)) / 3
