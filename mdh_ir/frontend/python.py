"""The MDH Python interface of the papers: views as lambdas, `md_hom`, scalar functions.

    from operator import add
    from mdh_ir.frontend import Buffer, cc, inp, inp_view, md_hom, mdh, out, out_view, pw
    from mdh_ir.builder import f32

    @mdh(out(w=Buffer[f32]), inp(M=Buffer[f32], v=Buffer[f32]))
    def matvec():
        def mul(out, inp):
            out['w'] = inp['M'] * inp['v']

        return (
            out_view[f32](w=[lambda i, k: (i)]),
            md_hom[128, 64](mul, (cc, pw(add))),
            inp_view[f32, f32](M=[lambda i, k: (i, k)], v=[lambda i, k: (k)]),
        )

    w = matvec(M, v)                  # lowered, built and run with OpenCL (numpy in and out)
    print(matvec.module)              # the mdh.compute IR

Calling computations on each other's results inside a function decorated with `@chain`
builds one module of several `mdh.compute` ops (`mdh_ir.frontend.chain`):

    @chain(fuse=True)
    def matvec_relu(M, v):
        return relu(matvec(M, v))

A view lambda takes one index per dimension and returns the buffer's index tuple; an
input with several lambdas is read at several places, and the scalar function reads
them as `inp['x', 0]`, `inp['x', 1]`, ... (`inp['x']` is the first). A scalar function
`f(out, inp)` may also take the point's indices: `f(out, inp, i, k)`. Combine operators:
`cc`, `pw(g)`, `ps(g)` with `g` a builtin (`operator.add`, `operator.mul`, `max`, `min`,
`operator.and_`, `operator.or_`, `operator.xor`, or its name "add", ...) or a function
`g(res, lhs, rhs)` writing `res['w'] = ...` from `lhs['w']` and `rhs['w']`. The
declarations `out(...)`/`inp(...)` are optional; `Buffer(T, boundary, shape)` gives an
input's boundary mode and shape. Scalars are traced as in `mdh_ir.builder` (`select`,
`maximum`, `exp`, `cast`, ...). Inputs may be `Buffer[f16]` or `Buffer[bf16]` (read as
f32; numpy `float16` and `ml_dtypes.bfloat16` arrays), and `@mdh(..., precision="tf32")`
reads f32 inputs rounded to TF32.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineExpr

from mdh_ir import builder
from mdh_ir.builder import CombineSpec, Input, Output, Scalar, cc, compute_module
from mdh_ir.frontend.chain import Names, Trace, Value
from mdh_ir.schedule.config import Config
from mdh_ir.semantics.host import evaluate_host

__all__ = [
    "Buffer", "Computation", "cc", "chain", "inp", "inp_view", "md_hom", "mdh", "out", "out_view",
    "ps", "pw",
]  # fmt: skip

_PYTHON_BUILTINS: dict[Any, str] = {
    operator.add: "add", operator.mul: "mul", max: "max", min: "min",
    operator.and_: "and", operator.or_: "or", operator.xor: "xor",
}  # fmt: skip
"""Python functions standing for the builtin combine functions."""


def pw(g: str | Callable) -> CombineSpec:
    """Point-wise combination with `g` (a builtin or `g(res, lhs, rhs)`)."""
    return builder.pw(_PYTHON_BUILTINS.get(g, g))


def ps(g: str | Callable) -> CombineSpec:
    """Prefix-sum combination with `g` (a builtin or `g(res, lhs, rhs)`)."""
    return builder.ps(_PYTHON_BUILTINS.get(g, g))


# ---------------------------------------------------------------------------------------
# Views: lambdas over the dimension indices, called on symbolic indices
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """A symbolic index: an affine expression written with `+`, `-`, `*` and integers."""

    expr: AffineExpr

    def __add__(self, other: Index | int) -> Index:
        return Index(self.expr + _expr(other))

    __radd__ = __add__

    def __mul__(self, other: int) -> Index:
        if not isinstance(other, int):
            raise TypeError("an index may only be multiplied by an integer")
        return Index(self.expr * other)

    __rmul__ = __mul__

    def __neg__(self) -> Index:
        return self * -1

    def __sub__(self, other: Index | int) -> Index:
        return self + -other

    def __rsub__(self, other: int) -> Index:
        return -self + other


def _expr(x: Index | int) -> AffineExpr:
    if isinstance(x, Index):
        return x.expr
    if isinstance(x, int) and not isinstance(x, bool):
        return AffineExpr.constant(x)
    raise TypeError(f"an index is built from indices and integers, not {x!r}")


def dims(rank: int) -> list[str]:
    """The dimension names views are written over (`d0`, `d1`, ...)."""
    return [f"d{d}" for d in range(rank)]


def view_text(results: Index | int | Sequence[Index | int]) -> str:
    """An index tuple as view text over `dims(rank)` (see `mdh_ir.builder.parse_view`)."""
    if not isinstance(results, tuple | list):
        results = (results,)
    return ", ".join(str(_expr(r)) for r in results)


def _required(f: Callable) -> int:
    """The number of parameters of `f` without a default (defaults bind constants)."""
    return sum(p.default is p.empty for p in inspect.signature(f).parameters.values())


def trace_view(view: Callable, rank: int) -> str:
    """The view text of a lambda over `rank` indices."""
    params = _required(view)
    if params != rank:
        raise TypeError(f"a view lambda takes {rank} indices (one per dimension), not {params}")
    return view_text(view(*(Index(AffineExpr.dimension(d)) for d in range(rank))))


# ---------------------------------------------------------------------------------------
# Scalar and combine functions over named buffers
# ---------------------------------------------------------------------------------------


class Reads:
    """What a scalar function reads: `inp['M']`, or `inp['x', k]` for the k-th access."""

    def __init__(self, values: dict[str, list[Scalar]]):
        self._values = values

    def __getitem__(self, key: str | tuple[str, int]) -> Scalar:
        name, k = key if isinstance(key, tuple) else (key, 0)
        if name not in self._values:
            raise KeyError(f"no input named {name!r} (inputs: {', '.join(self._values)})")
        accesses = self._values[name]
        if not 0 <= k < len(accesses):
            raise IndexError(f"input {name!r} has {len(accesses)} accesses, not access {k}")
        return accesses[k]


def _written(results: dict[str, Any], names: Sequence[str], what: str) -> tuple:
    """The values `what` wrote, in output order; every output exactly."""
    if set(results) != set(names):
        raise ValueError(
            f"{what} must write exactly the outputs {list(names)}, wrote {list(results)}"
        )
    return tuple(results[n] for n in names)


def _scalar_function(f: Callable, inputs: dict[str, int], outputs: Sequence[str]) -> Callable:
    """`f(out, inp[, *indices])` as a function of the accesses' scalars (and indices)."""

    def traced(*args: Scalar) -> tuple:
        reads, it = {}, iter(args)
        for name, count in inputs.items():
            reads[name] = [next(it) for _ in range(count)]
        results: dict[str, Any] = {}
        f(results, Reads(reads), *it)
        return _written(results, outputs, f"scalar function {f.__name__}")

    return traced


