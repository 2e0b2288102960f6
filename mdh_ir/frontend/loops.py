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
innermost body holds assignments to temporaries `t = ...` and one to each output, indexed
by the loop variables it keeps: `w[i] = ...` where no loop reduces, and where loops reduce
(`pw`) the update that means their combine in Python, `w[i] += ...` (`*=`, `&=`, `|=`,
`^=`) or `w[i] = max(w[i], ...)` (`min`), each output starting at the combine's identity.
Subscripted reads of inputs give the views (reads at distinct indices are the accesses of
a stencil); loop variables read as values give the point's indices. Operators and `abs`,
`max`, `min` mean what Python means on numbers (`mdh_ir.frontend.loop_ops`). Sizes and
constants come from the function's globals and closure.

The decorator runs the user's own Python: range bounds, indices and the body are
evaluated in the function's namespace (the body on traced scalars). Anything outside the
form, or that Python would compute differently, raises `LoopFormError` naming the line.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, ModuleOp
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineExpr

from mdh_ir.builder import CombineSpec, Input, Output, compute_module, f32
from mdh_ir.frontend import loop_ops
from mdh_ir.frontend.python import Computation, Index, combine_spec, dims, view_text

_UPDATES = {
    ast.Add: "add", ast.Mult: "mul", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
}  # fmt: skip
"""Augmented assignments and the builtin combine each one means."""

_SYMBOLS = {
    "add": "+=", "mul": "*=", "and": "&=", "or": "|=", "xor": "^=", "max": "= max(...)",
    "min": "= min(...)",
}  # fmt: skip
"""Per builtin combine, the update that means it."""

_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
    ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~",
}  # fmt: skip
"""The operators the body may use (`mdh_ir.frontend.loop_ops` gives their meaning)."""

_OPS = "__mdh_loop_ops"
"""The name of `loop_ops` in the scalar function's namespace."""

_BODY_FILE = "<loop body>"
"""The file name the scalar function is compiled under (its lines are the source's)."""


class LoopFormError(SyntaxError):
    """A loop nest outside the annotated-loop form."""


def combine_ops(*ops: CombineSpec) -> Callable[[Callable], Computation]:
    """Decorator: a loop nest with one combine operator per loop -> `Computation`."""
    return lambda fn: Computation(loop_module(fn, ops))


def _fail(node: ast.stmt | ast.expr, message: str) -> LoopFormError:
    return LoopFormError(f"line {node.lineno}: {message}")


def _eval(node: ast.expr, ns: dict[str, Any], what: str) -> Any:
    """The user's expression `node` evaluated in `ns`; its errors name `what` and the line."""
    try:
        return eval(compile(ast.Expression(node), "<loops>", "eval"), ns)
    except Exception as e:  # noqa: BLE001 - the user's code: any error is theirs
        raise _fail(node, f"{what}: {e}") from None


def _loops(fdef: ast.FunctionDef, ns: dict[str, Any]) -> tuple[dict[str, int], list[ast.stmt]]:
    """The loop variables with their trip counts, and the innermost body."""
    sizes: dict[str, int] = {}
    body = fdef.body[1:] if ast.get_docstring(fdef) is not None else fdef.body
    while len(body) == 1 and isinstance(loop := body[0], ast.For):
        call = loop.iter
        is_range = isinstance(call, ast.Call) and ast.unparse(call.func) == "range"
        args = call.args if is_range else []  # type: ignore[union-attr]
        bounds = [_eval(a, ns, f"range bound {ast.unparse(a)}") for a in args]
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


def _ops_call(name: str, node: ast.AST, *args: ast.expr) -> ast.Call:
    """`loop_ops.<name>(*args)` at `node`'s place."""
    func = ast.Attribute(ast.Name(_OPS, ast.Load()), name, ast.Load())
    return ast.copy_location(ast.Call(func, list(args), []), node)


def _symbol(op: ast.AST, node: ast.AST) -> ast.Constant:
    if type(op) not in _OPERATORS:
        raise _fail(node, f"{ast.unparse(node)}: the loop form has no {type(op).__name__} operator")
    return ast.Constant(_OPERATORS[type(op)])


def _subscript(node: ast.AST | None, name: str | None = None) -> bool:
    """Whether `node` is a subscript of a name (of `name`, if given)."""
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and name in (None, node.value.id))  # fmt: skip


