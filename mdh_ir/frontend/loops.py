"""The annotated-loop form: a Python loop nest and its combine operators.

    from operator import add
    from mdh_ir.frontend import cc, combine_ops, pw

    @combine_ops(cc, pw(add))
    def matvec(M, v, w):
        for i in range(128):
            for k in range(64):
                w[i] += M[i, k] * v[k]

    w = matvec(M, v)

The function's parameters are the buffers, typed by annotations (`M: i32`; f32 if
omitted); those written are the outputs, the others the inputs, both in parameter order.
The loops must nest perfectly, one per dimension, `range(N)` or `range(0, N)`. The
innermost body holds assignments: `w[i] = ...` (the scalar function's value for output
`w`; `w[i] += ...` says the same and checks that the dimensions it reduces combine with
`+`), and temporaries `t = ...`. Subscripted reads of inputs give the views (reads at
distinct indices are the accesses of a stencil); loop variables read as values give the
point's indices. Sizes and constants come from the function's globals and closure;
`max`, `min` and `abs` in the body mean `maximum`, `minimum` and `absf`.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir.affine import AffineExpr

from mdh_ir.builder import CombineSpec, Input, Output, absf, compute_module, f32, maximum, minimum
from mdh_ir.frontend.python import Computation, Index, combine_spec, dims, view_text

_AUGMENTED = {
    ast.Add: ("+=", "add"), ast.Mult: ("*=", "mul"), ast.BitAnd: ("&=", "and"),
    ast.BitOr: ("|=", "or"), ast.BitXor: ("^=", "xor"),
}  # fmt: skip
"""Augmented assignments and the builtin combine each one implies."""


class LoopFormError(SyntaxError):
    """A loop nest outside the annotated-loop form."""


def combine_ops(*ops: CombineSpec) -> Callable[[Callable], Computation]:
    """Decorator: a loop nest with one combine operator per loop -> `Computation`."""
    return lambda fn: Computation(loop_module(fn, ops))


def _fail(node: ast.stmt | ast.expr, message: str) -> LoopFormError:
    return LoopFormError(f"line {node.lineno}: {message}")


def _eval(node: ast.expr, ns: dict[str, Any]) -> Any:
    return eval(compile(ast.Expression(node), "<loops>", "eval"), ns)


def _loops(fdef: ast.FunctionDef, ns: dict[str, Any]) -> tuple[dict[str, int], list[ast.stmt]]:
    """The loop variables with their trip counts, and the innermost body."""
    sizes: dict[str, int] = {}
    body = fdef.body[1:] if ast.get_docstring(fdef) is not None else fdef.body
    while len(body) == 1 and isinstance(loop := body[0], ast.For):
        call = loop.iter
        is_range = isinstance(call, ast.Call) and ast.unparse(call.func) == "range"
        bounds = [_eval(a, ns) for a in call.args] if is_range else []  # type: ignore[union-attr]
        if len(bounds) == 2 and bounds[0] == 0:
            bounds = bounds[1:]
        if not (isinstance(loop.target, ast.Name) and len(bounds) == 1
                and isinstance(bounds[0], int) and not loop.orelse):  # fmt: skip
            raise _fail(loop, "a loop is `for i in range(N)` or `range(0, N)`, N an integer")
        sizes[loop.target.id] = bounds[0]
        body = loop.body
    if not sizes or any(isinstance(n, ast.For) for s in body for n in ast.walk(s)):
        raise LoopFormError(f"line {fdef.lineno}: the loops must nest perfectly around the body")
    return sizes, body


class _Body(ast.NodeTransformer):
    """Turns the innermost body into a scalar function, collecting the views on the way."""

    def __init__(self, params: list[str], loop_vars: list[str], ns: dict[str, Any]):
        self.params, self.loop_vars, self.ns = params, loop_vars, ns
        self.reads: dict[str, list[str]] = {}
        """Per input, its distinct access views."""
        self.writes: dict[str, tuple[str, type | None]] = {}
        """Per output, its view and the augmented operator it was written with."""
        self.lines: list[str] = []
        """The scalar function's statements."""
        self.uses_indices = False

    def view(self, node: ast.Subscript) -> str:
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        point = {v: Index(AffineExpr.dimension(d)) for d, v in enumerate(self.loop_vars)}
        try:
            return view_text(tuple(_eval(e, {**self.ns, **point}) for e in items))
        except TypeError as e:
            raise _fail(node, f"index {ast.unparse(node)} is not affine: {e}") from None

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if not (isinstance(node.value, ast.Name) and node.value.id in self.params):
            return self.generic_visit(node)
        name = node.value.id
        if name in self.writes:
            raise _fail(node, f"{name} is an output: the body may not read it")
        accesses = self.reads.setdefault(name, [])
        view = self.view(node)
        if view not in accesses:
            accesses.append(view)
        return ast.Name(f"_{name}_{accesses.index(view)}", ast.Load())

    def visit_Name(self, node: ast.Name) -> ast.AST:
        self.uses_indices |= node.id in self.loop_vars
        return node

    def statement(self, stmt: ast.stmt) -> None:
        """Add `stmt`, an assignment to a temporary or an output, to the function."""
        target = stmt.target if isinstance(stmt, ast.AugAssign) else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name):
            self.lines.append(f"{target.id} = {ast.unparse(self.visit(stmt.value))}")
            return
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and target.value.id in self.params):  # fmt: skip
            raise _fail(stmt, "the body assigns temporaries `t = ...` and outputs `w[i] = ...`")
        assert isinstance(stmt, ast.Assign | ast.AugAssign)
        name = target.value.id
        value = self.visit(stmt.value)
        if name in self.reads:
            raise _fail(stmt, f"{name} is an output: the body may not read it")
        if name in self.writes:
            raise _fail(stmt, f"{name} is written twice")
        op = type(stmt.op) if isinstance(stmt, ast.AugAssign) else None
        self.writes[name] = (self.view(target), op)
        self.lines.append(f"_{name} = {ast.unparse(value)}")

    def scalar_function(self, inputs: list[str], outputs: list[str]) -> Callable:
        """`def f(<accesses>, [<loop variables>]): <lines>; return (<outputs>,)`."""
        args = [f"_{p}_{k}" for p in inputs for k in range(len(self.reads[p]))]
        args += self.loop_vars if self.uses_indices else []
        returned = "".join(f"_{p}, " for p in outputs)
        source = "\n    ".join([f"def f({', '.join(args)}):", *self.lines, f"return ({returned})"])
        ns = dict(self.ns)
        exec(source, ns)
        return ns["f"]


