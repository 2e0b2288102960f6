"""The tuning configuration of one `mdh.compute`: the parameter table of DESIGN.md section 4.

A configuration lives in the IR as `#mdh.config<key = value, ...>` on the op; this module
reads it into a typed `Config`, checks its shape against the op (`Config.from_attr`), and
writes it back (`Config.to_attr`). Device-dependent rules live in `mdh_ir.constraints`.

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
| prefetch | 1 | 0, 1 (load the next local tile's inputs into registers during this one) or 2 (also two local buffers, one barrier a tile) |
| wg_combine | 1 | "kernel" or "last": who combines the partial results of work-groups that share a pw dimension, a second kernel or the last of them to finish (per kept work-group) |
| lcl_pad | 1 | elements added to each row (innermost axis) of a local buffer of two or more axes, against bank conflicts: 0 to 8 |
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from mdh_ir.dialects.mdh import ComputeOp, ConfigAttr

LT_MEM = ("glb", "lcl")
PT_MEM = ("glb", "prv")
RES_MEM = ("prv", "lcl", "glb")
COMBINE_LAYERS = ("end", "lt", "pt")
WG_COMBINES = ("kernel", "last")
MAX_LCL_PAD = 8


class ConfigError(Exception):
    """A configuration that does not fit its op or breaks a rule; the message names it."""


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

    @staticmethod
    def keys() -> list[str]:
        return [f.name for f in fields(Config)]

    @staticmethod
    def from_attr(attr: ConfigAttr, op: ComputeOp) -> dict[str, Any]:
        """The entries present in `attr` (it may be partial), each checked against `op`."""
        values = attr.values
        unknown = [k for k in values if k not in Config.keys()]
        if unknown:
            raise ConfigError(f"unknown key '{unknown[0]}' (known: {', '.join(Config.keys())})")
        shape = _Shape(op)
        return {k: shape.read(k, v) for k, v in values.items()}

    @staticmethod
    def of(op: ComputeOp) -> Config:
        """The complete configuration of `op` (run `mdh-default-config` first)."""
        if op.config is None:
            raise ConfigError("the op has no configuration (run mdh-default-config)")
        entries = Config.from_attr(op.config, op)
        missing = [k for k in Config.keys() if k not in entries and k not in _OPTIONAL]
        if missing:
            raise ConfigError(f"missing key {', '.join(missing)} (run mdh-default-config)")
        return Config(**entries)

    def to_attr(self) -> ConfigAttr:
        return ConfigAttr.from_values(_to_lists(asdict(self)))

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)


_OPTIONAL = ("combine_layer", "vector_width", "unroll", "prefetch", "lcl_pad", "wg_combine")


def _to_lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _to_lists(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_to_lists(v) for v in value]
    return value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _is_permutation(value: Any, n: int) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(v, int) for v in value)
        and sorted(value) == list(range(n))
    )


class _Shape:
    """Checks each key's value against the op's number of dims and buffers."""

    def __init__(self, op: ComputeOp):
        self.rank = op.rank
        self.inputs = len(op.inputs)
        self.outputs = len(op.outputs)
        self.buffer_ranks = [len(v.type.get_shape()) for v in op.inputs]  # type: ignore

    def read(self, key: str, value: Any) -> Any:
        getattr(self, f"check_{key}")(key, value)
        return _tuples(value)

    def list_of(self, key: str, value: Any, n: int, what: str) -> None:
        if not isinstance(value, list) or len(value) != n:
            raise ConfigError(f"{key} must be a list of {n} {what}, got {value!r}")

    def positive(self, key: str, value: Any) -> None:
        self.list_of(key, value, self.rank, "positive integers (one per dimension)")
        if not all(isinstance(v, int) and v >= 1 for v in value):
            raise ConfigError(f"{key} must hold positive integers, got {value!r}")

    check_num_wg = check_num_wi = check_lt_size = check_pt_size = positive

    def check_inp_mem(self, key: str, value: Any) -> None:
        self.list_of(key, value, 2, "lists ([lt layer], [pt layer])")
        for layer, allowed in zip(value, (LT_MEM, PT_MEM)):
            self.list_of(key, layer, self.inputs, "memory regions (one per input buffer)")
            if any(v not in allowed for v in layer):
                raise ConfigError(f"{key}: {layer!r} must use only {list(allowed)}")

    def check_res_mem(self, key: str, value: Any) -> None:
        self.list_of(key, value, self.outputs, "memory regions (one per output buffer)")
        if any(v not in RES_MEM for v in value):
            raise ConfigError(f"{key}: {value!r} must use only {list(RES_MEM)}")

    def check_ocl_dim(self, key: str, value: Any) -> None:
        self.list_of(key, value, 2, "lists ([wg layer], [wi layer])")
        for layer in value:
            self.list_of(key, layer, self.rank, "OpenCL dimensions (one per dimension)")
            if any(v not in (0, 1, 2) for v in layer):
                raise ConfigError(f"{key}: {layer!r} must use only 0, 1 and 2")

    def check_buf_layout(self, key: str, value: Any) -> None:
        self.list_of(key, value, 2, "lists ([lt layer], [pt layer])")
        for layer in value:
            self.list_of(key, layer, self.inputs, "permutations (one per input buffer)")
            for perm, rank in zip(layer, self.buffer_ranks):
                if not _is_permutation(perm, rank):
                    raise ConfigError(f"{key}: {perm!r} is not a permutation of {rank} axes")

    def check_loop_order(self, key: str, value: Any) -> None:
        self.list_of(key, value, 2, "lists ([lt layer], [pt layer])")
        for perm in value:
            if not _is_permutation(perm, self.rank):
                raise ConfigError(f"{key}: {perm!r} is not a permutation of {self.rank} dims")

    def one_of(self, key: str, value: Any, choices: tuple[str, ...]) -> None:
        if value not in choices:
            raise ConfigError(f"{key} must be one of {list(choices)}, got {value!r}")

    def check_combine_layer(self, key: str, value: Any) -> None:
        self.one_of(key, value, COMBINE_LAYERS)

    def check_vector_width(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or value not in (1, 2, 4, 8, 16):
            raise ConfigError(f"{key} must be 1, 2, 4, 8 or 16, got {value!r}")

    def check_unroll(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or value < 1:
            raise ConfigError(f"{key} must be a positive integer, got {value!r}")

    def check_prefetch(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or value not in (0, 1, 2):
            raise ConfigError(f"{key} must be 0, 1 or 2, got {value!r}")

    def check_lcl_pad(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or not 0 <= value <= MAX_LCL_PAD:
            raise ConfigError(f"{key} must be an integer from 0 to {MAX_LCL_PAD}, got {value!r}")

    def check_wg_combine(self, key: str, value: Any) -> None:
        self.one_of(key, value, WG_COMBINES)
