"""`#mdh.config<key = value, ...>`, the tuning configuration on `mdh.compute`, and its
structure: the keys, and each value's shape against the op (one entry per dimension,
per input or output buffer, per layer) and its allowed values (`config_entries`).

Values are integers, strings or nested lists. What a configuration means, and the rules
it must satisfy on a device, are the schedule model's (`mdh_ir.schedule.config`,
`mdh_ir.schedule.constraints`); the dialect checks only that it is well-formed for its op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import ParametrizedAttribute, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mdh_ir.errors import ConfigError

CONFIG_KEYS = (
    "num_wg", "num_wi", "lt_size", "pt_size", "inp_mem", "res_mem", "ocl_dim", "buf_layout",
    "loop_order", "combine_layer", "vector_width", "unroll", "prefetch", "lcl_pad", "wg_combine",
    "mma", "stages", "lcl_swizzle",
)  # fmt: skip
"""The keys, in the order of `mdh_ir.schedule.config.Config`'s fields."""

LT_MEM = ("glb", "lcl")
PT_MEM = ("glb", "prv")
RES_MEM = ("prv", "lcl", "glb")
COMBINE_LAYERS = ("end", "lt", "pt")
WG_COMBINES = ("kernel", "last")
MMA = ("none", "tf32", "f16", "bf16")
"""Tensor-core decisions: none, or warp-level `mma.sync` fragments of TF32, FP16 or BF16
inputs (rules `tensor-cores`, `mma-inputs`, `implemented` of `schedule.constraints`)."""
MAX_LCL_PAD = 8
MAX_STAGES = 4

ConfigValue = int | str | list["ConfigValue"]
INT_RANGE = range(-(2**63), 2**63)
"""The integers a configuration holds (64-bit signed: `IntegerAttr(_, 64)` would take
2^63 to 2^64 - 1 too, as their two's complement, 2^64 - 1 as -1)."""


def range_problem(value: int) -> str | None:
    """Why integer `value` cannot be a configuration value, or None."""
    if value in INT_RANGE:
        return None
    return f"#mdh.config: integer {value} is out of range (configuration integers lie in [-2^63, 2^63))"


def value_to_attr(value: ConfigValue) -> Attribute:
    if isinstance(value, bool):
        raise TypeError("configuration values are integers, strings or lists")
    if isinstance(value, int):
        if (problem := range_problem(value)) is not None:
            raise ValueError(problem)
        return IntegerAttr(value, 64)
    if isinstance(value, str):
        return StringAttr(value)
    return ArrayAttr([value_to_attr(v) for v in value])


def attr_to_value(attr: Attribute) -> ConfigValue:
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    assert isinstance(attr, ArrayAttr)
    return [attr_to_value(a) for a in attr.data]


@irdl_attr_definition
class ConfigAttr(ParametrizedAttribute):
    """`#mdh.config<num_wg = [4, 1], inp_mem = [["lcl", "glb"], ...], ...>`."""

    name = "mdh.config"
    entries: DictionaryAttr

    @staticmethod
    def from_values(values: dict[str, ConfigValue]) -> ConfigAttr:
        return ConfigAttr(DictionaryAttr({k: value_to_attr(v) for k, v in values.items()}))

    @property
    def values(self) -> dict[str, ConfigValue]:
        return {k: attr_to_value(v) for k, v in self.entries.data.items()}

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def parse_value() -> Attribute:
            pos = parser.pos
            if (i := parser.parse_optional_integer(allow_boolean=False)) is not None:
                if (problem := range_problem(i)) is not None:
                    parser.raise_error(problem, at_position=pos, end_position=parser.pos)
                return IntegerAttr(i, 64)
            if (s := parser.parse_optional_identifier_or_str_literal()) is not None:
                return StringAttr(s)
            items = parser.parse_optional_comma_separated_list(
                parser.Delimiter.SQUARE, parse_value, " in configuration value"
            )
            if items is None:
                parser.raise_error("#mdh.config: a value is an integer, a string or a list")
            return ArrayAttr(items)

        entries: dict[str, Attribute] = {}

        def parse_entry() -> None:
            pos = parser.pos
            key = parser.parse_identifier(" for a configuration key")
            if key in entries:
                parser.raise_error(f"#mdh.config: key '{key}' is given twice", at_position=pos)
            parser.parse_punctuation("=")
            entries[key] = parse_value()

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_entry, " in #mdh.config")
        return (DictionaryAttr(entries),)

    def print_parameters(self, printer: Printer) -> None:
        def print_value(attr: Attribute) -> None:
            if isinstance(attr, IntegerAttr):
                printer.print_string(str(attr.value.data))
            elif isinstance(attr, StringAttr):
                printer.print_string_literal(attr.data)
            else:
                assert isinstance(attr, ArrayAttr)
                printer.print_string("[")
                printer.print_list(attr.data, print_value)
                printer.print_string("]")

        printer.print_string("<")
        for i, (key, value) in enumerate(self.entries.data.items()):
            printer.print_string(f"{', ' if i else ''}{key} = ")
            print_value(value)
        printer.print_string(">")

    def verify(self) -> None:
        def check(attr: Attribute) -> None:
            if isinstance(attr, ArrayAttr):
                for a in attr.data:
                    check(a)
            elif not isinstance(attr, IntegerAttr | StringAttr):
                raise VerifyException(f"#mdh.config: unsupported value {attr}")

        for value in self.entries.data.values():
            check(value)

def config_entries(attr: ConfigAttr, op: Operation) -> dict[str, Any]:
    """The entries present in `attr` (it may be partial), each checked against `op`
    (an `mdh.compute`), lists read as tuples; a malformed one raises `ConfigError`."""
    values = attr.values
    unknown = [k for k in values if k not in CONFIG_KEYS]
    if unknown:
        raise ConfigError(f"unknown key '{unknown[0]}' (known: {', '.join(CONFIG_KEYS)})")
    shape = _Shape(op)
    return {k: shape.read(k, v) for k, v in values.items()}


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

    def __init__(self, op: Operation):
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
        if not isinstance(value, int) or value not in (0, 1, 2, 3):
            raise ConfigError(f"{key} must be 0, 1, 2 or 3, got {value!r}")

    def check_lcl_pad(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or not 0 <= value <= MAX_LCL_PAD:
            raise ConfigError(f"{key} must be an integer from 0 to {MAX_LCL_PAD}, got {value!r}")

    def check_lcl_swizzle(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or value not in (0, 1):
            raise ConfigError(f"{key} must be 0 or 1, got {value!r}")

    def check_stages(self, key: str, value: Any) -> None:
        if not isinstance(value, int) or not 2 <= value <= MAX_STAGES:
            raise ConfigError(f"{key} must be an integer from 2 to {MAX_STAGES}, got {value!r}")

    def check_wg_combine(self, key: str, value: Any) -> None:
        self.one_of(key, value, WG_COMBINES)

    def check_mma(self, key: str, value: Any) -> None:
        self.one_of(key, value, MMA)
