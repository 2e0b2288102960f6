"""The exception types of user-facing errors."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class MDHError(DiagnosticException, ValueError):
    """A user-facing error: about an op (a pass refusing it, a rule it breaks; `op` says
    which), or about an argument of the Python API (a module that is not one, inputs of
    the wrong number, shape or dtype: `mdh_ir.semantics.arrays`). A `ValueError`, as
    the API's argument errors were before."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


class ConfigError(Exception):
    """A configuration that does not fit its op or breaks a rule; the message names it."""
