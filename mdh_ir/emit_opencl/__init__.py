"""OpenCL C generation from low-level IR, and the xDSL target `opencl`."""

from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from mdh_ir.emit_opencl.printer import print_opencl


def opencl_source(module: ModuleOp) -> str:
    out = StringIO()
    print_opencl(module, out)
    return out.getvalue()


@dataclass(frozen=True)
class OpenCLTarget(Target):
    """`-t opencl`: print a lowered module as an OpenCL program."""

    name = "opencl"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print_opencl(module, output)
