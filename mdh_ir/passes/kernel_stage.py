"""The passes that rewrite `lowlevel.kernel`s, in the order `lower-to-opencl` runs them,
and the record on each kernel of the last one that did (attribute `mdh.stage`).

Each of these passes rewrites a kernel once: `rewritten_by(name, module)` gives the
kernels of `module` that pass `name` may rewrite, each marked as rewritten by it, and
refuses one that it or a later pass already rewrote (`-p lower-to-opencl,lower-to-opencl`
would expand loops that are gone) with `MDHError` at the kernel's computation. Passes
may be left out; a kernel without the record (written by hand) is taken as it is.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr

from mdh_ir.dialects.lowlevel import KernelOp
from mdh_ir.errors import MDHError

KERNEL_PASSES = (
    "mdh-assign-asm", "mdh-promote-memory", "mdh-place-combine", "mdh-mma", "mdh-vectorize",
    "mdh-keep-rows", "lowlevel-prefetch", "lowlevel-expand", "lowlevel-expand-mma", "lowlevel-hoist-loads",
    "lowlevel-align-vectors", "lowlevel-async-copies", "lowlevel-swizzle-local",
)  # fmt: skip
STAGE_ATTR = "mdh.stage"


def rewritten_by(name: str, module: ModuleOp) -> list[KernelOp]:
    """The kernels of `module`, marked as rewritten by pass `name` (module docstring)."""
    step = KERNEL_PASSES.index(name)
    kernels = [k for k in module.walk() if isinstance(k, KernelOp)]
    for kernel in kernels:
        done = kernel.attributes.get(STAGE_ATTR)
        if isinstance(done, StringAttr) and KERNEL_PASSES.index(done.data) >= step:
            raise MDHError(
                f"{name}: kernel @{kernel.sym_name.data} was already rewritten by {done.data} "
                "(the passes of lower-to-opencl run once each, in its order)",
                kernel,
            )
    for kernel in kernels:
        kernel.attributes[STAGE_ATTR] = StringAttr(name)
    return kernels
