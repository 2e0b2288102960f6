"""One-line diagnostics (`file:line:col: error: reason`) for the command-line tools.

`LocatingParser` records where every op starts, so an error found later (by the
verifier or a pass) can point at the op's line. `load_module` parses and verifies a
file; `diagnose` turns any exception into the one line the tools print (control
characters escaped, an overlong message shortened in the middle); `one_line_warnings`
prints each warning (a tuning database passed over) as one line, once.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import AttributeInvT
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError


@dataclass
class Diagnostic:
    where: str
    message: str

    def __str__(self) -> str:
        text = " ".join(self.message.split())
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
        if len(text) > MAX_MESSAGE:
            text = f"{text[: MAX_MESSAGE - 100]} ... {text[-80:]}"
        return f"{self.where}: error: {text}"


MAX_MESSAGE = 1000
"""Longest message printed whole (a garbage token can be megabytes long)."""
TOO_DEEP = "nesting too deep (beyond Python's recursion limit)"


def _line_col(content: str, pos: int) -> tuple[int, int]:
    line_start = content.rfind("\n", 0, pos) + 1
    return content.count("\n", 0, pos) + 1, pos - line_start + 1


class LocatingParser(Parser):
    """A parser that stores each op's `file:line:col` in its `location`.

    It also points two errors that xDSL reports late at their cause: an unknown op name
    (xDSL: the token after the name) and a value used but never defined (xDSL: the end
    of the input).
    """

    def __init__(self, ctx: Context, text: str, name: str):
        super().__init__(ctx, text, name)
        self.op_start = 0
        self.first_uses: dict[str, Span] = {}

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            if not e.msg.startswith("values used but not defined"):
                raise
            name = next(iter(self.forward_ssa_references))
            self.raise_error(f"value %{name} is used but never defined", self.first_uses[name])

    def parse_operation(self) -> Operation:
        start = self.op_start = self._current_token.span.start
        op = super().parse_operation()
        line, col = _line_col(self.lexer.input.content, start)
        op.location = FileLineColLoc(StringAttr(self.lexer.input.name), IntAttr(line), IntAttr(col))
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is None:
            self.raise_error(f"Operation {name} is not registered", self.op_start)
        return op_type

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue:
        if operand.operand_name not in self.ssa_values:
            self.first_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)


def where(op: Operation | None, fallback: str) -> str:
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return fallback


def verify_located(module: ModuleOp) -> None:
    """Verify `module` op by op, so a failure names the innermost failing op."""
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticException as e:
            raise MDHError(str(e), op) from None


def _reason(e: Exception) -> str:
    """The message of an error the parser raised: xDSL raises some (a block name it
    cannot store, `ValueError`) with a tuple of sentences as arguments."""
    if isinstance(e, RecursionError):
        return TOO_DEEP
    return " ".join(str(a) for a in e.args) or type(e).__name__


def load_module(ctx: Context, text: str | bytes, name: str) -> ModuleOp:
    """Parse and verify `text`; errors carry their location."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            valid = text[: e.start].decode("utf-8")
            line, col = _line_col(valid, len(valid))
            raise MDHError(f"{name}:{line}:{col}: input is not valid UTF-8") from None
    if not any(line.strip() and not line.strip().startswith("//") for line in text.splitlines()):
        line, col = _line_col(text, len(text) - len(text.lstrip()))
        raise MDHError(f"{name}:{line}:{col}: the input holds no operation")
    parser = LocatingParser(ctx, text, name)
    try:
        module = parser.parse_module()
    except ParseError:
        raise
    except Exception as e:  # noqa: BLE001 - xDSL's parser also raises ValueError, ...
        line, col = _line_col(text, parser.pos)
        raise MDHError(f"{name}:{line}:{col}: {_reason(e)}") from None
    try:
        verify_located(module)
    except RecursionError:
        raise MDHError(f"{name}: {TOO_DEEP}") from None
    return module


def the_compute(module: ModuleOp) -> ComputeOp:
    """The one `mdh.compute` of `module` (what mdh-run and mdh-tune work on)."""
    ops = [op for op in module.walk() if isinstance(op, ComputeOp)]
    if len(ops) != 1:
        found = f"expected one mdh.compute in the module, found {len(ops)}"
        raise MDHError(found, ops[1] if ops else None)
    return ops[0]


def diagnose(exc: BaseException, input_name: str) -> Diagnostic:
    if isinstance(exc, ParseError):
        loc = exc.span.get_location()
        return Diagnostic(f"{loc.file}:{loc.line}:{loc.col}", exc.msg)
    if isinstance(exc, MDHError):
        if exc.op is None and str(exc).startswith(input_name + ":"):
            place, _, message = str(exc).partition(": ")
            return Diagnostic(place, message)
        return Diagnostic(where(exc.op, input_name), str(exc))
    if isinstance(exc, RecursionError):
        return Diagnostic(input_name, TOO_DEEP)
    return Diagnostic(input_name, str(exc) or type(exc).__name__)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(" ".join(str(message).split()), file=file or sys.stderr)


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Within: each warning printed once, as its message alone on one line of stderr
    (the library's warnings name their subject: `FILE: warning: ...`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        yield
