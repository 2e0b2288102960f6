"""The passes of mdh_ir, one per file; `ALL_PASSES` maps names to pass classes."""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(import_module(f"mdh_ir.passes.{module}"), cls)


ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "mdh-default-config": _lazy("default_config", "MDHDefaultConfig"),
    "mdh-check-config": _lazy("check_config", "MDHCheckConfig"),
    "mdh-tile": _lazy("tile", "MDHTile"),
    "mdh-assign-asm": _lazy("assign_asm", "MDHAssignASM"),
    "mdh-promote-memory": _lazy("promote_memory", "MDHPromoteMemory"),
    "mdh-place-combine": _lazy("place_combine", "MDHPlaceCombine"),
    "mdh-mma": _lazy("mma", "MDHMma"),
    "mdh-vectorize": _lazy("vectorize", "MDHVectorize"),
    "mdh-keep-rows": _lazy("keep_rows", "MDHKeepRows"),
    "lowlevel-prefetch": _lazy("prefetch", "LowLevelPrefetch"),
    "lowlevel-expand": _lazy("expand", "LowLevelExpand"),
    "lowlevel-expand-mma": _lazy("expand_mma", "LowLevelExpandMma"),
    "lowlevel-tf32-ptx": _lazy("tf32_ptx", "LowLevelTF32Ptx"),
    "lowlevel-hoist-loads": _lazy("hoist_loads", "LowLevelHoistLoads"),
    "lowlevel-align-vectors": _lazy("align_vectors", "LowLevelAlignVectors"),
    "lowlevel-async-copies": _lazy("async_copies", "LowLevelAsyncCopies"),
    "lowlevel-swizzle-local": _lazy("swizzle_local", "LowLevelSwizzleLocal"),
    "lower-to-opencl": _lazy("lower_to_opencl", "LowerToOpenCL"),
    "convert-linalg-to-mdh": _lazy("convert_linalg_to_mdh", "ConvertLinalgToMDH"),
    "mdh-bufferize": _lazy("bufferize", "MDHBufferize"),
    "mdh-fuse": _lazy("fuse", "MDHFuse"),
    "mdh-split-stats": _lazy("split_stats", "MDHSplitStats"),
    "lowlevel-merge-kernels": _lazy("merge_kernels", "LowLevelMergeKernels"),
}