def combine_spec(spec: CombineSpec, outputs: Sequence[str]) -> CombineSpec:
    """`spec` with a function `g(res, lhs, rhs)` turned into one over the outputs' scalars."""
    g = spec.func
    if not callable(g):
        return spec

    def traced(*args: Scalar) -> tuple:
        n = len(outputs)
        results: dict[str, Any] = {}
        g(results, dict(zip(outputs, args[:n])), dict(zip(outputs, args[n:])))
        return _written(results, outputs, f"combine function {g.__name__}")

    return CombineSpec(spec.kind, traced)


def _takes_indices(f: Callable, rank: int) -> bool:
    """Whether scalar function `f(out, inp)` also takes the point's `rank` indices."""
    params = _required(f)
    if params not in (2, 2 + rank):
        raise TypeError(f"scalar function {f.__name__} takes (out, inp[, {rank} indices])")
    return params > 2


# ---------------------------------------------------------------------------------------
# The three parts of an MDH: out_view[T...](...), md_hom[N...](f, ops), inp_view[T...](...)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Views:
    """Typed buffers and their view lambdas, in keyword order."""

    types: tuple[Attribute, ...]
    lambdas: dict[str, list[Callable]]


class _ViewsOf:
    """`out_view[T1, T2](a=[...], b=[...])`: one type per buffer."""

    def __getitem__(self, types: Attribute | tuple[Attribute, ...]) -> Callable[..., Views]:
        types = types if isinstance(types, tuple) else (types,)

        def views(**lambdas: Callable | list[Callable]) -> Views:
            if len(lambdas) != len(types):
                raise TypeError(f"{len(types)} types but {len(lambdas)} buffers")
            listed = {k: v if isinstance(v, list | tuple) else [v] for k, v in lambdas.items()}
            return Views(types, {k: list(v) for k, v in listed.items()})

        return views