class _Body(ast.NodeTransformer):
    """Turns the innermost body into a scalar function, collecting the views on the way."""

    def __init__(self, params: list[str], sizes: dict[str, int], ops: Sequence[CombineSpec],
                 types: dict[str, Attribute], ns: dict[str, Any]):  # fmt: skip
        self.params, self.loop_vars, self.types, self.ns = params, list(sizes), types, ns
        self.kept = [v for v, c in zip(sizes, ops) if c.kind != "pw"]
        self.reads: dict[str, list[str]] = {}
        """Per input, its distinct access views."""
        self.writes: dict[str, tuple[str, str | None]] = {}
        """Per output, its view and the builtin combine its update means (None for `=`)."""
        self.statements: list[ast.stmt] = []
        """The scalar function's statements, at their lines in the source."""
        self.uses_indices = False

    def view(self, node: ast.Subscript) -> str:
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        point = {v: Index(AffineExpr.dimension(d)) for d, v in enumerate(self.loop_vars)}
        what = f"index {ast.unparse(node)}"
        return view_text(tuple(_eval(e, {**self.ns, **point}, what) for e in items))

    def output_view(self, target: ast.Subscript) -> str:
        """The view of an output: the kept loop variables, each once, in any order."""
        items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        names = [e.id if isinstance(e, ast.Name) else None for e in items]
        if sorted(map(str, names)) != sorted(self.kept):
            kept = ", ".join(self.kept)
            raise _fail(target, f"{ast.unparse(target)}: an output is indexed by the loop "
                        f"variables that no loop reduces, each once ({kept})")  # fmt: skip
        return self.view(target)

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

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        symbol = _symbol(node.op, node)
        return _ops_call("binary", node, symbol, self.visit(node.left), self.visit(node.right))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not):
            raise _fail(node, f"{ast.unparse(node)}: `not` of a value; use `~` or select()")
        return _ops_call("unary", node, _symbol(node.op, node), self.visit(node.operand))

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if len(node.ops) != 1:
            raise _fail(node, f"{ast.unparse(node)}: compare two values at a time, joined by &")
        symbol = _symbol(node.ops[0], node)
        left, right = self.visit(node.left), self.visit(node.comparators[0])
        return _ops_call("compare", node, symbol, left, right)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        raise _fail(node, f"{ast.unparse(node)}: `and`/`or` of values; use `&`/`|`")

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        args = [self.visit(node.test), self.visit(node.body), self.visit(node.orelse)]
        return _ops_call("choose", node, *args)

    def update(self, stmt: ast.Assign | ast.AugAssign, target: ast.Subscript):
        """The builtin combine `stmt`'s update of `target` means, and the value it adds."""
        if isinstance(stmt, ast.AugAssign):
            if type(stmt.op) not in _UPDATES:
                raise _fail(stmt, "an output is updated with +=, *=, &=, |= or ^=")
            return _UPDATES[type(stmt.op)], stmt.value
        value = stmt.value
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in ("max", "min") and len(value.args) == 2):  # fmt: skip
            own = [_subscript(a, target.value.id) for a in value.args]  # type: ignore[attr-defined]
            if own[0] != own[1] and ast.unparse(value.args[own[1]]) == ast.unparse(target):
                return value.func.id, value.args[own[0]]
        return None, value

    def statement(self, stmt: ast.stmt) -> None:
        """Add `stmt`, an assignment to a temporary or an output, to the function."""
        target = stmt.target if isinstance(stmt, ast.AugAssign) else None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name):
            value = self.visit(stmt.value)
            self.statements.append(ast.copy_location(ast.Assign([target], value), stmt))
            return
        if not (_subscript(target) and target.value.id in self.params):  # type: ignore[union-attr]
            raise _fail(stmt, "the body assigns temporaries `t = ...` and outputs `w[i] = ...`")
        assert isinstance(stmt, ast.Assign | ast.AugAssign) and isinstance(target, ast.Subscript)
        name = target.value.id  # type: ignore[attr-defined]
        combine, value = self.update(stmt, target)
        value = self.visit(value)
        if name in self.reads:
            raise _fail(stmt, f"{name} is an output: the body may not read it")
        if name in self.writes:
            raise _fail(stmt, f"{name} is written twice")
        self.writes[name] = (self.output_view(target), combine)
        type_ = ast.Name(f"_{name}_type", ast.Load())
        checked = _ops_call("result", stmt, ast.Constant(name), type_, value)
        assign = ast.Assign([ast.Name(f"_{name}", ast.Store())], checked)
        self.statements.append(ast.copy_location(assign, stmt))

    def scalar_function(self, fdef: ast.FunctionDef, inputs: list[str], outputs: list[str]):
        """`def f(<accesses>, [<loop variables>]): <statements>; return (<outputs>,)`."""
        args = [f"_{p}_{k}" for p in inputs for k in range(len(self.reads[p]))]
        args += self.loop_vars if self.uses_indices else []
        values = [ast.Name(f"_{p}", ast.Load()) for p in outputs]
        returned = ast.Return(ast.Tuple(values, ast.Load()))
        params = ast.arguments([], [ast.arg(a) for a in args], None, [], [], None, [])
        body = [*self.statements, ast.copy_location(returned, fdef)]
        source = ast.FunctionDef(name="f", args=params, body=body, decorator_list=[])
        ns = {**self.ns, _OPS: loop_ops, **{f"_{p}_type": self.types[p] for p in outputs}}
        module = ast.fix_missing_locations(ast.Module([ast.copy_location(source, fdef)], []))
        exec(compile(module, _BODY_FILE, "exec"), ns)
        return ns["f"]


