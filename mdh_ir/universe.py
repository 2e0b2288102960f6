"""What mdh_ir publishes to xDSL tools (`xdsl-opt`, `xdsl-run`, any xDSLOptMain)."""

from xdsl.universe import Universe

from mdh_ir.passes import ALL_PASSES


def _mdh():
    from mdh_ir.dialects.mdh import MDH

    return MDH


def _lowlevel():
    from mdh_ir.dialects.lowlevel import LowLevel

    return LowLevel


def _opencl():
    from mdh_ir.emit_opencl import OpenCLTarget

    return OpenCLTarget


UNIVERSE = Universe(
    all_dialects={"mdh": _mdh, "lowlevel": _lowlevel},
    all_passes=ALL_PASSES,
    all_targets={"opencl": _opencl},
)
