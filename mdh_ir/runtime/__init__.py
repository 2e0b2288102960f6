"""Run MDH computations on OpenCL devices through pyopencl.

    program = compile_module(module, device="cpu")     # lower, check, build once
    (w,) = program(M, v)                                # numpy in, numpy out
    outputs, seconds = program.run([M, v], repeats=20)  # times (profiling events)

Each timed repeat's commands are queued behind a gate, a kernel that keeps the device
busy while the host enqueues them, so that their profiling events time the kernels and
not the host's submission of each one: a kernel enqueued onto an idle H100 is timed
longer than the same kernel found waiting in the queue (measured, one process, in
turns: an empty kernel 6.8 us and 3.2 us; MatMul 10x500x64 8.0 us and 4.7 us; a 64 MB
reduction 29.8 us and 26.5 us). Queued back to back is how a program's kernels run.

Without a configuration (neither given nor on the op), the best one the tuning database
knows for this computation and device is used, else the default configuration.

The device is chosen by argument or by `MDH_DEVICE`: `cpu` (the default: the first CPU
device, PoCL; simulators such as Oclgrind are only used when named), `gpu`, or
`PLATFORM:DEVICE` where each part is an index or a substring of the name. Its model
(`device_info`: the limits it reports, lowered where `MDH_DEVICE_LIMITS` names them)
gives the default configuration, and the configuration is checked against it before
any build; a build failure raises `BuildError` carrying the OpenCL log and the source.

PoCL 3.1 (Debian 12's) mishandles optimized kernels that hold work-group barriers: its
parallel-region construction can abort (`ParallelRegion::Verify` / `Create`
assertions) or produce wrong results. Programs with barriers are therefore built with
`-cl-opt-disable` on PoCL (`build_options`); CPU-class configurations use no barriers.
Oclgrind (1.x) cannot run the `llvm.assume` calls its optimizer derives from unguarded
vector accesses ("Undefined external function: llvm.assume"), so every program is built
with `-cl-opt-disable` there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache, cached_property

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.traits import SymbolTable

from mdh_ir.config import Config
from mdh_ir.constraints import violations
from mdh_ir.default_config import complete_config
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.lowlevel import BarrierOp, LaunchOp
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.emit_opencl import opencl_source
from mdh_ir.emit_opencl.c_names import kernel_name
from mdh_ir.errors import MDHError
from mdh_ir.passes.lower_to_opencl import lowering
from mdh_ir.semantics.reference import find_compute
from mdh_ir.semantics.scalar_eval import numpy_dtype


class DeviceError(Exception):
    """No OpenCL device matches the request."""


class BuildError(Exception):
    """The OpenCL compiler rejected a generated program."""

    def __init__(self, log: str, source: str):
        super().__init__(f"OpenCL build failed:\n{log}")
        self.log = log
        self.source = source


def _match(items, key: str, name) -> list:
    if key.isdigit():
        return [items[int(key)]] if int(key) < len(items) else []
    return [x for x in items if key.lower() in name(x).lower()]


@cache
def select_device(spec: str | None = None):
    """The pyopencl device for `spec` (see the module docstring)."""
    import pyopencl as cl

    spec = spec or os.environ.get("MDH_DEVICE") or "cpu"
    platforms = cl.get_platforms()
    devices = [d for p in platforms for d in p.get_devices()]
    if spec in ("cpu", "gpu"):
        wanted = cl.device_type.CPU if spec == "cpu" else cl.device_type.GPU
        found = [d for d in devices if d.type & wanted and "Oclgrind" not in d.platform.name]
    else:
        plat, _, dev = spec.partition(":")
        found = [
            d for p in _match(platforms, plat, lambda p: p.name)
            for d in _match(p.get_devices(), dev or "0", lambda d: d.name)
        ]  # fmt: skip
    if not found:
        available = "; ".join(f"{d.platform.name}: {d.name}" for d in devices) or "none"
        raise DeviceError(f"no OpenCL device matches '{spec}' (available: {available})")
    return found[0]


def device_info(device=None) -> DeviceInfo:
    """The model of `device` (a pyopencl device, or a `select_device` spec) that every
    configuration is checked against: the limits the device reports, each lowered to
    the value `$MDH_DEVICE_LIMITS` gives it (`DeviceInfo.limited`)."""
    if device is None or isinstance(device, str):
        device = select_device(device)
    limits = os.environ.get("MDH_DEVICE_LIMITS", "")
    try:
        return DeviceInfo.from_cl(device).limited(limits)
    except ValueError as e:
        raise DeviceError(f"MDH_DEVICE_LIMITS: {e}") from None


@cache
def _context(device):
    import pyopencl as cl

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    return ctx, queue


FLUSH_SOURCE = """
__kernel void read_through(__global const uint4* scratch, __global uint* sink, uint n) {
    uint4 x = (uint4)(0);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) x ^= scratch[i];
    if (x.x == 0x9E3779B9u && x.y == 0x7F4A7C15u) sink[0] = x.z;
}
"""


@cache
def _flush_kernel(ctx):
    """The flush kernel (`FLUSH_SOURCE`), built once per context."""
    import pyopencl as cl

    return cl.Kernel(cl.Program(ctx, FLUSH_SOURCE).build(), "read_through")


GATE_SOURCE = """
__kernel void gate(__global float* cell, int n) {
    float x = cell[0];
    for (int i = 0; i < n; ++i) x = fma(x, 0.999f, 0.001f);
    if (x == -1.0f) cell[0] = x;
}
"""
GATE_STEPS = 100_000
"""Dependent FMAs of one work-item: about 230 us on an H100, 140 us on PoCL, longer than
the host takes to enqueue a program's commands behind it."""


