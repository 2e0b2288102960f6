"""An OpenCL program built from a lowered module, run on numpy arrays or device buffers.

    program = Program(lowered, source, device)          # build once
    (w,) = program(M, v)                                # numpy in, numpy out
    outputs, seconds = program.run([M, v], repeats=20)  # times (profiling events)
    inputs = program.upload([M, v])                     # on the device, for many runs
    outputs, seconds = other.run(inputs, repeats=20)    # of programs of the same inputs

The lowered module's host function (`host_function`) says what to run: its `memref.alloc`s
and `memref.get_global`s are the program's workspace, its `lowlevel.launch`es the
kernels of `source` and its `memref.copy`s buffer-to-buffer copies, in order; its
arguments are the program's inputs, its results and then the arguments it writes (copy
destinations, `mdh_ir.semantics.host.written_arguments`) its outputs. Runs read their
inputs from the read-only buffers of a `DeviceInputs` (`mdh_ir.runtime.inputs`), which
arrays are uploaded into first: an argument that a run writes (a copy destination, or
one a kernel stores to) starts every run as a copy of its input, made on the device. A
build failure raises `BuildError` carrying the OpenCL log and the source.

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
import warnings
from functools import cached_property

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Region, SSAValue
from xdsl.traits import SymbolTable

from mdh_ir.semantics.arrays import checked_arrays
from mdh_ir.dialects.lowlevel import BarrierOp, KernelOp, LaunchOp
from mdh_ir.errors import MDHError
from mdh_ir.emit_opencl.c_names import kernel_name
from mdh_ir.runtime.devices import _context, select_device
from mdh_ir.runtime.inputs import DeviceInputs
from mdh_ir.runtime.timing import Stopwatch, _flusher, gated, span
from mdh_ir.semantics.host import written_arguments
from mdh_ir.semantics.scalar_eval import numpy_dtype


class BuildError(Exception):
    """The OpenCL compiler rejected a generated program."""

    def __init__(self, log: str, source: str):
        super().__init__(f"OpenCL build failed:\n{log}")
        self.log = log
        self.source = source


class Program:
    """The OpenCL program of a lowered module, built for one device: its host function's
    buffers and launches (`lowered`, the low-level IR its `source` was printed from)."""

    def __init__(self, lowered: ModuleOp, source: str, device=None, binaries: list[bytes] | None = None):
        """`binaries`: those of a build of `source` for this device in another process."""
        self.device = device if device is not None and not isinstance(device, str) else select_device(device)
        self.lowered = lowered
        self.source = source
        self.ctx, self.queue = _context(self.device)
        self.build_options = build_options(self.device, self.lowered)
        self.cl_program = build(self.ctx, self.source, self.build_options, binaries)
        self.host = host_function(self.lowered)
        self.kernels = {k: getattr(self.cl_program, kernel_name(k)) for k in self.kernel_names()}
        self.written = written_arguments(self.host)

    def binaries(self) -> list[bytes]:
        """The built program's device binaries (`__init__`'s `binaries`)."""
        import pyopencl as cl

        return self.cl_program.get_info(cl.program_info.BINARIES)

    def kernel_names(self) -> list[str]:
        return [op.kernel.string_value() for op in self.host.walk() if isinstance(op, LaunchOp)]

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return self.run(list(inputs))[0]

    def upload(self, inputs: list[np.ndarray]) -> DeviceInputs:
        """`inputs` on the device, for `run` to use again and again, as a program does
        whose data stays on the device, and for the runs of other programs of this
        context with arguments of the same shapes and types. (A fresh buffer's first
        kernel is slower: on an H100, jacobi3d 256^3 timed 0.076 ms on fresh input
        buffers, 0.058 on reused.)"""
        args = self.host.body.block.args
        return DeviceInputs(self.ctx, checked_arrays(args, inputs, f"@{self.host.sym_name.data}"))

    def _check_inputs(self, inputs: DeviceInputs) -> None:
        """Raise unless `run` can read `inputs`: uploaded to this program's context, with
        its arguments' shapes and element types."""
        where = f"@{self.host.sym_name.data}"
        if inputs.ctx != self.ctx:
            raise MDHError(f"{where}: inputs uploaded to another OpenCL context")
        args = self.host.body.block.args
        wanted = [(tuple(a.type.get_shape()), numpy_dtype(a.type.element_type)) for a in args]  # type: ignore
        if inputs.specs != wanted:
            got = ", ".join(f"{shape} {dtype}" for shape, dtype in inputs.specs)
            raise MDHError(f"{where}: expected inputs of {', '.join(f'{s} {d}' for s, d in wanted)}, got {got}")

    def run(
        self,
        inputs: list | DeviceInputs,
        repeats: int = 1,
        flush_bytes: int = 0,
        stopwatch: Stopwatch | None = None,
        download: bool = True,
    ) -> tuple[list, list[float]]:
        """Outputs and, per repeat, the program's time in seconds: from the start of
        its first kernel to the end of its last (the gaps between them included), the
        commands queued behind the gate (module docstring). `inputs`: arrays, or
        those of `upload` (of this program or another, `_check_inputs`). With
        `flush_bytes`, a scratch buffer of that size is read before each repeat, so
        that the inputs are not cache-resident (as between the calls of a real
        program); `stopwatch` counts the flushes' time (profiling) as its phase
        `flush`. Without `download` the outputs are the device buffers that hold them
        (`download` copies them to arrays), valid until the next run."""
        import pyopencl as cl

        block = self.host.body.block
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise MDHError(f"@{self.host.sym_name.data}: repeats: expected a positive number of runs, got {repeats!r}")
        flush = _flusher(self.ctx, flush_bytes) if flush_bytes else None
        if isinstance(inputs, DeviceInputs):
            self._check_inputs(inputs)
        else:
            inputs = self.upload(inputs)
        given: dict[SSAValue, object] = dict(zip(block.args, inputs.buffers))
        buffers = given | self.workspace | self.argument_copies
        times, flushes = [], []
        for _ in range(repeats):
            for arg, copy in self.argument_copies.items():
                cl.enqueue_copy(self.queue, copy, given[arg])
            if flush is not None:
                flushes.append(flush(self.queue))
            launches = gated(self.queue, lambda: self._enqueue(buffers))
            cl.wait_for_events(launches)
            times.append(span(launches))
        if stopwatch is not None and flushes:
            stopwatch.add("flush", sum(span([e]) for e in flushes))
        outputs = [buffers[v] for v in self.output_values]
        return (self.download(outputs) if download else outputs), times

    @cached_property
    def output_values(self) -> list[SSAValue]:
        """The host function's outputs: its results, then the arguments it writes."""
        ret = next(op for op in self.host.body.block.ops if isinstance(op, func.ReturnOp))
        return [*ret.arguments, *self.written]

    def output_specs(self) -> list[tuple[tuple[int, ...], np.dtype]]:
        """The shape and element type of each output."""
        return [(tuple(v.type.get_shape()), numpy_dtype(v.type.element_type)) for v in self.output_values]  # type: ignore

    def download(self, buffers: list) -> list[np.ndarray]:
        """The outputs held by `buffers` (those of `run` without `download`), as arrays."""
        import pyopencl as cl

        outputs = []
        for buffer, (shape, dtype) in zip(buffers, self.output_specs()):
            out = np.empty(shape, dtype=dtype)
            cl.enqueue_copy(self.queue, out, buffer)
            outputs.append(out)
        return outputs

    @cached_property
    def overwritten(self) -> list[BlockArgument]:
        """The arguments that a run writes: those the host function copies into
        (`written`) and those a kernel it launches stores to, in argument order."""
        written = set(self.written)
        for op in self.host.walk():
            if isinstance(op, LaunchOp):
                kernel = SymbolTable.lookup_symbol(self.lowered, op.kernel.root_reference.data)
                assert isinstance(kernel, KernelOp)
                stored = kernel.written()
                written.update(a for a, p in zip(op.args, kernel.body.block.args) if p in stored)
        return [a for a in self.host.body.block.args if a in written]

    @cached_property
    def argument_copies(self) -> dict[SSAValue, object]:
        """Per argument that a run writes (`overwritten`), the buffer that the run
        writes in its place, a copy of the input made before each run, so that the
        input's buffer is never written; created on the first run and kept."""
        import pyopencl as cl

        return {a: cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, size=max(_nbytes(a.type), 1)) for a in self.overwritten}

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
        `workspace`): the events of its kernels and copies. Each run first fills every
        allocated buffer with 0xFF, so that a read of an element never written shows;
        those fills are not the program's and come before its first command, outside
        the span that times it (a 64 MB fill between a chain's two kernels added
        0.17 ms to jacobi3d twice at 256^3 on an H100)."""
        import pyopencl as cl

        ops = self.host.body.block.ops
        for op in ops:
            if isinstance(op, memref.AllocOp):
                poison = np.uint8(0xFF)
                cl.enqueue_fill_buffer(self.queue, buffers[op.memref], poison, 0, _nbytes(op.memref.type))
        launches = []
        for op in ops:
            if isinstance(op, LaunchOp):
                kernel = self.kernels[op.kernel.string_value()]
                sizes = tuple(op.global_size.get_values()), tuple(op.local_size.get_values())
                launches.append(kernel(self.queue, *sizes, *[buffers[a] for a in op.args]))
            elif isinstance(op, memref.CopyOp):
                launches.append(cl.enqueue_copy(self.queue, buffers[op.destination], buffers[op.source]))
        return launches


def _nbytes(t) -> int:
    """Bytes of a buffer of memref type `t`."""
    return int(np.prod(t.get_shape())) * numpy_dtype(t.element_type).itemsize


def build(ctx, source: str, options: list[str], binaries: list[bytes] | None = None):
    """Build OpenCL `source`, or the device `binaries` of a build of it (one per device of
    `ctx`); a failure raises `BuildError` with the log and source. A successful build's
    log (on PoCL, warnings from its own headers) is shown only where
    `PYOPENCL_COMPILER_OUTPUT` asks for it: pyopencl's warning without it says nothing
    but that there is one."""
    import pyopencl as cl

    try:
        with warnings.catch_warnings():
            if not os.environ.get("PYOPENCL_COMPILER_OUTPUT"):
                warnings.simplefilter("ignore", cl.CompilerWarning)
            program = cl.Program(ctx, ctx.devices, binaries) if binaries else cl.Program(ctx, source)
            return program.build(options=options)
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


def host_view(lowered: ModuleOp) -> ModuleOp:
    """`lowered` as a `Program` of its binaries (built elsewhere) reads it: the host
    function and the globals as they are, and each kernel with its signature and, for a
    body, a store to each argument it writes and a barrier where it has one (what
    `Program.overwritten` and `build_options` ask of it). A tuning's build pool sends it
    to the process that times the candidates: parsing the whole module there took 53 ms
    of an evaluation's 94 (ResNet-50 3x3 conv, batch 1, H100), the view 8."""
    view, host = ModuleOp([]), host_function(lowered)
    for op in lowered.ops:
        if isinstance(op, KernelOp):
            view.body.block.add_op(_kernel_view(op))
        elif isinstance(op, memref.GlobalOp) or op is host:
            view.body.block.add_op(op.clone())
    return view


def _kernel_view(kernel: KernelOp) -> KernelOp:
    """`kernel`'s signature; for a body, a store of zero to each argument it writes and
    one of its barriers, if any."""
    block = Block(arg_types=kernel.body.block.arg_types)
    written = kernel.written()
    for old, new in zip(kernel.body.block.args, block.args):
        if old in written:
            t = new.type
            kind = FloatAttr if isinstance(t.element_type, AnyFloat) else IntegerAttr
            value, index = arith.ConstantOp(kind(0, t.element_type)), arith.ConstantOp(IntegerAttr(0, IndexType()))
            block.add_ops([value, index, memref.StoreOp.get(value, new, [index] * t.get_num_dims())])
    block.add_ops([b.clone() for b in kernel.walk() if isinstance(b, BarrierOp)][:1])
    return KernelOp(kernel.sym_name.data, block.arg_types, Region(block))


def host_function(lowered: ModuleOp) -> func.FuncOp:
    """The function of `lowered` that allocates buffers and launches its kernels."""
    return next(
        f for f in lowered.ops
        if isinstance(f, func.FuncOp) and any(isinstance(o, LaunchOp) for o in f.walk())
    )  # fmt: skip
