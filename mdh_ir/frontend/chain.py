"""Chains of MDH computations: one `Computation` called on another's result.

    @chain(fuse=True)
    def mm_bias_relu(A, B, b):
        return relu(bias(matmul(A, B), b))

    R = mm_bias_relu(A, B, b)          # one module, compiled and run as one program
    mm_bias_relu.evaluate(A, B, b)     # the reference semantics of the chain, op by op
    print(mm_bias_relu.module)         # @mm_bias_relu holds the three mdh.compute ops

`@chain` (`mdh_ir.frontend.python`) calls the decorated function once on the values
(`Value`) of a `Trace`, one per parameter. Calling a `Computation` on values records the
call (`Trace.call`) and returns its results as values (one, or a tuple for several
outputs), so the function's body is the chain.
The recorded calls become one module: a host function named after the decorated one,
taking the chain's arguments, holding every called computation's `mdh.compute` ops in
call order, each result an SSA value read by the ops it is passed to, and returning the
values the function returns. Its scalar and combine functions are the computations'
own, each copied once (renamed where two computations use one symbol name for
different functions; shared where a computation's functions are all copied already).

An argument's type is that of the first input it is passed as; every use of a value
must fit the input it is passed as (shape and element type), else an `MDHError` names
the input, the value and both types. Arrays cannot be mixed with values in a chain
(an array is passed as an argument of the chain), and the chain returns results of
its computations only.

With `fuse=True` the compiled chain runs `mdh-fuse` first (point-wise consumers become
their producers' epilogues; `mdh_ir.passes.fuse`); the reference semantics are the
unfused chain's either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, StringAttr, SymbolRefAttr,
)  # fmt: skip
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from mdh_ir.errors import MDHError
from mdh_ir.semantics.host import host_function
from mdh_ir.semantics.scalar_eval import numpy_dtype


def described(t: MemRefType) -> str:
    """`shape (4, 5) and dtype float32`."""
    return f"shape {tuple(t.get_shape())} and dtype {numpy_dtype(t.element_type)}"


@dataclass(frozen=True)
class Names:
    """The names of a computation's inputs and outputs (positions where not given)."""

    inputs: Sequence[str] = ()
    outputs: Sequence[str] = ()

    def input(self, i: int) -> str:
        return f"{i} ({self.inputs[i]})" if i < len(self.inputs) else str(i)

    def output(self, k: int) -> str:
        return f"{k} ({self.outputs[k]})" if k < len(self.outputs) else str(k)


@dataclass(eq=False)
class Value:
    """A value of a chain being traced: an argument of the chain or a computation's result."""

    trace: Trace
    what: str
    """`argument A of chain f`, `result y of matmul`: what error messages call it."""
    type: MemRefType | None
    """None for an argument that no computation has read yet."""
    used_as: str = ""
    """For an argument: the input that first gave it its type."""


@dataclass(eq=False)
class Call:
    """One computation (its module) called on values of the trace."""

    module: ModuleOp
    inputs: list[Value]
    results: list[Value] = field(default_factory=list)


