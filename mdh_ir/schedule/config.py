"""The tuning configuration of one `mdh.compute`: the parameter table of DESIGN.md section 4.

A configuration lives in the IR as `#mdh.config<key = value, ...>` on the op; this module
reads it into a typed `Config` (its shape against the op checked by the dialect,
`mdh_ir.dialects.mdh_config`) and writes it back (`Config.to_attr`). Device-dependent
rules live in `mdh_ir.schedule.constraints`.

Keys (D = number of dimensions, B = input buffers, K = output buffers):

| key | shape | values |
|---|---|---|
| num_wg, num_wi, lt_size, pt_size | D | positive integers |
| inp_mem | [lt layer: B, pt layer: B] | lt: "glb" or "lcl"; pt: "glb" or "prv" |
| res_mem | K | "prv", "lcl" or "glb": where a work-item accumulates its results |
| ocl_dim | [wg layer: D, wi layer: D] | OpenCL dimension 0, 1 or 2 of each MDH dimension |
| buf_layout | [lt layer: B, pt layer: B] | per buffer, a permutation of its axes (cached tile order) |
| loop_order | [lt layer: D, pt layer: D] | permutations of the dimensions (outermost first) |
| combine_layer | 1 | "end", "lt" or "pt": when a work-item's partial results are flushed |
| vector_width, unroll | 1 | positive integers |
| prefetch | 1 | 0, 1 (load the next local tile's inputs into registers during this one), 2 (also two local buffers, one barrier a tile) or 3 (two local buffers, the next tile's copies asynchronous: `cp.async` where the device has it) |
| wg_combine | 1 | "kernel" or "last": who combines the partial results of work-groups that share a pw dimension, a second kernel or the last of them to finish (per kept work-group) |
| lcl_pad | 1 | elements added to each row (innermost axis) of a local buffer of two or more axes, against bank conflicts: 0 to 8 |
| mma | 1 | "none", "tf32", "f16" or "bf16": the innermost register tile computed with warp-level tensor-core `mma.sync` fragments of those inputs (rules `mma-inputs`, `mma`) |
| stages | 1 | 2 to 4: with `prefetch = 3`, the local tiles' slots the asynchronous copies fill in turn, `stages - 1` tiles ahead of the one computed on (rule `stages`) |
| lcl_swizzle | 1 | 0 or 1: local buffers of tensor-core fragments (`mma`) keep their rows unpadded and permute each row's 16-byte chunks by XOR with bits of the row index, against bank conflicts (`lowlevel-swizzle-local`; rule `lcl-swizzle`) |
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.dialects.mdh_config import ConfigAttr, config_entries
from mdh_ir.errors import ConfigError


@dataclass(frozen=True)
class Config:
    num_wg: tuple[int, ...]
    num_wi: tuple[int, ...]
    lt_size: tuple[int, ...]
    pt_size: tuple[int, ...]
    inp_mem: tuple[tuple[str, ...], tuple[str, ...]]
    res_mem: tuple[str, ...]
    ocl_dim: tuple[tuple[int, ...], tuple[int, ...]]
    buf_layout: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    loop_order: tuple[tuple[int, ...], tuple[int, ...]]
    combine_layer: str = "end"
    vector_width: int = 1
    unroll: int = 1
    prefetch: int = 0
    lcl_pad: int = 0
    wg_combine: str = "kernel"
    mma: str = "none"
    stages: int = 2
    lcl_swizzle: int = 0

    @staticmethod
    def keys() -> list[str]:
        return [f.name for f in fields(Config)]

    @staticmethod
    def from_attr(attr: ConfigAttr, op: ComputeOp) -> dict[str, Any]:
        """The entries present in `attr` (it may be partial), each checked against `op`
        (`mdh_config.config_entries`)."""
        return config_entries(attr, op)

    @staticmethod
    def of(op: ComputeOp) -> Config:
        """The complete configuration of `op` (run `mdh-default-config` first)."""
        if op.config is None:
            raise ConfigError("the op has no configuration (run mdh-default-config)")
        return Config.complete(Config.from_attr(op.config, op), " (run mdh-default-config)")

    @staticmethod
    def complete(entries: dict[str, Any], hint: str = "") -> Config:
        """The configuration of `entries` (`from_attr`); `ConfigError` naming the keys
        missing."""
        missing = [k for k in Config.keys() if k not in entries and k not in _OPTIONAL]
        if missing:
            raise ConfigError(f"missing key {', '.join(missing)}{hint}")
        return Config(**entries)

    def to_attr(self) -> ConfigAttr:
        return ConfigAttr.from_values(_to_lists(asdict(self)))

    @property
    def local_slots(self) -> int:
        """Slots of each local tile the innermost local-tile loop copies into: `stages`
        with `prefetch = 3`, two with 2, one otherwise."""
        return self.stages if self.prefetch == 3 else 2 if self.prefetch == 2 else 1

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)


_OPTIONAL = (
    "combine_layer", "vector_width", "unroll", "prefetch", "lcl_pad", "wg_combine", "mma", "stages", "lcl_swizzle",
)  # fmt: skip


def _to_lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _to_lists(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_to_lists(v) for v in value]
    return value
