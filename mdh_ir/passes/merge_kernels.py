"""`lowlevel-merge-kernels`: the kernels of one kernel group become one kernel.

The phases of an op with row statistics (`mdh-split-stats`) are lowered as ops of their
own, each to a kernel carrying `kernel_group`; their launches follow each other in the
host function with the same NDRange, and every work-group holds whole rows (rule
`rows`), so a phase reads only statistics that its own work-group wrote. The group's
kernels become the first one, their bodies in launch order with a work-group barrier
between them, their arguments one per distinct host buffer (a row read by every phase is
one argument), launched where the last was (every buffer exists there: between the
launches the host only allocates the later phases' outputs); the other launches and
kernels are removed. The arrays marked as holding one host buffer's values across the
phases (`lowlevel.KEPT_ATTR`, `mdh-keep-rows`) become one, the first phase's.

A buffer the kernel only stores to and the host function allocates for this launch
alone (a statistic that every later phase reads from local memory, `mdh-keep-rows`) is
not stored any more; a barrier that this leaves right after another goes.

The barrier before a phase is on global memory where the phase uses a buffer an earlier
one wrote or writes one an earlier one used (a statistic written by one work-item and read
by the others), else on local memory only (what crosses the phases lies in the
work-group's arrays). The buffers that cross are the kernel's `shared` arguments
(`lowlevel.SHARED_ATTR`: declared without `restrict`, so that their reads stay after the
barrier; with `restrict`, NVIDIA's compiler read a row's statistic before the barrier,
its buffer's fill, and a fused softmax of 4096 x 4096 gave NaN everywhere):

    lowlevel.kernel @softmax_0(%x, %m, %s, %y) {
      ...                       max of each row of the work-group into %m
      lowlevel.barrier global   (local where mdh-keep-rows kept %m in local memory)
      ...                       sum of exp(x - m) into %s
      lowlevel.barrier global
      ...                       y = exp(x - m) / s
    }

Runs after `lowlevel-expand` (`lower-to-opencl`): earlier passes rewrite each kernel
from the op it carries.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import SymbolTable
from xdsl.transforms.dead_code_elimination import region_dce

from mdh_ir.dialects.lowlevel import KEPT_ATTR, SHARED_ATTR, BarrierOp, KernelOp, LaunchOp, i64_array
from mdh_ir.errors import MDHError
from mdh_ir.passes.carried import COMPUTE_ATTR


def group_of(kernel: KernelOp) -> str | None:
    props = kernel.attributes.get(COMPUTE_ATTR)
    group = props.data.get("kernel_group") if props is not None else None  # type: ignore[attr-defined]
    return group.data if isinstance(group, StringAttr) else None


def kernel_groups(module: ModuleOp) -> list[list[LaunchOp]]:
    """The launches of each kernel group of two or more kernels, in launch order."""
    groups: dict[tuple, list[LaunchOp]] = {}
    for launch in [o for o in module.walk() if isinstance(o, LaunchOp)]:
        kernel = SymbolTable.lookup_symbol(module, launch.kernel)
        group = group_of(kernel) if isinstance(kernel, KernelOp) else None
        if group is not None:
            groups.setdefault((launch.parent_block(), group), []).append(launch)
    return [launches for launches in groups.values() if len(launches) > 1]


def used(kernel: KernelOp, launch: LaunchOp) -> set[SSAValue]:
    """The host buffers whose arguments the kernel reads or writes."""
    return {v for arg, v in zip(kernel.body.block.args, launch.args) if arg.uses}


def join_kept(kernels: list[KernelOp], launches: list[LaunchOp]) -> None:
    """Make the arrays marked as holding one host buffer's values (`KEPT_ATTR`,
    `mdh-keep-rows`) the first phase's."""
    first: dict[tuple, SSAValue] = {}
    for kernel, launch in zip(kernels, launches):
        for alloca in [o for o in kernel.walk() if isinstance(o, memref.AllocaOp) and KEPT_ATTR in o.attributes]:
            position = alloca.attributes.pop(KEPT_ATTR)
            key = (launch.args[position.value.data], alloca.memref.type)  # type: ignore[attr-defined]
            if key in first:
                alloca.memref.replace_all_uses_with(first[key])
                Rewriter.erase_op(alloca)
            else:
                first[key] = alloca.memref


