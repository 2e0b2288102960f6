"""Run OpenCL programs through pyopencl: devices and contexts (`devices`), programs
built from lowered modules, their buffers and launches (`program`), inputs uploaded
once for the runs of many programs (`inputs`), and timing by profiling events behind
a gate, with cache flushes (`timing`). The runtime knows nothing of tuning or of the
passes: the compile driver (`mdh_ir.driver`) lowers a module and hands the OpenCL
source to it.

`compile_module` and `lower` moved to `mdh_ir.driver`; they stay importable from here.
"""

from mdh_ir.runtime.devices import DeviceError, _context, device_info, open_device, select_device
from mdh_ir.runtime.inputs import DeviceInputs
from mdh_ir.runtime.program import BuildError, Program, build, build_options, host_function
from mdh_ir.runtime.timing import _flush_kernel, _gate, flush, gated, span

__all__ = [
    "BuildError", "DeviceError", "DeviceInputs", "Program", "build", "build_options", "device_info",
    "flush", "gated", "host_function", "open_device", "select_device", "span",
]  # fmt: skip

_MOVED = ("compile_module", "lower")


def __getattr__(name: str):
    """The names that moved to the compile driver, for their earlier importers."""
    if name in _MOVED:
        from mdh_ir import driver

        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
