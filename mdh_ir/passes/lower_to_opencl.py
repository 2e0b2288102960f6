"""`lower-to-opencl`: the whole pipeline from `mdh.compute` to printable low-level IR.

    mdh-bufferize, mdh-default-config{device=D}, mdh-check-config{device=D},
    mdh-split-stats, mdh-tile, mdh-assign-asm, mdh-promote-memory, mdh-place-combine,
    mdh-mma, mdh-vectorize{flush=(D is cpu)}, mdh-keep-rows, lowlevel-prefetch, lowlevel-expand,
    lowlevel-expand-mma (a device without tensor cores: `lowlevel.mma` as FMAs),
    lowlevel-tf32-ptx (a device that converts to TF32 in one instruction),
    lowlevel-merge-kernels, xDSL's dce and cse, lowlevel-hoist-loads, lowlevel-align-vectors,
    lowlevel-async-copies{cp_async=(D has cp.async)}, lowlevel-swizzle-local.

`mdh-opt --lower-to-opencl f.mlir` runs it and prints the OpenCL program.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from mdh_ir.device import PRESETS
from mdh_ir.passes.align_vectors import LowLevelAlignVectors
from mdh_ir.passes.assign_asm import MDHAssignASM
from mdh_ir.passes.async_copies import LowLevelAsyncCopies
from mdh_ir.passes.bufferize import MDHBufferize
from mdh_ir.passes.check_config import MDHCheckConfig
from mdh_ir.passes.default_config import MDHDefaultConfig
from mdh_ir.passes.expand import LowLevelExpand
from mdh_ir.passes.expand_mma import LowLevelExpandMma
from mdh_ir.passes.hoist_loads import LowLevelHoistLoads
from mdh_ir.passes.place_combine import MDHPlaceCombine
from mdh_ir.passes.keep_rows import MDHKeepRows
from mdh_ir.passes.merge_kernels import LowLevelMergeKernels
from mdh_ir.passes.mma import MDHMma
from mdh_ir.passes.prefetch import LowLevelPrefetch
from mdh_ir.passes.promote_memory import MDHPromoteMemory
from mdh_ir.passes.split_stats import MDHSplitStats
from mdh_ir.passes.swizzle_local import LowLevelSwizzleLocal
from mdh_ir.passes.tf32_ptx import LowLevelTF32Ptx
from mdh_ir.passes.tile import MDHTile
from mdh_ir.passes.vectorize import MDHVectorize


def pipeline(device: str = "cpu") -> list[ModulePass]:
    """The whole pipeline for a preset (`mdh_ir.device.PRESETS`)."""
    checks = [MDHBufferize(), MDHDefaultConfig(device), MDHCheckConfig(device)]
    preset = PRESETS.get(device)  # an unknown class: mdh-default-config says so
    if preset is None:
        return [*checks, *lowering(device)]
    return [*checks, *lowering(device, preset.tensor_cores, preset.tf32_conversion, preset.async_copies)]


def lowering(
    device: str = "cpu", tensor_cores: bool = False, tf32_conversion: bool = False, async_copies: bool = False
) -> list[ModulePass]:
    """The passes after the configuration is complete and checked (the runtime checks it
    against the real device instead of a preset); without `tensor_cores`, `lowlevel.mma`
    is expanded into FMAs; with `tf32_conversion`, TF32 rounding is the device's
    instruction (`DeviceInfo.tf32_conversion`); with `async_copies`, asynchronous copies
    move by `cp.async` (`DeviceInfo.async_copies`)."""
    return [
        MDHSplitStats(),
        MDHTile(),
        MDHAssignASM(),
        MDHPromoteMemory(aligned_copies=device == "gpu"),
        MDHPlaceCombine(),
        MDHMma(whole_tiles=tensor_cores),
        MDHVectorize(flush=device == "cpu"),
        MDHKeepRows(),
        LowLevelPrefetch(),
        LowLevelExpand(),
        *([] if tensor_cores else [LowLevelExpandMma()]),
        *([LowLevelTF32Ptx()] if tf32_conversion else []),
        LowLevelMergeKernels(),
        DeadCodeElimination(),
        CommonSubexpressionElimination(),
        LowLevelHoistLoads(),
        LowLevelAlignVectors(),
        LowLevelAsyncCopies(cp_async=async_copies),
        LowLevelSwizzleLocal(),
    ]


@dataclass(frozen=True)
class LowerToOpenCL(ModulePass):
    name = "lower-to-opencl"

    device: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for p in pipeline(self.device):
            p.apply(ctx, op)
