"""The C names of symbols, and symbols as comment text: whatever a symbol holds, the
OpenCL source gets a valid identifier (the printer and the runtime's kernel look-up use
these same functions) and a comment it cannot end.

A kernel keeps its symbol when that is a C identifier and not reserved: a C or OpenCL C
keyword or type, an OpenCL builtin the generated code calls, the printer's `vN`/`rN`
locals, a name starting with `__` or `_` and a capital (C's), or with `mdh` (the
printer's: functions are `mdh_...`, macros `MDH_...`). A scalar function is `mdh_` and
its symbol, when that is a C identifier not starting with `mdhq_`. Any other symbol is
spelled `mdhq_` and its characters, letters and digits as themselves, `_` as `__`, any
other as `_x<hex code>_`, which reads back one way only: two kernels or two functions
never share a name, and no kernel name starts with `mdh_` like a function's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_SCALARS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
            "double", "half", "bool")  # fmt: skip
_RESERVED = frozenset(
    """auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Bool _Complex _Imaginary
    kernel global local constant private read_only write_only read_write uniform pipe
    uchar ushort uint ulong half bool size_t ptrdiff_t intptr_t uintptr_t event_t sampler_t
    image1d_t image2d_t image3d_t image1d_array_t image2d_array_t image1d_buffer_t
    get_global_id get_local_id get_group_id get_global_size get_local_size get_num_groups
    get_work_dim get_global_offset barrier mem_fence read_mem_fence write_mem_fence
    atomic_inc atomic_add atomic_cmpxchg vload vstore exp exp2 expm1 log log2 log10 log1p
    sqrt rsqrt fabs abs sin cos tan tanh atan atan2 floor ceil round trunc erf pow copysign
    fma fmax fmin max min select true false NULL INFINITY NAN""".split()
    + [f"{t}{n}" for t in _SCALARS for n in (2, 3, 4, 8, 16)]
)
"""Names a symbol may not keep: C99's and OpenCL C's keywords and types, the builtins
and constants the generated code uses."""

_PRINTER_NAME = re.compile(r"[vr][0-9]+|__.*|_[A-Z].*|mdh.*|MDH.*", re.S)

ESCAPED = "mdhq_"
"""The prefix of a symbol spelled out (no plain name starts with `mdh`)."""


def _identifier(symbol: str, reserved: Callable[[str], object]) -> str:
    """`symbol` if it is a C identifier that is not `reserved`, else spelled out."""
    plain = _IDENTIFIER.fullmatch(symbol) and not reserved(symbol)
    return symbol if plain else ESCAPED + "".join(
        c if c.isascii() and c.isalnum() else "__" if c == "_" else f"_x{ord(c):x}_"
        for c in symbol
    )  # fmt: skip


def kernel_name(symbol: str) -> str:
    """The OpenCL name of `lowlevel.kernel @symbol` (what the runtime looks up)."""
    return _identifier(symbol, lambda s: s in _RESERVED or _PRINTER_NAME.fullmatch(s))


def function_name(symbol: str) -> str:
    """The OpenCL name of scalar `func.func @symbol`: `mdh_` keeps it off the builtins
    and the kernels."""
    return "mdh_" + _identifier(symbol, lambda s: s.startswith(ESCAPED))


def comment_text(symbol: str) -> str:
    """`symbol` as text of a `//` or `/* */` comment: itself when it is an identifier,
    else quoted with every character that could end the comment (a line break, `*/`, a
    trailing `\\`, `??/`) escaped."""
    if _IDENTIFIER.fullmatch(symbol):
        return symbol
    return json.dumps(symbol).replace("?", "\\u003f").replace("*/", "*\\/")
