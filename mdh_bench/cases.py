"""The benchmark cases: catalog entries at named sizes, and the bar cases of each device.

A case is written `ENTRY:LABEL` (`matmul:1024`, `mcc:resnet50-n16`). The label names a
size of `SIZES`, or gives every integer size of the entry in the order of its
dimensions (`matmul:512x256x128`, `dot:2^20`); options such as `stride` keep the
catalog's value. `ENTRY` alone stands for the device's bar cases of that entry, else
the entry's first paper size. The default selection is the device's bar cases
(BENCHMARKS.md, "The bar"); `--quick` replaces every case's sizes with the catalog's
`small` ones.

`SWEEPS` names lists of cases (`--sweep NAME`): the size sweeps of each device, so that
no size falls off a cliff unseen (odd and skinny matrix products, every 3×3 and 1×1
convolution of ResNet-50, scans, reductions over each axis), and their parts.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from math import prod
from typing import Any

from mdh_bench.entries import ENTRIES, PRECISIONS

_CUBE = {str(n): dict(i=n, j=n, k=n) for n in (127, 256, 500, 512, 1000, 1023, 1024, 1025, 2000, 3000, 4096)}
_DL_MATMULS = {"10x500x64": dict(i=10, j=500, k=64), "16x1000x2048": dict(i=16, j=1000, k=2048), "1x1000x2048": dict(i=1, j=1000, k=2048)}  # fmt: skip
"""The deep-learning matrix products of BENCHMARKS.md's catalog."""
_RESNET50_1 = dict(p=112, q=112, k=64, r=7, s=7, c=3, stride=2)



def _resnet50_layers() -> dict[str, dict[str, int]]:
    """ResNet-50 v1.5's distinct 3×3 and 1×1 convolutions, `r50-STAGE-KIND`, as valid
    convolutions (no padding: the input is the padded one, (p-1)·stride + r wide).
    Each stage's first block reduces the channels at the previous stage's resolution,
    has its stride 2 in the 3×3 convolution and a stride-2 1×1 projection (conv3-conv5);
    the other blocks reduce 4w -> w, convolve w -> w 3×3 and expand w -> 4w."""
    layers = {}
    stages = [("conv2", 56, 64, 64), ("conv3", 28, 128, 256), ("conv4", 14, 256, 512), ("conv5", 7, 512, 1024)]
    for stage, size, w, c_in in stages:
        stride = 1 if stage == "conv2" else 2
        conv = lambda p, k, r, c, stride=1: dict(p=p, q=p, k=k, r=r, s=r, c=c, stride=stride)  # noqa: E731
        layers[f"r50-{stage}-1x1-{c_in}to{w}"] = conv(size * stride, w, 1, c_in)
        if stride == 2:
            layers[f"r50-{stage}-3x3s2"] = conv(size, w, 3, w, stride=2)
            layers[f"r50-{stage}-1x1s2-{c_in}to{4 * w}"] = conv(size, 4 * w, 1, c_in, stride=2)
        layers[f"r50-{stage}-3x3"] = conv(size, w, 3, w)
        layers[f"r50-{stage}-1x1-{w}to{4 * w}"] = conv(size, 4 * w, 1, w)
        layers[f"r50-{stage}-1x1-{4 * w}to{w}"] = conv(size, w, 1, 4 * w)
    return layers


_RESNET50_LAYERS = {f"{name}-n{n}": dict(n=n, **layer) for name, layer in _resnet50_layers().items() for n in (1, 32)}
"""ResNet-50's layers at batch 1 and 32 (`r50-conv3-3x3s2-n32`)."""
_BATCHED = {s: dict(zip("bijk", map(int, s.split("x")))) for s in ("16x127x500x63", "8x1023x1025x255", "16x10x500x64", "32x512x512x64")}  # fmt: skip
"""Batched products: odd sizes, BENCHMARKS.md's and a DL-like one (32 heads' attention scores)."""

SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "dot": {"2^24": dict(k=2**24), "10^7": dict(k=10**7)},
    "matvec": {"4096": dict(i=4096, k=4096), "8192": dict(i=8192, k=8192)},
    "matmul": {**_CUBE, **_DL_MATMULS},
    "matmul_t": {"10x500x64": dict(i=10, j=500, k=64)},
    "bmatmul": {"16x10x500x64": dict(b=16, i=10, j=500, k=64)},
    "jacobi1d": {"2^24": dict(i=2**24)},
    "jacobi3d": {"256": _CUBE["256"], "512": _CUBE["512"]},
    "gaussian": {str(n): dict(h=n, w=n, r=5, s=5) for n in (224, 4096)},
    "mcc": {
        "7x7x512": dict(n=1, p=7, q=7, k=512, r=3, s=3, c=512, stride=1),
        "resnet50-n16": dict(n=16, **_RESNET50_1),
        "resnet50-n1": dict(n=1, **_RESNET50_1),
        **_RESNET50_LAYERS,
    },
    "tensor_contraction": {"ccsdt": dict(a=24, b=16, c=16, d=24, e=16, f=16, g=24)},
    "reduce_sum": {"1024x1024x16": dict(i=1024, j=1024, k=16)},
    "reduce_max": {"1024x1024x16": dict(i=1024, j=1024, k=16)},
    "histogram": {"2^24": dict(e=2**24, b=256)},
    "prefix_sum": {"2^20": dict(n=2**20), "2^24": dict(n=2**24)},
    **{op: {"16x112x112x64": dict(n=16, h=112, w=112, c=64)} for op in ("bias_add", "exp", "transpose")},
    "mm_bias_relu": {"1024": _CUBE["1024"], "4096": _CUBE["4096"]},
    "softmax": {"64x128x128": dict(i=64 * 128, j=128)},
    "jacobi3d_twice": {"256": _CUBE["256"], "512": _CUBE["512"]},
    **{f"matmul_{p}": {**_CUBE, **_DL_MATMULS} for p in PRECISIONS},
    **{f"bmatmul_{p}": _BATCHED for p in PRECISIONS},
    **{f"mcc_{p}": _RESNET50_LAYERS for p in PRECISIONS},
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

