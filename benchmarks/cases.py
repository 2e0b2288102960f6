"""The benchmark cases: catalog entries at named sizes, and the bar cases of each device.

A case is written `ENTRY:LABEL` (`matmul:1024`, `mcc:resnet50-n16`). The label names a
size of `SIZES`, or gives every integer size of the entry in the order of its
dimensions (`matmul:512x256x128`, `dot:2^20`); options such as `stride` keep the
catalog's value. `ENTRY` alone stands for the device's bar cases of that entry, else
the entry's first paper size. The default selection is the device's bar cases
(BENCHMARKS.md, "The bar"); `--quick` replaces every case's sizes with the catalog's
`small` ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any

from mdh_ir.catalog import CATALOG

_CUBE = {str(n): dict(i=n, j=n, k=n) for n in (256, 512, 1024, 4096)}
_RESNET50_1 = dict(p=112, q=112, k=64, r=7, s=7, c=3, stride=2)

SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "dot": {"2^24": dict(k=2**24), "10^7": dict(k=10**7)},
    "matvec": {"4096": dict(i=4096, k=4096), "8192": dict(i=8192, k=8192)},
    "matmul": {
        **_CUBE,
        "10x500x64": dict(i=10, j=500, k=64),
        "16x1000x2048": dict(i=16, j=1000, k=2048),
        "1x1000x2048": dict(i=1, j=1000, k=2048),
    },
    "matmul_t": {"10x500x64": dict(i=10, j=500, k=64)},
    "bmatmul": {"16x10x500x64": dict(b=16, i=10, j=500, k=64)},
    "jacobi1d": {"2^24": dict(i=2**24)},
    "jacobi3d": {"256": _CUBE["256"], "512": _CUBE["512"]},
    "gaussian": {str(n): dict(h=n, w=n, r=5, s=5) for n in (224, 4096)},
    "mcc": {
        "7x7x512": dict(n=1, p=7, q=7, k=512, r=3, s=3, c=512, stride=1),
        "resnet50-n16": dict(n=16, **_RESNET50_1),
        "resnet50-n1": dict(n=1, **_RESNET50_1),
    },
    "tensor_contraction": {"ccsdt": dict(a=24, b=16, c=16, d=24, e=16, f=16, g=24)},
    "reduce_sum": {"1024x1024x16": dict(i=1024, j=1024, k=16)},
    "reduce_max": {"1024x1024x16": dict(i=1024, j=1024, k=16)},
    "histogram": {"2^24": dict(e=2**24, b=256)},
    "prefix_sum": {"2^24": dict(n=2**24)},
    **{op: {"16x112x112x64": dict(n=16, h=112, w=112, c=64)} for op in ("bias_add", "exp", "transpose")},
}
"""Named sizes per catalog entry (BENCHMARKS.md's catalog)."""

_DL_OPS = ["bias_add:16x112x112x64", "exp:16x112x112x64", "transpose:16x112x112x64"]
_REDUCTIONS = ["reduce_sum:1024x1024x16", "reduce_max:1024x1024x16"]

BAR_CASES: dict[str, list[str]] = {
    "cpu": [
        "matmul:1024", "matvec:4096", "bmatmul:16x10x500x64", "tensor_contraction:ccsdt",
        "jacobi3d:256", "gaussian:4096", *_REDUCTIONS, *_DL_OPS,
    ],
    "gpu": [
        "matmul:10x500x64", "matmul:16x1000x2048", "matmul:1x1000x2048", "matmul:4096",
        "matvec:4096", "matvec:8192", "dot:2^24", "jacobi3d:256", "gaussian:4096", *_REDUCTIONS,
        "mcc:7x7x512", "mcc:resnet50-n16", "mcc:resnet50-n1", *_DL_OPS,
    ],
}  # fmt: skip
"""The cases of BENCHMARKS.md's bar, per device."""


@dataclass(frozen=True)
class Case:
    """One computation at one size."""

    entry: str
    """The catalog name."""
    label: str
    sizes: dict[str, Any]
    """The builder's arguments (all of them: the catalog's defaults filled in)."""

    @property
    def name(self) -> str:
        return f"{self.entry}:{self.label}"

    @property
    def size_text(self) -> str:
        """The sizes as `i=1024 j=1024 k=1024`, options such as `stride=2` included."""
        return " ".join(f"{k}={v}" for k, v in self.sizes.items())

    @property
    def points(self) -> int:
        """Points of the iteration space."""
        return prod(v for k, v in self.sizes.items() if k in _dims(self.entry))

    def small(self) -> Case:
        """The same computation at the catalog's small size (for `--quick`)."""
        return Case(self.entry, "small", CATALOG[self.entry].params(**CATALOG[self.entry].small))


def _dims(entry: str) -> list[str]:
    """The entry's dimension names (its integer sizes other than options)."""
    return [k for k, v in CATALOG[entry].paper[0].items() if isinstance(v, int) and k != "stride"]


def _parse_label(entry: str, label: str) -> dict[str, Any]:
    if label in SIZES.get(entry, {}):
        return SIZES[entry][label]
    dims = _dims(entry)
    try:
        values = [_integer(v) for v in label.split("x")]
    except ValueError:
        values = []
    if len(values) != len(dims):
        named = ", ".join(SIZES.get(entry, {})) or "none"
        raise ValueError(
            f"case '{entry}:{label}': give a named size ({named}) or {len(dims)} sizes "
            f"{'x'.join(dims)}"
        )
    return dict(zip(dims, values))


def _integer(text: str) -> int:
    """`4096` or `2^24`."""
    base, _, power = text.partition("^")
    return int(base) ** int(power) if power else int(base)


def parse_cases(text: str | None, device: str) -> list[Case]:
    """The cases named by `--cases` (comma-separated), by default the device's bar cases."""
    specs = text.split(",") if text else BAR_CASES[device]
    cases: list[Case] = []
    for spec in (s.strip() for s in specs if s.strip()):
        entry, _, label = spec.partition(":")
        if entry not in CATALOG:
            raise ValueError(f"unknown computation '{entry}' (known: {', '.join(CATALOG)})")
        if label:
            cases.append(Case(entry, label, CATALOG[entry].params(**_parse_label(entry, label))))
            continue
        bar = [c.partition(":")[2] for c in BAR_CASES[device] if c.partition(":")[0] == entry]
        for name in bar or [None]:
            sizes = SIZES[entry][name] if name else CATALOG[entry].paper[0]
            cases.append(Case(entry, name or "paper", CATALOG[entry].params(**sizes)))
    return cases