class Trace:
    """The calls of a chain's function, recorded while it runs on its arguments' values."""

    def __init__(self, name: str, parameters: Sequence[str]):
        self.name = name
        self.arguments = [Value(self, f"argument {p} of chain {name}", None) for p in parameters]
        self.calls: list[Call] = []
        self.built = False
        """Whether `module` was made: the trace takes no more calls."""

    def call(self, module: ModuleOp, inputs: Sequence[object], names: Names) -> list[Value]:
        """Record the computation of `module` called on `inputs` (values of this trace,
        checked against its inputs' types); its results as values."""
        host = host_function(module)
        callee = host.sym_name.data
        wanted = list(host.function_type.inputs.data)
        if len(inputs) != len(wanted):
            raise MDHError(f"{callee}: {len(inputs)} inputs for {len(wanted)} input buffers")
        for i, (value, t) in enumerate(zip(inputs, wanted)):
            self.check_input(value, t, f"{callee}: input {names.input(i)}")
        call = Call(module, list(inputs))  # type: ignore[arg-type]
        outputs = host.function_type.outputs.data
        call.results = [
            Value(self, f"result {names.output(k)} of {callee}", t)  # type: ignore[arg-type]
            for k, t in enumerate(outputs)
        ]
        self.calls.append(call)
        return call.results

    def check_input(self, value: object, t: Attribute, what: str) -> None:
        """`value` fits the input `what` of type `t`, or `MDHError`; an argument read
        for the first time takes `t` as its type."""
        assert isinstance(t, MemRefType)
        if not isinstance(value, Value):
            raise MDHError(
                f"{what}: expected a value of chain {self.name} (one of its arguments or a "
                f"computation's result), got {type(value).__name__}; pass an array as an argument of the chain"
            )
        if value.trace is not self or self.built:
            raise MDHError(f"{what}: {value.what} belongs to another chain, built already or being built")
        if value.type is None:
            value.type, value.used_as = t, what
        elif value.type != t:
            first = f" (as {value.used_as})" if value.used_as else ""
            raise MDHError(
                f"{what}: expected {described(t)}, got {value.what} of {described(value.type)}{first}"
            )

    def module(self, returned: object) -> ModuleOp:
        """The chain's module, returning `returned` (a value or a tuple of values)."""
        self.built = True
        results = list(returned) if isinstance(returned, tuple | list) else [returned]
        produced = {v for c in self.calls for v in c.results}
        for k, v in enumerate(results):
            if not isinstance(v, Value) or v not in produced:
                got = v.what if isinstance(v, Value) else type(v).__name__
                raise MDHError(f"chain {self.name}: returns {got} as result {k}; it returns results of its computations only")
        for a in self.arguments:
            if a.type is None:
                raise MDHError(f"chain {self.name}: {a.what} is passed to no computation (its type is unknown)")
        block = Block(arg_types=[a.type for a in self.arguments])  # type: ignore[misc]
        values: dict[Value, SSAValue] = dict(zip(self.arguments, block.args))
        for arg, name in zip(block.args, self.arguments):
            arg.name_hint = name.what.split()[1]
        symbols = Symbols({self.name})
        for call in self.calls:
            renames = symbols.copy_functions(call.module)
            host = host_function(call.module)
            mapper: dict[SSAValue, SSAValue] = {
                a: values[v] for a, v in zip(host.body.block.args, call.inputs)
            }
            for op in host.body.block.ops:
                if isinstance(op, func.ReturnOp):
                    values.update((v, mapper.get(r, r)) for v, r in zip(call.results, op.arguments))
                else:
                    block.add_op(renamed(op.clone(mapper), renames))
        block.add_op(func.ReturnOp(*(values[v] for v in results)))
        host_func = func.FuncOp(self.name, (block.arg_types, [values[v].type for v in results]), Region(block))
        module = ModuleOp([*symbols.functions, host_func])
        module.verify()
        return module


class Symbols:
    """The functions copied into a chain's module, each computation's once, renamed
    where their names collide."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)
        self.functions: list[Operation] = []
        self.copied: dict[int, dict[str, str]] = {}

    def copy_functions(self, module: ModuleOp) -> dict[str, str]:
        """Copy `module`'s functions other than its host function (once per module;
        none where the module has only functions copied already: the same name and
        text); the renames made."""
        if id(module) in self.copied:
            return self.copied[id(module)]
        host = host_function(module)
        ops = [op for op in module.ops if op is not host]
        texts = {f.sym_name.data: str(f) for f in self.functions}  # type: ignore[attr-defined]
        if all(texts.get(op.sym_name.data) == str(op) for op in ops):  # type: ignore[attr-defined]
            self.copied[id(module)] = {}
            return {}
        renames = {}
        for op in ops:
            name = op.sym_name.data  # type: ignore[attr-defined]
            new, n = name, 0
            while new in self.taken:
                n += 1
                new = f"{name}_{n}"
            self.taken.add(new)
            if new != name:
                renames[name] = new
        for op in ops:
            copy = renamed(op.clone(), renames)
            name = op.sym_name.data  # type: ignore[attr-defined]
            copy.sym_name = StringAttr(renames.get(name, name))  # type: ignore[attr-defined]
            self.functions.append(copy)
        self.copied[id(module)] = renames
        return renames


def renamed(op: Operation, renames: dict[str, str]):
    """`op` (and the ops it holds), its symbol references renamed by `renames`."""
    if not renames:
        return op
    for o in op.walk():
        for attrs in (o.properties, o.attributes):
            for k, v in attrs.items():
                attrs[k] = renamed_attr(v, renames)
    return op


def renamed_attr(attr: Attribute, renames: dict[str, str]) -> Attribute:
    if isinstance(attr, SymbolRefAttr) and attr.root_reference.data in renames:
        return SymbolRefAttr(renames[attr.root_reference.data], attr.nested_references)
    if isinstance(attr, ArrayAttr):
        return ArrayAttr([renamed_attr(a, renames) for a in attr.data])
    if isinstance(attr, DictionaryAttr):
        return DictionaryAttr({k: renamed_attr(a, renames) for k, a in attr.data.items()})
    return attr