out_view = _ViewsOf()
inp_view = _ViewsOf()


@dataclass(frozen=True)
class MdHom:
    """`md_hom[N1, ..., ND](f, (op1, ..., opD))`."""

    sizes: tuple[int, ...]
    scalar: Callable
    combine: tuple[CombineSpec, ...]


class _MdHomOf:
    def __getitem__(self, sizes: int | tuple[int, ...]) -> Callable[..., MdHom]:
        sizes = sizes if isinstance(sizes, tuple) else (sizes,)

        def hom(f: Callable, ops: CombineSpec | Sequence[CombineSpec]) -> MdHom:
            ops = (ops,) if isinstance(ops, CombineSpec) else tuple(ops)
            if len(ops) != len(sizes):
                raise TypeError(f"{len(sizes)} dimensions but {len(ops)} combine operators")
            return MdHom(sizes, f, ops)

        return hom


md_hom = _MdHomOf()


@dataclass(frozen=True)
class Buffer:
    """A buffer declaration: `Buffer[f32]`, or `Buffer(f32, "clamp", shape=(n,))` for an
    input read outside its bounds."""

    type: Attribute
    boundary: str = "none"
    shape: tuple[int, ...] | None = None

    def __class_getitem__(cls, t: Attribute) -> Buffer:
        return cls(t)


def out(**buffers: Buffer) -> dict[str, Buffer]:
    """The output buffers of `@mdh(out(...), inp(...))`."""
    return buffers


def inp(**buffers: Buffer) -> dict[str, Buffer]:
    """The input buffers of `@mdh(out(...), inp(...))`."""
    return buffers


def _declared(views: Views, decls: dict[str, Buffer] | None, what: str) -> dict[str, Buffer]:
    """Each view's buffer: its declaration, checked against the view's type."""
    viewed = {name: Buffer(t) for name, t in zip(views.lambdas, views.types)}
    if decls is None:
        return viewed
    if list(decls) != list(viewed):
        raise ValueError(f"{what}({', '.join(decls)}) declared, views of {', '.join(viewed)}")
    for name, decl in decls.items():
        if decl.type != viewed[name].type:
            raise TypeError(f"buffer {name}: declared {decl.type}, viewed as {viewed[name].type}")
    return decls