def merge(module: ModuleOp, launches: list[LaunchOp]) -> None:
    kernels = [SymbolTable.lookup_symbol(module, l.kernel) for l in launches]
    first = launches[0]
    for launch in launches[1:]:
        if launch.global_size != first.global_size or launch.local_size != first.local_size:
            raise MDHError(f"lowlevel-merge-kernels: kernel group {group_of(kernels[0])}: its launches differ in size", launch)  # type: ignore[arg-type]
    host_args: list[SSAValue] = []
    for launch in launches:
        host_args += [a for a in launch.args if a not in host_args]
    join_kept(kernels, launches)  # type: ignore[arg-type]
    written, uses = [], []
    for kernel, launch in zip(kernels, launches):
        stored = kernel.written()  # type: ignore[union-attr]
        written.append({v for arg, v in zip(kernel.body.block.args, launch.args) if arg in stored})  # type: ignore[union-attr]
        uses.append(used(kernel, launch))  # type: ignore[arg-type]
    crossing = [  # what phase n and an earlier one share through global memory
        {v for v in uses[n] if any(v in w for w in written[:n])} | {v for v in written[n] if any(v in u for u in uses[:n])}
        for n in range(len(launches))
    ]
    shared = sorted({host_args.index(v) for phase in crossing for v in phase})
    block = Block(arg_types=[a.type for a in host_args])
    for n, (launch, kernel) in enumerate(zip(launches, kernels)):
        if n:
            block.add_op(BarrierOp(global_memory=bool(crossing[n])))
        body = kernel.body.block  # type: ignore[union-attr]
        for arg, value in zip(body.args, launch.args):
            arg.replace_all_uses_with(block.args[host_args.index(value)])
        for op in list(body.ops):
            op.detach()
            block.add_op(op)
    merged = kernels[0]
    old = merged.body.block  # type: ignore[union-attr]
    merged.body.insert_block_before(block, old)  # type: ignore[union-attr]
    merged.body.detach_block(old)  # type: ignore[union-attr]
    merged.function_type = FunctionType.from_lists(block.arg_types, [])  # type: ignore[union-attr]
    if shared:
        merged.attributes[SHARED_ATTR] = i64_array(shared)
    sizes = (first.global_size.get_values(), first.local_size.get_values())
    Rewriter.replace_op(launches[-1], LaunchOp(first.kernel.root_reference.data, host_args, *sizes))
    for launch in launches[:-1]:
        Rewriter.erase_op(launch)
    for kernel in kernels[1:]:
        Rewriter.erase_op(kernel)  # type: ignore[arg-type]
    drop_unread_buffers(merged, host_args)  # type: ignore[arg-type]


def unread(arg: SSAValue, host: SSAValue) -> bool:
    """Whether the kernel only stores to `arg` and the host function only allocates its
    buffer `host` for this launch (no phase and nothing after reads it)."""
    if isinstance(host, BlockArgument) or len(list(host.uses)) != 1:
        return False
    return bool(arg.uses) and all(isinstance(u.operation, memref.StoreOp) and u.index == 1 for u in arg.uses)


def drop_unread_buffers(kernel: KernelOp, host_args: list[SSAValue]) -> None:
    """Erase the stores to buffers nobody reads (a statistic every later phase reads from
    local memory, `mdh-keep-rows`), then what computed only them (`region_dce`: the
    reads and the `scf.if`s), then the first of two barriers left adjacent (the other
    global where either was)."""
    block = kernel.body.block
    for arg, host in zip(block.args, host_args):
        if unread(arg, host):
            for use in list(arg.uses):
                Rewriter.erase_op(use.operation)
    region_dce(kernel.body)
    for op in list(block.ops):
        after = op.next_op
        if isinstance(op, BarrierOp) and isinstance(after, BarrierOp):
            if op.global_memory is not None:
                after.global_memory = op.global_memory
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowLevelMergeKernels(ModulePass):
    name = "lowlevel-merge-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for launches in kernel_groups(op):
            merge(op, launches)
