"""The vocabulary of `mdh.compute`'s attributes: element types, precisions, combine
operators (`cc`, `pw(f)`, `ps(f)`), boundary modes, index arguments of scalar functions
and the scalar function's arguments under a prologue."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    f32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException


BUILTIN_COMBINES = ("add", "mul", "max", "min", "and", "or", "xor")
"""Names accepted in place of a combine function symbol (float max/min ignore NaN)."""

INTEGER_ONLY_COMBINES = ("and", "or", "xor")

BOUNDARY_MODES = ("none", "clamp", "zero", "wrap", "mirror")
"""What a read outside an input buffer returns: `none` means it never happens."""

SCALAR_TYPES = (Float32Type, Float64Type)
SCALAR_INT_WIDTHS = (32, 64)


STORAGE_TYPES = (Float16Type, BFloat16Type)
"""Element types of inputs only, stored in 16 bits and read as f32 (exactly)."""

PRECISIONS = ("ieee", "tf32")
"""What an op's f32 inputs are read as: `ieee` as they are (the default), `tf32` rounded
to TF32 (10 mantissa bits, round to nearest even), as tensor cores read them; asked for
by the user (`precision = "tf32"`), never chosen by a configuration."""


def is_scalar_type(t: Attribute) -> bool:
    """The element types MDH computations may use: f32, f64, i32, i64."""
    if isinstance(t, SCALAR_TYPES):
        return True
    return isinstance(t, IntegerType) and t.width.data in SCALAR_INT_WIDTHS


def is_input_type(t: Attribute) -> bool:
    """The element types of an md_hom's inputs: the scalar types, f16 and bf16."""
    return is_scalar_type(t) or isinstance(t, STORAGE_TYPES)


def read_type(t: Attribute) -> Attribute:
    """The type an input element of type `t` is read as, and the scalar function takes:
    f32 for the 16-bit storage types, `t` itself otherwise."""
    return f32 if isinstance(t, STORAGE_TYPES) else t


@dataclass(frozen=True)
class Combine:
    """One combine operator: `cc`, or `pw`/`ps` with a function (symbol or builtin name)."""

    kind: str
    func: str | None = None
    builtin: bool = False

    @staticmethod
    def from_attr(attr: Attribute) -> Combine:
        """Read `"cc"`, `"add"` (sugar for `["pw", "add"]`), `["pw", @f]`, `["ps", "max"]`."""
        if isinstance(attr, StringAttr):
            if attr.data == "cc":
                return Combine("cc")
            if attr.data in BUILTIN_COMBINES:
                return Combine("pw", attr.data, True)
            raise VerifyException(
                f'unknown combine operator "{attr.data}" (expected "cc", a builtin '
                f'{list(BUILTIN_COMBINES)}, ["pw", @f] or ["ps", @f])'
            )
        if isinstance(attr, ArrayAttr) and len(attr.data) == 2:
            kind, func = attr.data
            if isinstance(kind, StringAttr) and kind.data in ("pw", "ps"):
                if isinstance(func, SymbolRefAttr) and not func.nested_references:
                    return Combine(kind.data, func.root_reference.data)
                if isinstance(func, StringAttr) and func.data in BUILTIN_COMBINES:
                    return Combine(kind.data, func.data, True)
                raise VerifyException(
                    f"combine function must be a symbol (@f) or a builtin "
                    f"{list(BUILTIN_COMBINES)}, got {func}"
                )
        raise VerifyException(
            f'malformed combine operator {attr} (expected "cc", ["pw", @f] or ["ps", @f])'
        )

    def to_attr(self) -> Attribute:
        if self.kind == "cc":
            return StringAttr("cc")
        func = StringAttr(self.func) if self.builtin else SymbolRefAttr(self.func)
        return ArrayAttr([StringAttr(self.kind), func])

    def __str__(self) -> str:
        if self.kind == "cc":
            return "cc"
        return f"{self.kind}({self.func if self.builtin else '@' + self.func})"


def index_args_allowed(func: FuncOp, num_scalars: int, rank: int) -> bool:
    """A scalar function may take the point's indices as `rank` trailing index args."""
    inputs = func.function_type.inputs.data
    return len(inputs) == num_scalars + rank and all(
        isinstance(t, IndexType) for t in inputs[num_scalars:]
    )


T = TypeVar("T")


def scalar_arguments(
    prologues: Sequence[tuple[str, list[int]]],
    reads: Sequence[Sequence[T]],
    apply: Callable[[str, list[T]], T],
) -> list[T]:
    """The scalar function's arguments from `reads` (per md_hom input, one value per
    access): each prologue group's reads replaced, per access index, by
    `apply(function, the group's reads)` at the place of the group's first input."""
    groups = {g[0]: (f, g) for f, g in prologues}
    grouped = {b for _, g in prologues for b in g}
    args: list[T] = []
    for b, values in enumerate(reads):
        if b in groups:
            f, group = groups[b]
            args += [apply(f, [reads[m][a] for m in group]) for a in range(len(values))]
        elif b not in grouped:
            args += values
    return args
