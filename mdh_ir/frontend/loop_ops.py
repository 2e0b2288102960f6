"""Python's meaning of a loop body's operators and builtins, on traced scalars.

The annotated-loop form (`mdh_ir.frontend.loops`) turns every operator of the body and
the builtins `abs`, `max`, `min` into these functions. Each picks its op from the
operands' type (float or signed integer) so that the value is the one Python computes on
numbers: `//` floors and `%` takes the divisor's sign (on integers too, where C's `/` and
`%` truncate), `==` compares, `abs` of an integer is `math.absi`. What Python computes as
something else (`/` of integers is a float, `**`, a float constant with an integer) is a
`TypeError` naming the operator. Python numbers on both sides are Python's own.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Attribute

from mdh_ir.builder import Scalar, absf, absi, floor, maximum, minimum, select

Value = Scalar | int | float


def _is_float(x: Scalar) -> bool:
    return isinstance(x.type, Float32Type | Float64Type)


def _floor_offset(r: Scalar, b: Scalar) -> Scalar:
    """Where a truncating remainder `r` of divisor `b` differs from Python's."""
    return r.ne(0) & ((r < 0) ^ (b < 0))


def _floordiv_int(a: Scalar, b: Scalar) -> Scalar:
    q = a / b
    return select(_floor_offset(a % b, b), q - 1, q)


def _mod_int(a: Scalar, b: Scalar) -> Scalar:
    r = a % b
    return select(_floor_offset(r, b), r + b, r)


def _refuse(hint: str) -> Callable[[Scalar, Scalar], Scalar]:
    def refused(a: Scalar, b: Scalar) -> Scalar:
        raise TypeError(hint.format(type=a.type))

    return refused



BINARY: dict[str, tuple[Callable, Callable, Callable]] = {
    "+": (operator.add, operator.add, operator.add),
    "-": (operator.sub, operator.sub, operator.sub),
    "*": (operator.mul, operator.mul, operator.mul),
    "/": (operator.truediv, operator.truediv, _refuse("`/` of {type} is a float; use `//`")),
    "//": (operator.floordiv, lambda a, b: floor(a / b), _floordiv_int),
    "%": (operator.mod, lambda a, b: a - floor(a / b) * b, _mod_int),
    "&": (operator.and_, _refuse("& takes integers, not {type}"), operator.and_),
    "|": (operator.or_, _refuse("| takes integers, not {type}"), operator.or_),
    "^": (operator.xor, _refuse("^ takes integers, not {type}"), operator.xor),
}
"""Per operator: its meaning on Python numbers, on float scalars, on integer scalars."""

COMPARE: dict[str, tuple[Callable, Callable[[Scalar, Value], Scalar], str]] = {
    "<": (operator.lt, operator.lt, ">"),
    "<=": (operator.le, operator.le, ">="),
    ">": (operator.gt, operator.gt, "<"),
    ">=": (operator.ge, operator.ge, "<="),
    "==": (operator.eq, Scalar.eq, "=="),
    "!=": (operator.ne, Scalar.ne, "!="),
}
"""Per comparison: its meaning on numbers, on a scalar and a value, the mirrored one."""


def _lifted(a: Value, b: Value) -> tuple[Scalar, Scalar]:
    """Both operands as scalars of one type (a Python number takes the other's)."""
    a, b = (b._lift(a), b) if not isinstance(a, Scalar) else (a, a._lift(b))  # type: ignore
    if a.type != b.type:
        raise TypeError(f"operands of types {a.type} and {b.type}; use cast()")
    return a, b


def binary(symbol: str, a: Value, b: Value) -> Value:
    """`a <symbol> b` as Python computes it."""
    on_numbers, on_floats, on_ints = BINARY[symbol]
    if not isinstance(a, Scalar) and not isinstance(b, Scalar):
        return on_numbers(a, b)
    a, b = _lifted(a, b)
    return (on_floats if _is_float(a) else on_ints)(a, b)


def compare(symbol: str, a: Value, b: Value) -> Value:
    """`a <symbol> b` (a boolean `i1` of scalars)."""
    on_numbers, on_scalar, mirrored = COMPARE[symbol]
    if not isinstance(a, Scalar):
        if not isinstance(b, Scalar):
            return on_numbers(a, b)
        return compare(mirrored, b, a)
    return on_scalar(*_lifted(a, b))


def unary(symbol: str, a: Value) -> Value:
    """`-a`, `+a`, `~a`."""
    if symbol == "+":
        return a
    if symbol == "-":
        return -a
    if isinstance(a, Scalar) and _is_float(a):
        raise TypeError(f"~ takes integers, not {a.type}")
    return a ^ -1


def absolute(x: Value) -> Value:
    """`abs(x)`: `math.absf` of a float, `math.absi` of an integer."""
    if not isinstance(x, Scalar):
        return abs(x)
    return absf(x) if _is_float(x) else absi(x)


def _extreme(name: str, of_numbers: Callable, of_scalars: Callable) -> Callable[..., Value]:
    def extreme(*args: Value) -> Value:
        if len(args) < 2:
            raise TypeError(f"{name} takes two or more values (not an iterable)")
        result = args[0]
        for x in args[1:]:
            if isinstance(result, Scalar) or isinstance(x, Scalar):
                result = of_scalars(*_lifted(result, x))
            else:
                result = of_numbers(result, x)
        return result

    extreme.__name__ = name
    return extreme


largest = _extreme("max", max, maximum)
smallest = _extreme("min", min, minimum)


def choose(cond: Value, a: Value, b: Value) -> Value:
    """`a if cond else b`: both sides are values, so a select."""
    if not isinstance(cond, Scalar):
        return a if cond else b
    if not isinstance(a, Scalar) and not isinstance(b, Scalar):
        raise TypeError("`a if c else b` of two constants: make one a typed value")
    return select(cond, *_lifted(a, b))


def result(name: str, type: Attribute, value: Any) -> Value:
    """`value`, checked to be of output `name`'s `type`."""
    if isinstance(value, Scalar) and value.type != type:
        raise TypeError(f"{name} holds {type}, the value is {value.type}; use cast() or select()")
    return value
