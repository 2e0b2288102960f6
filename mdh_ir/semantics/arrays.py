"""The arrays a caller passes for a function's buffers, checked and converted.

`checked_arrays(buffers, arrays, where)` gives one C-contiguous numpy array per buffer, of
its shape and element type, or raises `MDHError` naming the first argument that does not
fit, its expected shape and dtype: too few or too many arrays, `None`, a wrong shape,
complex values (their imaginary part would be lost), floats for an integer buffer (they
would be truncated), strings or objects. Integers and booleans convert to floats, wider
floats to narrower ones (as numpy casts them: f16 and bf16 buffers round to nearest even). The runtime (`Program.run`) and the
reference semantics (`evaluate`, `evaluate_host`) take their inputs through it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from mdh_ir.errors import MDHError
from mdh_ir.semantics.scalar_eval import dtype_kind, numpy_dtype

ACCEPTED_KINDS = {"f": "biuf", "i": "biu", "b": "b"}
"""Per buffer dtype kind, the kinds of arrays converted to it."""


def expected(buffer: SSAValue) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and numpy dtype of a buffer (a memref value)."""
    t = buffer.type
    return tuple(t.get_shape()), numpy_dtype(t.element_type)  # type: ignore[attr-defined]


def describe(buffer: SSAValue) -> str:
    shape, dtype = expected(buffer)
    return f"shape {shape} and dtype {dtype}"


def checked_arrays(buffers: Sequence[SSAValue], arrays, where: str) -> list[np.ndarray]:
    """`arrays`, one per buffer of `buffers` (the inputs of `where`), checked and
    converted (module docstring)."""
    wanted = "; ".join(f"{label(i, b)}: {describe(b)}" for i, b in enumerate(buffers))
    if isinstance(arrays, np.ndarray | str | bytes) or not isinstance(arrays, Sequence):
        raise MDHError(f"{where}: expected a list of {len(buffers)} arrays ({wanted}), got {type(arrays).__name__}")
    if len(arrays) != len(buffers):
        raise MDHError(f"{where}: {len(arrays)} inputs for {len(buffers)} input buffers ({wanted})")
    return [checked_array(b, x, f"{where}: {label(i, b)}") for i, (b, x) in enumerate(zip(buffers, arrays))]


def label(i: int, buffer: SSAValue) -> str:
    """`input 1 (%v)`, or `input 1` for a buffer without a name."""
    return f"input {i} (%{buffer.name_hint})" if buffer.name_hint else f"input {i}"


def checked_array(buffer: SSAValue, x, what: str) -> np.ndarray:
    """`x` as an array for `buffer` (`what` names it), checked and converted."""
    shape, dtype = expected(buffer)
    wanted = f"{what}: expected an array of shape {shape} and dtype {dtype}"
    if x is None:
        raise MDHError(f"{wanted}, got None")
    try:
        array = np.asarray(x)
    except ValueError as e:  # ragged nested lists
        raise MDHError(f"{wanted}, got {type(x).__name__} ({e})") from None
    kind = dtype_kind(array.dtype)
    if kind not in ACCEPTED_KINDS.get(dtype_kind(dtype), dtype_kind(dtype)):
        why = {"c": " (the imaginary part would be lost)", "f": " (floats would be truncated)"}
        raise MDHError(f"{wanted}, got dtype {array.dtype}{why.get(kind, '')}")
    if array.shape != shape:
        raise MDHError(f"{wanted}, got shape {array.shape}")
    return np.asarray(array, dtype, order="C")  # (ascontiguousarray makes a 0-d array 1-d)
