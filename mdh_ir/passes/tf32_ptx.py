"""`lowlevel-tf32-ptx`: TF32 rounding by the device's conversion instruction.

`lowlevel.round_tf32` (an f32 read as TF32, `precision = "tf32"`) is printed as integer
operations: the bits plus 0xfff plus the lowest kept bit, masked, and a select that keeps
NaN (six to seven instructions per element). On a device that converts in one
instruction as `round_tf32` rounds (to nearest, ties to even: PTX `cvt.rn.tf32.f32`,
compute capability 9.0 and later, `DeviceInfo.tf32_conversion`) this pass marks every
`round_tf32` (`ptx`), which the printer emits as that instruction, one per element.
Rounding sits in the copies of the inputs into local memory (mdh-promote-memory), so on
tensor cores it was about a third of the main loop's instructions (mdh_bench/RESULTS.md).

    mdh-opt -p lowlevel-tf32-ptx f.mlir
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.passes import ModulePass

from mdh_ir.dialects.lowlevel import PTX_ATTR, RoundTF32Op


@dataclass(frozen=True)
class LowLevelTF32Ptx(ModulePass):
    name = "lowlevel-tf32-ptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for rounding in op.walk():
            if isinstance(rounding, RoundTF32Op):
                rounding.attributes[PTX_ATTR] = UnitAttr()