_REDUCTIONS_BY_AXIS = [f"{r}{axis}:1024x1024x16" for r in ("reduce_sum", "reduce_max") for axis in ("", "_j", "_k")]
_OTHERS = [
    "tensor_contraction:ccsdt", "tensor_contraction:16x16x16x16x16x16x32",
    "prefix_sum:2^20", "prefix_sum:2^24", *_REDUCTIONS_BY_AXIS,
]  # fmt: skip
"""Two contractions, two scans and the reductions over each axis (the same on both devices)."""
_CONV_LAYERS = list(_RESNET50_LAYERS)


def _matmuls(cubes: tuple[int, ...], n: int) -> list[str]:
    """Cubes, the skinny products of LLM inference (m rows × n × n, m = 1 … 128) and an
    n × n × 32 product (a rank-32 update)."""
    return [
        *(f"matmul:{c}" for c in cubes), *(f"matmul:{m}x{n}x{n}" for m in (1, 8, 32, 128)),
        f"matmul:{n}x{n}x32",
    ]  # fmt: skip


SWEEPS: dict[str, list[str]] = {
    "gpu-matmul": [
        *_matmuls((127, 500, 1000, 1023, 1025, 2000, 3000), 4096),
        "matmul_t:1023x1023x1023", "matmul_t:500x127x1025", "bmatmul:16x127x500x63", "bmatmul:8x1023x1025x255",
    ],
    "gpu-conv": [f"mcc:{name}" for name in _CONV_LAYERS],
    "gpu-conv-n1": [f"mcc:{name}" for name in _CONV_LAYERS if name.endswith("-n1")],
    "gpu-conv-n32": [f"mcc:{name}" for name in _CONV_LAYERS if name.endswith("-n32")],
    "gpu-other": _OTHERS,
    "cpu-matmul": [
        *_matmuls((127, 500, 1000, 1023, 1025), 1024),
        "matmul_t:255x257x127", "bmatmul:16x127x500x63",
    ],
    "cpu-conv": [f"mcc:{name}" for name in _CONV_LAYERS if name.endswith("-n1")],
    "cpu-other": _OTHERS,
}  # fmt: skip
_CHAINS = [
    *(f"mm_bias_relu:{s}" for s in ("10x500x64", "16x1000x2048", "1x1000x2048")),
    "softmax:4096x4096", "softmax:64x128x128",
]  # fmt: skip
SWEEPS["gpu-precision"] = [
    f"matmul_{p}:{s}" for p in PRECISIONS
    for s in ("4096", "3000", "2000", "1025", "1000", "16x1000x2048", "128x4096x4096")
]  # fmt: skip
_PRECISION_CONVS = [
    name for name in _CONV_LAYERS
    if name.endswith("-n32") and ("-3x3" in name or name.startswith("r50-conv3-1x1"))
]  # fmt: skip
"""ResNet-50's 3×3 convolutions (each stage, stride 1 and 2) and conv3's 1×1 ones, at batch 32."""
SWEEPS["gpu-precision-conv"] = [
    *(f"mcc_{p}:{name}" for p in PRECISIONS for name in _PRECISION_CONVS),
    *(f"bmatmul_{p}:{s}" for p in PRECISIONS for s in _BATCHED),
]

_ALL_PRECISIONS = ("_f16", "_bf16", "_tf32", "", "_f16")
"""The entries' precision suffixes `_random_cases` draws from (f16 twice)."""


