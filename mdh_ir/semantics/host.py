"""The reference semantics of a host function: its `mdh.compute` ops run in order.

A host function (what `convert-linalg-to-mdh` and `mdh-bufferize` make, or one written
by hand) takes buffers and holds, besides `mdh.compute` ops, only what the runtime runs:
`memref.alloc` (a fresh buffer), `memref.get_global` (a constant buffer),
`memref.copy` (a result written into a buffer, such as an argument: the destination of
a linalg op's `outs`), scalar constants and `func.return`.

Its inputs are its arguments; its outputs are its results, then the arguments it writes
(`written_arguments`, in argument order): a function writing its result into an argument
returns it as an output, as the runtime does (`mdh_ir.runtime.program`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import BlockArgument, SSAValue
from xdsl.traits import SymbolTable

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.semantics.arrays import checked_arrays
from mdh_ir.semantics.reference import ReferenceEvaluator
from mdh_ir.semantics.scalar_eval import dtype_kind, numpy_dtype


def host_function(module: ModuleOp) -> func.FuncOp:
    """The function of `module` holding its `mdh.compute` ops."""
    hosts = {
        op.parent_op() for op in module.walk() if isinstance(op, ComputeOp)
    }  # fmt: skip
    if len(hosts) != 1:
        raise ValueError(f"expected the mdh.compute ops in one function, found {len(hosts)} functions")
    (host,) = hosts
    if not isinstance(host, func.FuncOp):
        raise ValueError("the mdh.compute ops must lie directly in a func.func")
    return host


def written_arguments(host: func.FuncOp) -> list[BlockArgument]:
    """The arguments of `host` that it writes (copy destinations), in argument order."""
    targets = {op.destination for op in host.walk() if isinstance(op, memref.CopyOp)}
    return [a for a in host.body.block.args if a in targets]


def random_arguments(host: func.FuncOp, rng: np.random.Generator) -> list[np.ndarray]:
    """Random arguments for `host`: floats in [-1, 1), integers in [-8, 8) (the draws of
    `reference.random_inputs` where the arguments are one op's inputs)."""
    arrays = []
    for arg in host.body.block.args:
        t = arg.type
        assert isinstance(t, MemRefType), f"host function argument of type {t}"
        dtype, shape = numpy_dtype(t.element_type), t.get_shape()
        if dtype_kind(dtype) == "f":
            arrays.append(rng.uniform(-1, 1, shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, shape).astype(dtype))
    return arrays


def evaluate_host(module: ModuleOp, inputs: Sequence[np.ndarray], promote: bool = True) -> list[np.ndarray]:
    """The outputs of the host function of `module` on `inputs` (module docstring);
    `promote`: as `reference.evaluate`."""
    host = host_function(module)
    block = host.body.block
    buffers: dict[SSAValue, np.ndarray] = dict(zip(block.args, checked_arrays(block.args, inputs, f"@{host.sym_name.data}")))
    for op in block.ops:
        if isinstance(op, ComputeOp):
            results = ReferenceEvaluator(op, promote)([buffers[v] for v in op.operands])
            buffers.update(zip(op.results, results))
        elif isinstance(op, memref.AllocOp):
            t = op.memref.type
            buffers[op.memref] = np.zeros(t.get_shape(), numpy_dtype(t.element_type))
        elif isinstance(op, memref.GetGlobalOp):
            glob = SymbolTable.lookup_symbol(module, op.name_.root_reference.data)
            assert isinstance(glob, memref.GlobalOp)
            t = glob.type
            values = glob.initial_value.get_values()  # type: ignore[union-attr]
            buffers[op.memref] = np.array(values, numpy_dtype(t.element_type)).reshape(t.get_shape())
        elif isinstance(op, memref.CopyOp):
            # buffers are written only by copies: rebinding the destination is writing it
            buffers[op.destination] = buffers[op.source]
        elif isinstance(op, func.ReturnOp):
            results = [buffers[v] for v in op.arguments]
            return results + [buffers[a] for a in written_arguments(host)]
        elif not isinstance(op, arith.ConstantOp):
            raise ValueError(f"no reference semantics for {op.name} in a host function")
    raise AssertionError("a func.func ends with func.return")
