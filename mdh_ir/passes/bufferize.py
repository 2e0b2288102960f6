"""`mdh-bufferize`: give the host functions of `mdh.compute` ops buffers instead of tensors.

`convert-linalg-to-mdh` wraps the `mdh.compute` of a linalg op on tensors in
`bufferization.to_buffer` / `to_tensor`; the runtime and the `opencl` target run host
functions of buffers only. A tensor is a value: once made, no op of such a function
writes it again, so each tensor can be replaced by one buffer holding it:

    func.func @mm(%A: tensor<16x8xf32>, ...) -> tensor<16x12xf32>      memref<16x8xf32>, ...
      %e = tensor.empty() : tensor<16x12xf32>                           memref.alloc
      %k = arith.constant dense<1.0> : tensor<12xf32>                   memref.get_global @mm_k
      %f = linalg.fill ins(%c : f32) outs(%e) -> tensor<16x12xf32>      memref.get_global @mm_f
      %0 = bufferization.to_buffer %A read_only ...                     %A itself
      %1 = mdh.compute ... (%0, ...)
      %R = bufferization.to_tensor %1 restrict ...                      %1 itself
      func.return %R : tensor<16x12xf32>                                memref<16x12xf32>

- arguments and results of tensor type become memrefs of the same shape (identity
  layout);
- `tensor.empty` becomes `memref.alloc`;
- a tensor constant, and a `linalg.fill` of a constant into a tensor, become a constant
  `memref.global` holding every element (the runtime uploads it once and keeps it) read
  by `memref.get_global`;
- `bufferization.to_buffer` and `to_tensor` disappear;
- ops left without uses (`tensor.empty` of a fill, constants) are erased.

An op of a host function that has tensor operands or results and is none of these is
refused with one line naming it (`MDHError`); so is a fill of a value that is not a
constant. Functions without tensors are left as they are. The compile driver and
`lower-to-opencl` run this pass first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, bufferization, func, memref, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable
from xdsl.transforms.dead_code_elimination import region_dce

from mdh_ir.errors import MDHError


def buffer_type(t: Attribute) -> Attribute:
    """The memref type holding a value of type `t` (`t` itself unless a tensor)."""
    if isinstance(t, TensorType):
        return MemRefType(t.element_type, t.get_shape())
    return t


def _has_tensors(op: Operation) -> bool:
    return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


def _uses_tensors(f: func.FuncOp) -> bool:
    types = (*f.function_type.inputs.data, *f.function_type.outputs.data)
    return any(isinstance(t, TensorType) for t in types) or any(_has_tensors(o) for o in f.walk())


def _refuse(op: Operation, reason: str) -> MDHError:
    return MDHError(f"{op.name}: cannot bufferize: {reason}", op)


class _Function:
    """The bufferization of one host function."""

    def __init__(self, f: func.FuncOp, module: ModuleOp):
        self.f = f
        self.module = module
        self.allocs: list[memref.AllocOp] = []
        """The buffers of `tensor.empty`s (erased if nothing but a fill used them)."""

    def fresh_symbol(self, base: str) -> str:
        name, k = base, 0
        while SymbolTable.lookup_symbol(self.module, name) is not None:
            k += 1
            name = f"{base}_{k}"
        return name

    def constant_buffer(self, op: Operation, t: TensorType, values: DenseIntOrFPElementsAttr) -> SSAValue:
        """A `memref.get_global` of a new constant global holding `values`, before `op`."""
        mt = MemRefType(t.element_type, t.get_shape())
        data = list(values.get_values())  # one value when a splat
        full = data * int(np.prod(t.get_shape())) if len(data) == 1 else data
        name = self.fresh_symbol(f"{self.f.sym_name.data}_const")
        glob = memref.GlobalOp.get(
            StringAttr(name), mt, DenseIntOrFPElementsAttr.from_list(mt, full), constant=UnitAttr()
        )
        Rewriter.insert_op(glob, InsertPoint.before(self.f))
        get = memref.GetGlobalOp(name, mt)
        Rewriter.insert_op(get, InsertPoint.before(op))
        return get.memref

    def buffer_of(self, op: Operation) -> SSAValue | None:
        """The buffer replacing the result of `op`, a tensor op (None: refused)."""
        if isinstance(op, bufferization.ToTensorOp):
            return op.memref
        if isinstance(op, tensor.EmptyOp):
            alloc = memref.AllocOp.get(op.tensor.type.element_type, shape=op.tensor.type.get_shape())  # type: ignore[attr-defined]
            Rewriter.insert_op(alloc, InsertPoint.before(op))
            self.allocs.append(alloc)
            return alloc.memref
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
            return self.constant_buffer(op, op.result.type, op.value)  # type: ignore[arg-type]
        if isinstance(op, FillOp) and len(op.results) == 1:
            const = op.inputs[0].owner
            if not isinstance(const, arith.ConstantOp):
                raise _refuse(op, "it fills a tensor with a value that is not a constant")
            t = op.results[0].type
            values = DenseIntOrFPElementsAttr.from_list(buffer_type(t), [const.value.value.data])  # type: ignore
            return self.constant_buffer(op, t, values)  # type: ignore[arg-type]
        return None

    def apply(self) -> None:
        block = self.f.body.block
        for arg in block.args:
            if isinstance(arg.type, TensorType):
                Rewriter.replace_value_with_new_type(arg, buffer_type(arg.type))
        ft = self.f.function_type
        self.f.function_type = FunctionType.from_lists(
            [buffer_type(t) for t in ft.inputs.data], [buffer_type(t) for t in ft.outputs.data]
        )
        for op in list(block.walk()):
            if isinstance(op, bufferization.ToBufferOp):
                op.memref.replace_all_uses_with(op.tensor)
                Rewriter.erase_op(op)
            elif isinstance(op, func.ReturnOp):
                continue
            elif _has_tensors(op):
                if op.parent_block() is not block:
                    raise _refuse(op, "tensors are bufferized in the function's body only")
                buffer = self.buffer_of(op)
                if buffer is None:
                    raise _refuse(op, "no buffer rule for this op on tensors")
                op.results[0].replace_all_uses_with(buffer)
                Rewriter.erase_op(op, safe_erase=False)
        region_dce(self.f.body)
        for alloc in self.allocs:
            if not alloc.memref.uses:
                Rewriter.erase_op(alloc)


@dataclass(frozen=True)
class MDHBufferize(ModulePass):
    name = "mdh-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and not f.is_declaration and _uses_tensors(f):
                _Function(f, op).apply()