def build_module(
    name: str, outs: Views, hom: MdHom, ins: Views,
    out_decl: dict[str, Buffer] | None = None, inp_decl: dict[str, Buffer] | None = None,
    precision: str = "ieee",
) -> ModuleOp:  # fmt: skip
    """The `mdh.compute` module of `out_view`, `md_hom`, `inp_view` (and declarations);
    `precision="tf32"` reads its f32 inputs as TF32."""
    rank = len(hom.sizes)
    out_buffers = _declared(outs, out_decl, "out")
    inputs = [
        Input(n, b.type, [trace_view(v, rank) for v in ins.lambdas[n]], b.boundary, b.shape)
        for n, b in _declared(ins, inp_decl, "inp").items()
    ]
    outputs = []
    for n, b in out_buffers.items():
        if len(outs.lambdas[n]) != 1:
            raise ValueError(f"output {n} needs exactly one view")
        outputs.append(Output(n, b.type, trace_view(outs.lambdas[n][0], rank)))
    names = list(out_buffers)
    return compute_module(
        name,
        dict(zip(dims(rank), hom.sizes)),
        inputs,
        outputs,
        scalar=_scalar_function(hom.scalar, {n: len(v) for n, v in ins.lambdas.items()}, names),
        combine=[combine_spec(c, names) for c in hom.combine],
        indices=_takes_indices(hom.scalar, rank),
        precision=precision,
    )


# ---------------------------------------------------------------------------------------
# The callable computation
# ---------------------------------------------------------------------------------------


class Computation:
    """An MDH computation, or a chain of them: its IR (`module`), reference results and
    OpenCL runs.

    `c(*arrays)` lowers, builds (once per device) and runs it; like `evaluate`, it
    returns the output array, or a tuple of arrays for several outputs. Inside a
    `@chain` function, `c(*values)` records the call and returns its result value(s).
    `fuse`: compile with `mdh-fuse` (`compile_module(fuse=True)`); `names`: the inputs'
    and outputs' names, for messages.
    """

    def __init__(self, module: ModuleOp, fuse: bool = False, names: Names = Names()):
        self.module = module
        self.fuse = fuse
        self.names = names
        self._programs: dict[Any, Any] = {}

    def compile(self, device: Any = None, config: Config | Sequence[Config | None] | None = None):
        """The compiled module (`mdh_ir.driver.Compiled`; the tuning database's best
        configuration of each op if none is given)."""
        from mdh_ir.driver import compile_module

        return compile_module(self.module, device, config, fuse=self.fuse)

    def __call__(self, *inputs: Any, device: Any = None) -> Any:
        traces = {x.trace for x in inputs if isinstance(x, Value)}
        if traces:
            (trace, *_) = traces
            return _unpack(trace.call(self.module, inputs, self.names))
        if device not in self._programs:
            self._programs[device] = self.compile(device)
        return _unpack(self._programs[device](*inputs))

    def evaluate(self, *inputs: np.ndarray) -> np.ndarray | tuple:
        """The reference semantics' outputs (`mdh_ir.semantics.reference`, op by op)."""
        return _unpack(evaluate_host(self.module, inputs))

    def __str__(self) -> str:
        return str(self.module)


def _unpack(outputs: list) -> Any:
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def mdh(
    out_decl: dict[str, Buffer] | None = None, inp_decl: dict[str, Buffer] | None = None, precision: str = "ieee"
):
    """Decorator: a function returning `(out_view, md_hom, inp_view)` -> `Computation`;
    `precision="tf32"` reads f32 inputs rounded to TF32 (`mdh.ComputeOp`)."""

    def decorate(define: Callable[[], tuple[Views, MdHom, Views]]) -> Computation:
        outs, hom, ins = define()
        module = build_module(define.__name__, outs, hom, ins, out_decl, inp_decl, precision)
        return Computation(module, names=Names(list(ins.lambdas), list(outs.lambdas)))

    return decorate


def chain(fuse: bool = False) -> Callable[[Callable[..., Any]], Computation]:
    """Decorator: a function calling computations on its arguments (and on each other's
    results) -> the chain as one `Computation` (`mdh_ir.frontend.chain`); `fuse`:
    compile it with `mdh-fuse`."""

    def decorate(define: Callable[..., Any]) -> Computation:
        parameters = list(inspect.signature(define).parameters)
        trace = Trace(define.__name__, parameters)
        module = trace.module(define(*trace.arguments))
        return Computation(module, fuse, Names(parameters))

    return decorate
