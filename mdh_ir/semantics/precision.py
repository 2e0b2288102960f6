"""Reduced precision in the reference semantics: inputs read as TF32, and the error an
implementation with reduced-precision inputs may add.

`precision = "tf32"` on an `mdh.compute` reads its f32 inputs rounded to TF32 (`round_tf32`:
10 mantissa bits, round to nearest, ties to even; NaN and infinities kept, values beyond
TF32's largest finite value round to infinity as in IEEE arithmetic). f16 and bf16 inputs
need no rounding: each element is read as the f32 of its value, exactly.

`precision_tolerance` is what `compare` allows beyond its f32 rules for an op with
reduced-precision inputs (f16, bf16, or `precision = "tf32"`), where tensor cores may
compute it:
- input rounding: a device may round f32 inputs to TF32 differently (truncating rather
  than rounding to nearest): below one TF32 ulp (2^-10, relative) in each of the two
  factors of a product, `TF32_ROUNDING` in all (f16 and bf16 inputs are exact: none);
- accumulation: tensor cores add the products of a reduction of length K (the product of
  the op's pw dimension sizes) with truncation, in f32, an error growing linearly with K:
  `K * 2^-23` (f32's ulp of 1) at most.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import Float32Type

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.dialects.mdh_attrs import STORAGE_TYPES

TF32_MANTISSA_BITS = 10
TF32_ROUNDING = 2 * 2.0**-TF32_MANTISSA_BITS
"""The relative error of a product of two f32 values each rounded to TF32 by another
rule than the reference's (each below one TF32 ulp)."""
F32_ACCUMULATION = 2.0**-23
"""The relative error per accumulated term of a truncating f32 accumulation."""


def round_tf32(x: np.ndarray) -> np.ndarray:
    """`x` (float32) rounded to TF32, as float32 (module docstring)."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    dropped = 23 - TF32_MANTISSA_BITS
    half = np.uint32((1 << (dropped - 1)) - 1)
    odd = (bits >> np.uint32(dropped)) & np.uint32(1)
    mask = np.uint32((0xFFFFFFFF << dropped) & 0xFFFFFFFF)
    rounded = ((bits + half + odd) & mask).view(np.float32)
    return np.where(np.isnan(x), x, rounded)


def has_reduced_inputs(op: ComputeOp) -> bool:
    """Whether `op` reads inputs of reduced precision (f16, bf16, or f32 as TF32)."""
    return op.input_precision == "tf32" or any(isinstance(t, STORAGE_TYPES) for t in op.inp_types.data)


def reduction_length(op: ComputeOp) -> int:
    """The number of points combined into each output element (1 without pw dims)."""
    return math.prod(n for n, c in zip(op.sizes, op.combines) if c.kind == "pw")


def precision_tolerance(op: ComputeOp) -> float:
    """The relative error an implementation of `op` may add beyond the f32 rules for
    its reduced-precision inputs (module docstring); 0 for other ops."""
    if not has_reduced_inputs(op):
        return 0.0
    rounding = TF32_ROUNDING if op.input_precision == "tf32" else 0.0
    return rounding + reduction_length(op) * F32_ACCUMULATION


def read_inputs(op: ComputeOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The md_hom's input `arrays` as `op` reads them: f32 rounded to TF32 where its
    precision asks for it."""
    if op.input_precision != "tf32":
        return arrays
    return [round_tf32(a) if isinstance(t, Float32Type) else a for a, t in zip(arrays, op.inp_types.data)]
