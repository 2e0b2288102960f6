"""CLBlast (https://github.com/CNugteren/CLBlast) through ctypes on its C API.

The library is `$CLBLAST_LIBRARY` if set (e.g. a copy carried to another machine), else
Debian's `libclblast.so.1` (`apt-get install libclblast1`). Routines run with CLBlast's
built-in parameters for the device (its database; devices it does not know get its
defaults), on pyopencl buffers and the profiling queue we time our own kernels on.

The time of one call is from the end of a marker (an empty kernel) enqueued just before
it to the end of the event the routine returns, which belongs to its last kernel: it
covers every kernel the routine enqueues (GEMM pads or transposes its operands for large
sizes); `Call` keeps the host's work out of it. The last kernel's own duration is
recorded too.

`tuned_parameters` reports the parameters CLBlast uses for a kernel; the C API cannot
say, so a small C++ shim around `clblast::RetrieveParameters` is compiled with g++, or
loaded from `$CLBLAST_SHIM` (built elsewhere by `python -m mdh_bench.clblast build-shim
FILE`; it needs only libstdc++, its CLBlast symbols resolve against the loaded library).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np

ROW_MAJOR, NO, YES = 101, 111, 112
"""CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes."""

_size = ctypes.c_size_t
_mem = ctypes.c_void_p


def library_path() -> str:
    return os.environ.get("CLBLAST_LIBRARY") or "libclblast.so.1"


@cache
def library() -> ctypes.CDLL:
    """The CLBlast library; OSError (with the reason) if it cannot be loaded."""
    try:
        return ctypes.CDLL(library_path(), mode=ctypes.RTLD_GLOBAL)  # global: for the shim
    except OSError as e:
        raise OSError(f"{e} (apt-get install libclblast1, or set CLBLAST_LIBRARY)") from None


class CLBlast:
    """The routines the benchmark cases need, on one pyopencl context and queue."""

    def __init__(self, ctx, queue):
        import pyopencl as cl

        self.ctx, self.queue = ctx, queue
        self.lib = library()
        self.queue_ptr = ctypes.c_void_p(queue.int_ptr)
        self._buffers: list = []
        """The buffers routines are called on: alive as long as this object is."""
        self._mark = cl.Kernel(cl.Program(ctx, "__kernel void mark(void) {}").build(), "mark")

    def mark(self, wait_for: list | None):
        """A marker: an empty kernel, whose profiling times every platform reports."""
        import pyopencl as cl

        return cl.enqueue_nd_range_kernel(self.queue, self._mark, (1,), (1,), wait_for=wait_for)

    def buffer(self, array: np.ndarray):
        import pyopencl as cl

        mf = cl.mem_flags
        data = np.ascontiguousarray(array)
        self._buffers.append(cl.Buffer(self.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data))
        return self._buffers[-1]

    def output(self, shape: tuple[int, ...]):
        import pyopencl as cl

        self._buffers.append(cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, max(4, int(np.prod(shape)) * 4)))
        return self._buffers[-1]

    def call(self, routine: str, *args) -> Call:
        return Call(self, routine, args)

    # The routines, row-major, alpha = 1, beta = 0: each returns a function that runs it.

    def gemm(self, a, b, c, m: int, n: int, k: int, trans_a: bool = False, trans_b: bool = False) -> Call:
        lda = m if trans_a else k
        ldb = k if trans_b else n
        args = (
            ROW_MAJOR, YES if trans_a else NO, YES if trans_b else NO, _size(m), _size(n), _size(k),
            ctypes.c_float(1), _mem(a.int_ptr), _size(0), _size(lda), _mem(b.int_ptr), _size(0),
            _size(ldb), ctypes.c_float(0), _mem(c.int_ptr), _size(0), _size(n),
        )  # fmt: skip
        return self.call("CLBlastSgemm", *args)

    def gemv(self, a, x, y, m: int, n: int) -> Call:
        args = (
            ROW_MAJOR, NO, _size(m), _size(n), ctypes.c_float(1), _mem(a.int_ptr), _size(0),
            _size(n), _mem(x.int_ptr), _size(0), _size(1), ctypes.c_float(0), _mem(y.int_ptr),
            _size(0), _size(1),
        )  # fmt: skip
        return self.call("CLBlastSgemv", *args)

    def dot(self, x, y, out, n: int) -> Call:
        args = (_size(n), _mem(out.int_ptr), _size(0), _mem(x.int_ptr), _size(0), _size(1),
                _mem(y.int_ptr), _size(0), _size(1))  # fmt: skip
        return self.call("CLBlastSdot", *args)

    def gemm_batched(self, a, b, c, batch: int, m: int, n: int, k: int) -> Call:
        def array(ctype, values):
            return (ctype * batch)(*values)

        alphas, betas = array(ctypes.c_float, [1.0] * batch), array(ctypes.c_float, [0.0] * batch)
        offsets = [array(_size, [i * rows * cols for i in range(batch)]) for rows, cols in ((m, k), (k, n), (m, n))]
        args = (
            ROW_MAJOR, NO, NO, _size(m), _size(n), _size(k), alphas, _mem(a.int_ptr), offsets[0],
            _size(k), _mem(b.int_ptr), offsets[1], _size(n), betas, _mem(c.int_ptr), offsets[2],
            _size(n), _size(batch),
        )  # fmt: skip
        return self.call("CLBlastSgemmBatched", *args)


class Call:
    """A CLBlast routine with fixed arguments: each call runs it once and returns (seconds
    on the device, seconds of its last kernel).

    From the second call on, the routine's kernels are queued behind a closed gate (a
    marker waiting on a user event) that opens when the routine returns, so they run
    back to back and the time excludes the host's work between enqueues. A routine that
    waits for the queue itself (blocking transfers) would wait forever: a timer opens
    the gate after `GATE_SECONDS`, and such a routine is timed without the gate from
    then on (its time then includes its host work).
    """

    GATE_SECONDS = 5.0

    def __init__(self, blas: CLBlast, routine: str, args: tuple):
        self.blas, self.function, self.args = blas, getattr(blas.lib, routine), args
        self.calls = 0
        self.gated = True

    def __call__(self) -> tuple[float, float]:
        import pyopencl as cl

        self.calls += 1
        if self.calls == 1 or not self.gated:  # the first call compiles CLBlast's kernels
            return self._run(None)
        gate = cl.UserEvent(self.blas.ctx)
        lock, opened_by = threading.Lock(), []

        def open_gate(by: str) -> None:
            with lock:
                if not opened_by:
                    opened_by.append(by)
                    gate.set_status(cl.command_execution_status.COMPLETE)

        timer = threading.Timer(self.GATE_SECONDS, open_gate, ("timer",))
        timer.start()
        try:
            result = self._run(gate, lambda: open_gate("routine"))
        finally:
            open_gate("routine")
            timer.cancel()
        if opened_by == ["timer"]:
            self.gated = False
            return self._run(None)
        return result

    @property
    def note(self) -> str:
        if self.gated:
            return "kernels queued behind a gate, timed back to back"
        return "the routine blocks on the queue: timed ungated, host work included"

    def _run(self, gate, on_return: Callable[[], None] = lambda: None) -> tuple[float, float]:
        """Run once after a marker (waiting on `gate` if given): (from the marker's end to
        the end of the routine's event, that event's duration)."""
        import pyopencl as cl

        from mdh_bench.measure import event_seconds

        marker = self.blas.mark([gate] if gate is not None else None)
        if gate is None:
            marker.wait()
        event = ctypes.c_void_p()
        status = self.function(*self.args, ctypes.byref(self.blas.queue_ptr), ctypes.byref(event))
        on_return()
        if status != 0:
            raise RuntimeError(f"CLBlast returned status {status}")
        last = cl.Event.from_int_ptr(event.value, retain=False)
        last.wait()
        return (last.profile.end - marker.profile.end) * 1e-9, event_seconds(last)


_SHIM = r"""
#include <cstdio>
#include <string>
#include <unordered_map>
typedef struct _cl_device_id *cl_device_id;
namespace clblast {
enum class StatusCode { kSuccess = 0 };
enum class Precision { kSingle = 32 };
StatusCode RetrieveParameters(const cl_device_id device, const std::string &kernel_name,
                              const Precision precision,
                              std::unordered_map<std::string, size_t> &parameters);
}
extern "C" int retrieve_parameters(cl_device_id device, const char *kernel, char *out, size_t n) {
    std::unordered_map<std::string, size_t> parameters;
    auto status = clblast::RetrieveParameters(device, kernel, clblast::Precision::kSingle, parameters);
    if (status != clblast::StatusCode::kSuccess) return static_cast<int>(status);
    std::string text;
    for (auto &p : parameters) text += p.first + "=" + std::to_string(p.second) + " ";
    std::snprintf(out, n, "%s", text.c_str());
    return 0;
}
"""


def build_shim(path: Path) -> None:
    """Compile the shim into `path` (g++)."""
    with tempfile.TemporaryDirectory(prefix="clblast_shim_") as tmp:
        source = Path(tmp) / "shim.cpp"
        source.write_text(_SHIM)
        subprocess.run(["g++", "-shared", "-fPIC", "-o", str(path), str(source)], check=True,
                       capture_output=True, timeout=120)  # fmt: skip


@cache
def _shim() -> ctypes.CDLL:
    """The shim (`$CLBLAST_SHIM`, else compiled now), its reference to CLBlast resolved
    by the library loaded globally."""
    library()
    if os.environ.get("CLBLAST_SHIM"):
        return ctypes.CDLL(os.environ["CLBLAST_SHIM"])
    with tempfile.TemporaryDirectory(prefix="clblast_shim_") as tmp:
        build_shim(Path(tmp) / "shim.so")
        return ctypes.CDLL(str(Path(tmp) / "shim.so"))


def tuned_parameters(device, kernel: str) -> str:
    """CLBlast's single-precision parameters for `kernel` (e.g. "Xgemm") on `device`."""
    try:
        shim = _shim()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown (no C++ shim to ask clblast::RetrieveParameters: {str(e)[:120]})"
    out = ctypes.create_string_buffer(4096)
    status = shim.retrieve_parameters(ctypes.c_void_p(device.int_ptr), kernel.encode(), out, _size(4096))
    if status != 0:
        return f"unknown (RetrieveParameters returned status {status})"
    return " ".join(sorted(out.value.decode().split()))


if __name__ == "__main__":
    # python -m mdh_bench.clblast build-shim FILE: a shim to carry to a machine without g++
    if sys.argv[1:2] != ["build-shim"] or len(sys.argv) != 3:
        sys.exit("usage: python -m mdh_bench.clblast build-shim FILE")
    build_shim(Path(sys.argv[2]).resolve())