@cache
def _gate(queue):
    """A function enqueueing the gate (`GATE_SOURCE`) on `queue`, built once per queue."""
    import pyopencl as cl

    ctx = queue.context
    kernel = cl.Kernel(cl.Program(ctx, GATE_SOURCE).build(), "gate")
    cell = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ones(1, np.float32))
    return lambda: kernel(queue, (1,), (1,), cell, np.int32(GATE_STEPS))


def gated(queue, enqueue: Callable[[], object]):
    """`enqueue()`'s result, its commands queued behind the gate (module docstring)."""
    _gate(queue)()
    return enqueue()


@cache
def _flusher(ctx, nbytes: int):
    """A function enqueueing a read of `nbytes` of scratch memory, which evicts other
    data from the caches. Reading, not writing: written lines would be written back
    while the next kernel runs (on an H100 a 256 MB fill added 7 us to every 64 MB
    read timed after it; the read adds nothing)."""
    import pyopencl as cl

    scratch = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=nbytes)
    sink = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=4)
    words, kernel = np.uint32(nbytes // 16), _flush_kernel(ctx)
    return lambda queue: kernel(queue, (1 << 16,), None, scratch, sink, words)


def flush(device: str | None, nbytes: int) -> None:
    """Read `nbytes` of scratch memory on `device` (`select_device`) and wait for it:
    afterwards no earlier command's data is cache-resident, and no line it wrote is still
    waiting to be written back."""
    ctx, queue = _context(select_device(device))
    _flusher(ctx, nbytes)(queue).wait()


def known_config(op: ComputeOp, info: DeviceInfo) -> Config | None:
    """The best configuration the tuning database knows for `op` on this device, else the
    one shipped with the package for this device (`mdh_ir.tuning.shipped`)."""
    from mdh_ir.tuning.database import Database, default_path
    from mdh_ir.tuning.shipped import shipped_config
    from mdh_ir.tuning.tuner import best_config

    path = default_path()
    known = best_config(Database(path), op, info) if path.exists() else None
    return known or shipped_config(op, info)


def lower(module: ModuleOp, info: DeviceInfo, config: Config | None = None) -> ModuleOp:
    """A lowered copy of `module`, its configuration completed for `info` and checked
    against it (what `mdh-default-config` and `mdh-check-config` do for a preset), then
    verified as `mdh-opt --lower-to-opencl` verifies it."""
    lowered = module.clone()
    op = find_compute(lowered)
    if config is not None:
        op.config = config.to_attr()
    cfg = complete_config(op, info)
    op.config = cfg.to_attr()
    found = violations(op, cfg, info)
    if found:
        raise MDHError(f'mdh.compute "{op.comp_name.data}": {found[0]}', op)
    ctx = Context()
    for p in lowering(info.kind):
        p.apply(ctx, lowered)
    lowered.verify()
    return lowered


class Program:
    """One computation compiled for one device."""

    def __init__(self, module: ModuleOp, device=None, config: Config | None = None):
        self.device = device if device is not None and not isinstance(device, str) else select_device(device)
        self.info = device_info(self.device)
        self.op: ComputeOp = find_compute(module)
        if config is None and self.op.config is None:
            config = known_config(self.op, self.info)
        self.lowered = lower(module, self.info, config)
        self.config = Config.of(find_compute_config_holder(module, self.lowered))
        self.source = opencl_source(self.lowered)
        self.ctx, self.queue = _context(self.device)
        self.build_options = build_options(self.device, self.lowered)
        self.cl_program = build(self.ctx, self.source, self.build_options)
        self.host = host_function(self.lowered)
        self.kernels = {k: getattr(self.cl_program, kernel_name(k)) for k in self.kernel_names()}

    def kernel_names(self) -> list[str]:
        return [op.kernel.string_value() for op in self.host.walk() if isinstance(op, LaunchOp)]

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return self.run(list(inputs))[0]

    def upload(self, inputs: list[np.ndarray]) -> list:
        """Device buffers holding `inputs`, for `run` to use again and again, as a program
        does whose data stays on the device. (A fresh buffer's first kernel is slower: on
        an H100, jacobi3d 256^3 timed 0.076 ms on fresh input buffers, 0.058 on reused.)"""
        import pyopencl as cl

        buffers = []
        for arg, x, t in zip(self.host.body.block.args, inputs, self.op.input_element_types):
            expected = tuple(arg.type.get_shape())  # type: ignore[attr-defined]
            x = np.ascontiguousarray(x, dtype=numpy_dtype(t))
            if x.shape != expected:
                raise ValueError(f"input of shape {x.shape}, expected {expected}")
            buffers.append(cl.Buffer(self.ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x))
        return buffers

    def run(
        self, inputs: list, repeats: int = 1, flush_bytes: int = 0
    ) -> tuple[list[np.ndarray], list[float]]:
        """Outputs and, per repeat, the program's time in seconds: from the start of
        its first kernel to the end of its last (the gaps between them included), the
        commands queued behind the gate (module docstring). `inputs`: arrays, or the
        buffers of `upload`. With `flush_bytes`, a scratch buffer of that size is read
        before each repeat, so that the inputs are not cache-resident (as between the
        calls of a real program)."""
        import pyopencl as cl

        block = self.host.body.block
        flush = _flusher(self.ctx, flush_bytes) if flush_bytes else None
        resident = all(isinstance(x, cl.Buffer) for x in inputs)
        buffers: dict[SSAValue, object] = dict(zip(block.args, inputs if resident else self.upload(inputs)))
        buffers.update(self.workspace)
        times = []
        for _ in range(repeats):
            if flush is not None:
                flush(self.queue)
            launches = gated(self.queue, lambda: self._enqueue(buffers))
            cl.wait_for_events(launches)
            times.append(span(launches))
        ret = next(op for op in block.ops if isinstance(op, func.ReturnOp))
        outputs = []
        for v in ret.arguments:
            t = v.type
            out = np.empty(t.get_shape(), dtype=numpy_dtype(t.element_type))  # type: ignore
            cl.enqueue_copy(self.queue, out, buffers[v])
            outputs.append(out)
        return outputs, times

    @cached_property
    def workspace(self) -> dict[SSAValue, object]:
        """The host function's buffers, created on the first run and kept, as a program
        keeps its workspace: its `memref.alloc`s, and its `memref.get_global`s holding
        their globals' initial values. (Created each run, they took the host longer to
        enqueue than the gate lasts: NVIDIA's OpenCL, MatMul 16x1000x2048, 300-350 us a
        run, 100-180 us with the buffers kept.)"""
        import pyopencl as cl

        buffers: dict[SSAValue, object] = {}
        for op in self.host.body.block.ops:
            if isinstance(op, memref.AllocOp):
                size = max(_nbytes(op.memref.type), 1)
                buffers[op.memref] = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, size=size)
            elif isinstance(op, memref.GetGlobalOp):
                glob = SymbolTable.lookup_symbol(self.lowered, op.name_.root_reference.data)
                assert isinstance(glob, memref.GlobalOp)
                t = glob.type
                dtype = numpy_dtype(t.element_type)  # type: ignore[attr-defined]
                values = np.array(glob.initial_value.get_values(), dtype).reshape(t.get_shape())  # type: ignore
                flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
                buffers[op.memref] = cl.Buffer(self.ctx, flags, hostbuf=values)
        return buffers

    def _enqueue(self, buffers: dict[SSAValue, object]) -> list:
        """Enqueue the host function's commands on `buffers` (its arguments' and its
        `workspace`): the events of its kernels. (Each run fills the allocated buffers
        with 0xFF first, so that a read of an element never written shows; that fill is
        not the program's.)"""
        import pyopencl as cl

        launches = []
        for op in self.host.body.block.ops:
            if isinstance(op, memref.AllocOp):
                poison = np.uint8(0xFF)
                cl.enqueue_fill_buffer(self.queue, buffers[op.memref], poison, 0, _nbytes(op.memref.type))
            elif isinstance(op, LaunchOp):
                kernel = self.kernels[op.kernel.string_value()]
                sizes = tuple(op.global_size.get_values()), tuple(op.local_size.get_values())
                launches.append(kernel(self.queue, *sizes, *[buffers[a] for a in op.args]))
        return launches


