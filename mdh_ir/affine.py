"""Linear index expressions: the form every MDH view map has.

A view map result such as `2*p + r - 1` is kept as its linear form: one integer
coefficient per dimension of the iteration space plus a constant. Everything that
reasons about accessed regions (bounds checks, cached tile boxes) works on this form.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)


@dataclass(frozen=True)
class Linear:
    """`sum(coeffs[d] * x[d]) + const` over the dimensions of the iteration space."""

    coeffs: tuple[int, ...]
    const: int

    def range_over(self, lower: list[int], upper: list[int]) -> tuple[int, int]:
        """Smallest and largest value for x[d] in [lower[d], upper[d]] (inclusive)."""
        lo = hi = self.const
        for c, a, b in zip(self.coeffs, lower, upper, strict=True):
            lo += c * a if c >= 0 else c * b
            hi += c * b if c >= 0 else c * a
        return lo, hi

    def extent(self, tile: list[int]) -> int:
        """Number of distinct positions spanned when x[d] ranges over tile[d] values."""
        return sum(abs(c) * (t - 1) for c, t in zip(self.coeffs, tile)) + 1

    def eval(self, point: list[int]) -> int:
        return self.const + sum(c * x for c, x in zip(self.coeffs, point))

    def same_slope(self, other: Linear) -> bool:
        return self.coeffs == other.coeffs


def linear_form(expr: AffineExpr, num_dims: int) -> Linear | None:
    """The linear form of `expr`, or None if it uses mod, floordiv, ceildiv or symbols."""
    if isinstance(expr, AffineConstantExpr):
        return Linear((0,) * num_dims, expr.value)
    if isinstance(expr, AffineDimExpr):
        coeffs = [0] * num_dims
        coeffs[expr.position] = 1
        return Linear(tuple(coeffs), 0)
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs = linear_form(expr.lhs, num_dims)
    rhs = linear_form(expr.rhs, num_dims)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        coeffs = tuple(a + b for a, b in zip(lhs.coeffs, rhs.coeffs))
        return Linear(coeffs, lhs.const + rhs.const)
    if expr.kind == AffineBinaryOpKind.Mul:
        if any(rhs.coeffs) and any(lhs.coeffs):
            return None
        scalar, lin = (rhs.const, lhs) if not any(rhs.coeffs) else (lhs.const, rhs)
        return Linear(tuple(scalar * c for c in lin.coeffs), scalar * lin.const)
    return None


def linear_results(amap: AffineMap) -> list[Linear] | None:
    """Linear forms of all results of `amap`, or None if one is not linear."""
    forms = [linear_form(e, amap.num_dims) for e in amap.results]
    if any(f is None for f in forms) or amap.num_symbols:
        return None
    return forms  # type: ignore[return-value]


def dim_of(expr: AffineExpr) -> int | None:
    """The dimension position if `expr` is a plain dimension, else None."""
    return expr.position if isinstance(expr, AffineDimExpr) else None
