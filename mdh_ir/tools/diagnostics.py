"""One-line diagnostics (`file:line:col: error: reason`) for the command-line tools.

`LocatingParser` records where every op starts, so an error found later (by the
verifier or a pass) can point at the op's line. `load_module` parses and verifies a
file; `diagnose` turns any exception into the one line the tools print.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Input


class MDHError(DiagnosticException):
    """A user-facing error about an op: a pass refusing it, a rule it breaks."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


@dataclass
class Diagnostic:
    where: str
    message: str

    def __str__(self) -> str:
        text = " ".join(self.message.split())
        return f"{self.where}: error: {text}"


def _line_col(content: str, pos: int) -> tuple[int, int]:
    line_start = content.rfind("\n", 0, pos) + 1
    return content.count("\n", 0, pos) + 1, pos - line_start + 1


class LocatingParser(Parser):
    """A parser that stores each op's `file:line:col` in its `location`."""

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        line, col = _line_col(self.lexer.input.content, start)
        op.location = FileLineColLoc(StringAttr(self.lexer.input.name), IntAttr(line), IntAttr(col))
        return op


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


def load_module(ctx: Context, text: str | bytes, name: str) -> ModuleOp:
    """Parse and verify `text`; errors carry their location."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            line, col = _line_col(text[: e.start].decode("utf-8", "replace"), e.start)
            raise MDHError(f"{name}:{line}:{col}: input is not valid UTF-8") from None
    if not any(line.strip() and not line.strip().startswith("//") for line in text.splitlines()):
        raise MDHError(f"{name}:1:1: the input holds no operation")
    parser = LocatingParser(ctx, text, name)
    try:
        module = parser.parse_module()
    except ParseError:
        raise
    except DiagnosticException as e:
        line, col = _line_col(text, parser.pos)
        raise MDHError(f"{name}:{line}:{col}: {e}") from None
    verify_located(module)
    return module


def diagnose(exc: BaseException, input_name: str) -> Diagnostic:
    if isinstance(exc, ParseError):
        loc = exc.span.get_location()
        return Diagnostic(f"{loc.file}:{loc.line}:{loc.col}", exc.msg)
    if isinstance(exc, MDHError):
        if exc.op is None and str(exc).startswith(input_name + ":"):
            place, _, message = str(exc).partition(": ")
            return Diagnostic(place, message)
        return Diagnostic(where(exc.op, input_name), str(exc))
    return Diagnostic(input_name, str(exc) or type(exc).__name__)
