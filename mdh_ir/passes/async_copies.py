"""`lowlevel-async-copies`: the moves of asynchronous copies as `cp.async`, or as they are.

`lowlevel-prefetch` (`prefetch = 3`) issues local tiles' copies `stages - 1` steps
ahead as asynchronous copies, a group a step (`lowlevel.async_commit`), and waits for
a step's group (`lowlevel.async_wait`) before the barrier of the step that reads it;
`lowlevel-expand` moves their elements as loads and stores, the stores marked
`async`. With `cp_async` (a device that has PTX `cp.async`: NVIDIA compute capability
8.0 and later, `DeviceInfo.async_copies`) each marked store of a value loaded straight
from global memory (a load that nothing else uses) becomes one
`lowlevel.cp_async` of its 4, 8 or 16 bytes, where both accesses are aligned to them
(a vector load and store that `lowlevel-align-vectors` marked, or one element of 4
bytes): the data goes to local memory without registers while the work-item computes
on the current tile. Moves it cannot take (16-bit elements one at a time, a rounding or
a boundary's select between load and store, an unaligned vector) stay a synchronous
load and store, complete before the wait. Without `cp_async` every move stays as it is
and the commits and waits are dropped. The marks go either way.

    mdh-opt -p 'lowlevel-async-copies{cp_async=true}' f.mlir

    %v = vector.load %A[%i, %k] {alignment = 16} : memref<64x64xf32>, vector<4xf32>
    vector.store %v, %a_lcl[%r, %c] {alignment = 16, async} : memref<16x72xf32, "lcl">, ...
    ->
    lowlevel.cp_async %A[%i, %k] -> %a_lcl[%r, %c] bytes 16 : memref<64x64xf32> -> ...

It runs after `lowlevel-align-vectors` (`lower-to-opencl`).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import ModuleOp, VectorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from mdh_ir.dialects.lowlevel import (
    ALIGNMENT_ATTR,
    ASYNC_ATTR,
    AsyncCommitOp,
    AsyncWaitOp,
    CpAsyncOp,
    KernelOp,
    memory_space,
)
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.schedule.tiling import element_bytes

CP_ASYNC_BYTES = (4, 8, 16)
"""The sizes one `cp.async` moves."""


def value_bytes(t) -> int:
    """Bytes of a scalar or vector value of type `t`."""
    if isinstance(t, VectorType):
        return t.get_shape()[0] * element_bytes(t.element_type)
    return element_bytes(t)


def as_cp_async(store: Operation) -> CpAsyncOp | None:
    """The `cp_async` that does what `store` and the load of its value do, or None
    (module docstring)."""
    if isinstance(store, vector.StoreOp):
        load, dest, at = store.vector.owner, store.base, store.indices
        if not isinstance(load, vector.LoadOp) or not all(ALIGNMENT_ATTR in o.attributes for o in (load, store)):
            return None
    elif isinstance(store, memref.StoreOp):
        load, dest, at = store.value.owner, store.memref, store.indices
        if not isinstance(load, memref.LoadOp):
            return None
    else:
        return None
    source = load.base if isinstance(load, vector.LoadOp) else load.memref
    size = value_bytes(load.results[0].type)
    if memory_space(source.type) != "glb" or memory_space(dest.type) != "lcl" or size not in CP_ASYNC_BYTES:
        return None
    if len(list(load.results[0].uses)) != 1:
        return None
    return CpAsyncOp(source, load.indices, dest, at, size)


def rewrite(kernel: KernelOp, cp_async: bool) -> None:
    for op in list(kernel.walk()):
        if isinstance(op, AsyncWaitOp | AsyncCommitOp) and not cp_async:
            Rewriter.erase_op(op)
        elif ASYNC_ATTR in op.attributes:
            del op.attributes[ASYNC_ATTR]
            copy = as_cp_async(op) if cp_async else None
            if copy is not None:
                load = op.operands[0].owner
                Rewriter.replace_op(op, copy)
                Rewriter.erase_op(load)  # type: ignore[arg-type]


@dataclass(frozen=True)
class LowLevelAsyncCopies(ModulePass):
    name = "lowlevel-async-copies"

    cp_async: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            rewrite(kernel, self.cp_async)
