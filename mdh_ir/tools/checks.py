"""What the command-line tools check before they start working: the input's size
(`read_input`: `mdh-run /dev/zero` ends after `MAX_INPUT_BYTES`), the work a run would
do (`check_work`: the points of the computations against `MAX_POINTS`, which
`--allow-large` lifts) and the files they will write (`check_writable`, `check_plot`:
not only after a whole tuning budget was spent).
"""

from __future__ import annotations

from math import log2, prod
from pathlib import Path
from typing import BinaryIO

from xdsl.dialects.builtin import ModuleOp

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError

MAX_INPUT_BYTES = 64 << 20
"""Largest input file read (a module of 64 MiB already takes xDSL minutes to parse)."""
MAX_POINTS = 1 << 32
"""Most points of one computation that `mdh-run` and `mdh-tune` run without
`--allow-large`: the reference check on the host evaluates about 5e7 points a second
(PoCL's machine, matvec 8192^2 in 1.2 s), so 2^32 points take minutes, 2^48 months."""


def read_input(f: BinaryIO, name: str) -> bytes:
    """The contents of `f` (named `name`), refused beyond `MAX_INPUT_BYTES`."""
    data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise MDHError(f"{name}: the input is larger than {MAX_INPUT_BYTES >> 20} MiB")
    return data


def check_work(module: ModuleOp) -> None:
    """Refuse a computation of more than `MAX_POINTS` points, at its op."""
    for op in module.walk():
        if isinstance(op, ComputeOp) and (points := prod(op.sizes)) > MAX_POINTS:
            raise MDHError(
                f'mdh.compute "{op.comp_name.data}": {points} points (2^{log2(points):.1f}) are more '
                f"than {MAX_POINTS} (2^{log2(MAX_POINTS):.0f}), which the reference check takes "
                "minutes for; pass --allow-large to run it anyway",
                op,
            )


def check_writable(path: str, option: str) -> None:
    """Refuse an output path that cannot be written (`ValueError` naming the option);
    an existing file keeps its contents."""
    target = Path(path)
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as e:
        raise ValueError(f"{option} {path}: cannot write: {e.strerror}") from None
    if not existed:
        target.unlink()


def check_plot(path: str) -> None:
    """Refuse a plot path that cannot be written or whose format matplotlib does not
    know (`run.xyz`)."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix and suffix not in formats:
        known = ", ".join(sorted(formats))
        raise ValueError(f"--plot {path}: unknown image format '{suffix}' (known: {known})")
    check_writable(path, "--plot")