def span(events) -> float:
    """Seconds from the start of the first of `events` to the end of the last, by their
    profiling: what a program's commands take together, the gaps between them included
    (summing each one's duration would leave the gaps out)."""
    return (max(e.profile.end for e in events) - min(e.profile.start for e in events)) * 1e-9


def _nbytes(t) -> int:
    """Bytes of a buffer of memref type `t`."""
    return int(np.prod(t.get_shape())) * numpy_dtype(t.element_type).itemsize


def build(ctx, source: str, options: list[str]):
    """Build OpenCL `source`; a failure raises `BuildError` with the log and source."""
    import pyopencl as cl

    try:
        return cl.Program(ctx, source).build(options=options)
    except cl.RuntimeError as e:
        raise BuildError(str(e), source) from None


def build_options(device, lowered: ModuleOp) -> list[str]:
    """OpenCL build options: see the module docstring for the PoCL and Oclgrind
    workarounds."""
    platform = device.platform.name
    barriers = any(isinstance(op, BarrierOp) for op in lowered.walk())
    if "Oclgrind" in platform or ("Portable Computing Language" in platform and barriers):
        return ["-cl-opt-disable"]
    return []


def find_compute_config_holder(module: ModuleOp, lowered: ModuleOp) -> ComputeOp:
    """The original op, carrying the configuration the lowering used."""
    from mdh_ir.dialects.lowlevel import KernelOp
    from mdh_ir.passes.carried import carried

    kernel = next(k for k in lowered.walk() if isinstance(k, KernelOp))
    return carried(kernel, kernel.function_type.inputs.data).op


def host_function(lowered: ModuleOp) -> func.FuncOp:
    return next(
        f for f in lowered.ops
        if isinstance(f, func.FuncOp) and any(isinstance(o, LaunchOp) for o in f.walk())
    )  # fmt: skip


def compile_module(module: ModuleOp, device=None, config: Config | None = None) -> Program:
    return Program(module, device, config)