def _check_augmented(writes: dict[str, tuple[str, type | None]], ops: Sequence[CombineSpec]):
    """`w[i] += ...` only where the reduced dimensions combine with `+`."""
    reductions = {c.func for c in ops if c.kind == "pw"}
    for name, (_, op) in writes.items():
        if op is not None and reductions != {_AUGMENTED[op][1]}:
            reduced = ", ".join(map(str, reductions)) or "nothing"
            symbol = _AUGMENTED[op][0]
            raise LoopFormError(f"{name} is updated with {symbol}, the loops reduce with {reduced}")


def loop_module(fn: Callable, ops: Sequence[CombineSpec]) -> ModuleOp:
    """The `mdh.compute` module of loop nest `fn` with combine operators `ops`."""
    fdef = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    assert isinstance(fdef, ast.FunctionDef)
    ast.increment_lineno(fdef, fn.__code__.co_firstlineno - 1)
    free = inspect.getclosurevars(fn)
    ns = {**fn.__globals__, **free.nonlocals, "max": maximum, "min": minimum, "abs": absf}
    sizes, statements = _loops(fdef, ns)
    if len(ops) != len(sizes):
        raise LoopFormError(f"{len(sizes)} loops but {len(ops)} combine operators")
    params = [a.arg for a in fdef.args.args]
    body = _Body(params, list(sizes), ns)
    for s in statements:
        body.statement(s)
    _check_augmented(body.writes, ops)
    unused = [p for p in params if p not in body.reads and p not in body.writes]
    if unused or not body.writes:
        raise LoopFormError(f"{fn.__name__}: unused parameters {unused} or no output written")
    inputs = [p for p in params if p in body.reads]
    outputs = [p for p in params if p in body.writes]
    types = inspect.get_annotations(fn, eval_str=True)
    return compute_module(
        fn.__name__,
        dict(zip(dims(len(sizes)), sizes.values())),
        [Input(p, types.get(p, f32), body.reads[p]) for p in inputs],
        [Output(p, types.get(p, f32), body.writes[p][0]) for p in outputs],
        scalar=body.scalar_function(inputs, outputs),
        combine=[combine_spec(c, outputs) for c in ops],
        indices=body.uses_indices,
    )