def _check_updates(body: _Body, ops: Sequence[CombineSpec]):
    """Each output's update means the combine of the dimensions that reduce it."""
    reductions = {c.func if isinstance(c.func, str) else "a function"
                  for c in ops if c.kind == "pw"}  # fmt: skip
    reduced = ", ".join(sorted(reductions))
    for name, (_, combine) in body.writes.items():
        if combine is None and reductions:
            only = reduced if len(reductions) == 1 else None
            fix = (f"write `{name}[...] {_SYMBOLS[only]}`" if only in _SYMBOLS
                   else "the loop form has no update for this; use the Python interface")
            raise LoopFormError(f"{name} is assigned with `=` under loops that reduce with "
                                f"{reduced}: Python keeps the last value; {fix}")  # fmt: skip
        if combine is not None and reductions != {combine}:
            raise LoopFormError(
                f"{name} is updated with {_SYMBOLS[combine]}, the loops reduce with "
                f"{reduced or 'nothing'}"
            )


def _buffer_types(fn: Callable, params: list[str]) -> dict[str, Attribute]:
    """Each parameter's element type: its annotation (f32, f64, i32, i64), else f32."""
    try:
        annotations = inspect.get_annotations(fn, eval_str=True)
    except Exception as e:  # noqa: BLE001 - the user's annotations
        raise LoopFormError(f"{fn.__name__}: annotations: {e}") from None
    types = {p: annotations.get(p, f32) for p in params}
    for p, t in types.items():
        if not isinstance(t, Float32Type | Float64Type | IntegerType):
            raise LoopFormError(f"{fn.__name__}: {p}: {t!r} is not f32, f64, i32 or i64")
    return types


def _traced_at(e: Exception, fn: Callable) -> LoopFormError:
    """`e`, raised tracing the scalar function, at the line of the body it came from."""
    tb, line = e.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _BODY_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return LoopFormError(f"line {line}: {e}" if line is not None else f"{fn.__name__}: {e}")


def loop_module(fn: Callable, ops: Sequence[CombineSpec]) -> ModuleOp:
    """The `mdh.compute` module of loop nest `fn` with combine operators `ops`."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise LoopFormError(f"{fn!r}: the loop form reads the function's source: {e}") from None
    fdef = ast.parse(source).body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise LoopFormError(f"{fn!r}: the loop form is a function definition")
    ast.increment_lineno(fdef, fn.__code__.co_firstlineno - 1)
    if any(c.kind == "ps" for c in ops):
        raise LoopFormError("ps: a prefix sum reads earlier outputs, which the loop form "
                            "cannot; use the Python interface")  # fmt: skip
    free = inspect.getclosurevars(fn)
    ns = {**fn.__globals__, **free.nonlocals,
          "max": loop_ops.largest, "min": loop_ops.smallest, "abs": loop_ops.absolute}  # fmt: skip
    sizes, statements = _loops(fdef, ns)
    if len(ops) != len(sizes):
        raise LoopFormError(f"{len(sizes)} loops but {len(ops)} combine operators")
    params = [a.arg for a in fdef.args.args]
    types = _buffer_types(fn, params)
    body = _Body(params, sizes, ops, types, ns)
    for s in statements:
        body.statement(s)
    _check_updates(body, ops)
    unused = [p for p in params if p not in body.reads and p not in body.writes]
    if unused or not body.writes:
        raise LoopFormError(f"{fn.__name__}: unused parameters {unused} or no output written")
    inputs = [p for p in params if p in body.reads]
    outputs = [p for p in params if p in body.writes]
    scalar = body.scalar_function(fdef, inputs, outputs)
    try:
        return compute_module(
            fn.__name__,
            dict(zip(dims(len(sizes)), sizes.values())),
            [Input(p, types[p], body.reads[p]) for p in inputs],
            [Output(p, types[p], body.writes[p][0]) for p in outputs],
            scalar=scalar,
            combine=[combine_spec(c, outputs) for c in ops],
            indices=body.uses_indices,
        )
    except Exception as e:  # noqa: BLE001 - the user's body, traced: any error is theirs
        raise _traced_at(e, fn) from None