def _random_cases(seed: int, count: int, suffixes: tuple[str, ...] = _ALL_PRECISIONS, flops: float = 1.0) -> list[str]:
    """`count` cases at sizes a user might pick, drawn (seeded) log-uniformly: matrix
    products of 16-6000 rows and 64-6000 columns and sums, batched products of 2-64
    products of 16-1024, convolutions of batch 1-64 over 7-56 pixels (13 and 27 among
    them), 3-512 channels in, 32-768 out, filters of 1, 3 or 5; in the precisions of the
    entries' `suffixes`; at most `flops` times 1.5e11 (products) or 1e11 flops each."""
    rng = random.Random(seed)

    def size(low: int, high: int) -> int:
        return round(math.exp(rng.uniform(math.log(low), math.log(high))))

    cases: list[str] = []
    while len(cases) < count:
        entry = rng.choice(["matmul", "matmul", "matmul", "bmatmul", "mcc", "mcc"])
        suffix = rng.choice(suffixes)
        if entry == "matmul":
            sizes, limit = [size(16, 6000), size(64, 6000), size(64, 6000)], 1.5e11 * flops
        elif entry == "bmatmul":
            sizes, limit = [size(2, 64), size(16, 1024), size(16, 1024), size(16, 1024)], 1e11 * flops
        else:
            n, p = rng.choice([1, 4, 8, 16, 32, 64]), rng.choice([7, 14, 28, 56, 13, 27])
            k = rng.choice([32, 64, 96, 128, 192, 256, 320, 512, 768])
            c, r = rng.choice([3, 32, 64, 96, 128, 256, 384, 512]), rng.choice([1, 3, 3, 5])
            sizes, limit = [n, p, p, k, r, r, c], 1e11 * flops
        if 2 * prod(sizes) <= limit:
            cases.append(f"{entry}{suffix}:{'x'.join(map(str, sizes))}")
    return cases


SWEEPS["gpu-random"] = _random_cases(1, 40)
SWEEPS["cpu-random"] = _random_cases(1, 40, ("",), 1 / 50)
SWEEPS["gpu-random-fp32"] = _random_cases(2, 40, ("",))
SWEEPS["gpu-chains"] = [*_CHAINS, "mm_bias_relu:4096", "jacobi3d_twice:256", "jacobi3d_twice:512"]
SWEEPS["cpu-chains"] = [*_CHAINS, "mm_bias_relu:1024", "jacobi3d_twice:256"]
SWEEPS["gpu"] = SWEEPS["gpu-matmul"] + SWEEPS["gpu-conv"] + SWEEPS["gpu-other"]
SWEEPS["cpu"] = SWEEPS["cpu-matmul"] + SWEEPS["cpu-conv"] + SWEEPS["cpu-other"]
"""The size sweeps (`--sweep NAME`): `gpu` and `cpu` whole, and their parts (each one
run's worth), of the sizes that fit each device (the CPU's are those 2 cores measure in
reasonable time: ResNet-50 at batch 1 only, products of up to 1025³); and the chains
(`gpu-chains`, `cpu-chains`: matmul + bias + ReLU at the DL sizes and a cube, row
softmax, Jacobi3D twice), each timed fused, unfused and against its single op, and
`gpu-precision` (matrix products with TF32, f16 and bf16 inputs against torch in the
same precision) and `gpu-precision-conv` (likewise ResNet-50's 3×3 convolutions and
conv3's 1×1 ones at batch 32 against cuDNN, and batched products) and `gpu-random`,
`cpu-random` (40 sizes a user might pick, `_random_cases`; the CPU's in FP32, of at most
1/50 of the flops) and `gpu-random-fp32` (40 other sizes in FP32, where Triton is a peer
of the products), not parts of the whole sweeps."""


def sweeps_including(name: str) -> list[str]:
    """`name` and its device's whole sweep if `name` is a part of it (`gpu` for `gpu-conv`)."""
    whole = name.split("-")[0]
    return [name] + ([whole] if whole != name and set(SWEEPS[name]) <= set(SWEEPS.get(whole, [])) else [])


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
        return Case(self.entry, "small", ENTRIES[self.entry].params(**ENTRIES[self.entry].small))


def _dims(entry: str) -> list[str]:
    """The entry's dimension names (its integer sizes other than options)."""
    return [k for k, v in ENTRIES[entry].paper[0].items() if isinstance(v, int) and k != "stride"]


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
        if entry not in ENTRIES:
            raise ValueError(f"unknown computation '{entry}' (known: {', '.join(ENTRIES)})")
        if label:
            cases.append(Case(entry, label, ENTRIES[entry].params(**_parse_label(entry, label))))
            continue
        bar = [c.partition(":")[2] for c in BAR_CASES[device] if c.partition(":")[0] == entry]
        for name in bar or [None]:
            sizes = SIZES[entry][name] if name else ENTRIES[entry].paper[0]
            cases.append(Case(entry, name or "paper", ENTRIES[entry].params(**sizes)))
    return cases


def sweep_cases(name: str, device: str) -> list[Case]:
    """The cases of the sweep `name` (`SWEEPS`)."""
    if name not in SWEEPS:
        raise ValueError(f"unknown sweep '{name}' (known: {', '.join(SWEEPS)})")
    return parse_cases(",".join(SWEEPS[name]), device)


def quick(cases: list[Case]) -> list[Case]:
    """`cases` at the catalog's small sizes, each computation once (`--quick`)."""
    return list({c.name: c for c in (c.small() for c in cases)}.values())
