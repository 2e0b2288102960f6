"""The high-level `mdh` dialect: one op, `mdh.compute`, holding a whole MDH computation.

Syntax (the MDH MLIR interface of the seed papers):

    %w = mdh.compute "mdh_matvec"
      { inp_view = [ [ affine_map<(i,k) -> (i,k)> ], [ affine_map<(i,k) -> (k)> ] ],
        md_hom   = { scalar_func = @mul, combine_ops = [ "cc", ["pw", @add] ] },
        out_view = [ [ affine_map<(i,k) -> (i)> ] ] }
      { inp_types = [ f32, f32 ], mda_size = [ 128, 64 ], out_types = [ f32 ] }
      (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>

The first dictionary may also hold `boundary = ["none", "clamp", ...]` (one entry per
input buffer), the second `config = #mdh.config<...>` (the tuning configuration).
Semantics: see `mdh_ir.semantics.reference`; verification rules: `ComputeOp.verify_`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    ParametrizedAttribute,
    VerificationContext,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException


BUILTIN_COMBINES = ("add", "mul", "max", "min", "and", "or", "xor")
"""Names accepted in place of a combine function symbol (float max/min ignore NaN)."""

INTEGER_ONLY_COMBINES = ("and", "or", "xor")

BOUNDARY_MODES = ("none", "clamp", "zero", "wrap", "mirror")
"""What a read outside an input buffer returns: `none` means it never happens."""

SCALAR_TYPES = (Float32Type, Float64Type)
SCALAR_INT_WIDTHS = (32, 64)


def is_scalar_type(t: Attribute) -> bool:
    """The element types MDH computations may use: f32, f64, i32, i64."""
    if isinstance(t, SCALAR_TYPES):
        return True
    return isinstance(t, IntegerType) and t.width.data in SCALAR_INT_WIDTHS


@dataclass(frozen=True)
class Combine:
    """One combine operator: `cc`, or `pw`/`ps` with a function (symbol or builtin name)."""

    kind: str
    func: str | None = None
    builtin: bool = False

    @staticmethod
    def from_attr(attr: Attribute) -> Combine:
        """Read `"cc"`, `"add"` (sugar for `["pw", "add"]`), `["pw", @f]`, `["ps", "max"]`."""
        if isinstance(attr, StringAttr):
            if attr.data == "cc":
                return Combine("cc")
            if attr.data in BUILTIN_COMBINES:
                return Combine("pw", attr.data, True)
            raise VerifyException(
                f'unknown combine operator "{attr.data}" (expected "cc", a builtin '
                f'{list(BUILTIN_COMBINES)}, ["pw", @f] or ["ps", @f])'
            )
        if isinstance(attr, ArrayAttr) and len(attr.data) == 2:
            kind, func = attr.data
            if isinstance(kind, StringAttr) and kind.data in ("pw", "ps"):
                if isinstance(func, SymbolRefAttr) and not func.nested_references:
                    return Combine(kind.data, func.root_reference.data)
                if isinstance(func, StringAttr) and func.data in BUILTIN_COMBINES:
                    return Combine(kind.data, func.data, True)
                raise VerifyException(
                    f"combine function must be a symbol (@f) or a builtin "
                    f"{list(BUILTIN_COMBINES)}, got {func}"
                )
        raise VerifyException(
            f'malformed combine operator {attr} (expected "cc", ["pw", @f] or ["ps", @f])'
        )

    def to_attr(self) -> Attribute:
        if self.kind == "cc":
            return StringAttr("cc")
        func = StringAttr(self.func) if self.builtin else SymbolRefAttr(self.func)
        return ArrayAttr([StringAttr(self.kind), func])

    def __str__(self) -> str:
        if self.kind == "cc":
            return "cc"
        return f"{self.kind}({self.func if self.builtin else '@' + self.func})"


# ---------------------------------------------------------------------------------------
# The tuning configuration attribute: a flat list of `key = value`, values being integers,
# strings or nested lists. Its keys and rules live in `mdh_ir.config`.
# ---------------------------------------------------------------------------------------

ConfigValue = int | str | list["ConfigValue"]


def _value_to_attr(value: ConfigValue) -> Attribute:
    if isinstance(value, bool):
        raise TypeError("configuration values are integers, strings or lists")
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    if isinstance(value, str):
        return StringAttr(value)
    return ArrayAttr([_value_to_attr(v) for v in value])


def _attr_to_value(attr: Attribute) -> ConfigValue:
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    assert isinstance(attr, ArrayAttr)
    return [_attr_to_value(a) for a in attr.data]


@irdl_attr_definition
class ConfigAttr(ParametrizedAttribute):
    """`#mdh.config<num_wg = [4, 1], inp_mem = [["lcl", "glb"], ...], ...>`."""

    name = "mdh.config"
    entries: DictionaryAttr

    @staticmethod
    def from_values(values: dict[str, ConfigValue]) -> ConfigAttr:
        return ConfigAttr(DictionaryAttr({k: _value_to_attr(v) for k, v in values.items()}))

    @property
    def values(self) -> dict[str, ConfigValue]:
        return {k: _attr_to_value(v) for k, v in self.entries.data.items()}

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def parse_value() -> Attribute:
            if (i := parser.parse_optional_integer(allow_boolean=False)) is not None:
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


# ---------------------------------------------------------------------------------------
# mdh.compute
# ---------------------------------------------------------------------------------------

VIEW_KEYS = ("inp_view", "md_hom", "out_view", "boundary")
TYPE_KEYS = ("inp_types", "mda_size", "out_types", "config")
REQUIRED_KEYS = ("inp_view", "md_hom", "out_view", "inp_types", "mda_size", "out_types")


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A whole MDH computation: views, scalar function, one combine operator per dim."""

    name = "mdh.compute"

    inputs = var_operand_def(MemRefType)
    outputs = var_result_def(MemRefType)

    comp_name = prop_def(StringAttr)
    inp_view = prop_def(ArrayAttr)
    md_hom = prop_def(DictionaryAttr)
    out_view = prop_def(ArrayAttr)
    inp_types = prop_def(ArrayAttr)
    mda_size = prop_def(ArrayAttr)
    out_types = prop_def(ArrayAttr)
    boundary = opt_prop_def(ArrayAttr)
    config = opt_prop_def(ConfigAttr)

    ASSEMBLY_KEYS: ClassVar[tuple[tuple[str, ...], ...]] = (VIEW_KEYS, TYPE_KEYS)

    def __init__(
        self,
        comp_name: str,
        inputs: Sequence[SSAValue],
        properties: dict[str, Attribute],
        result_types: Sequence[Attribute],
    ):
        super().__init__(
            operands=[inputs],
            result_types=[result_types],
            properties={"comp_name": StringAttr(comp_name), **properties},
        )

    # --- typed accessors (valid once verified) ---------------------------------------

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(a.value.data for a in self.mda_size.data)  # type: ignore[attr-defined]

    @property
    def rank(self) -> int:
        return len(self.mda_size.data)

    @property
    def input_maps(self) -> list[list[AffineMap]]:
        """Per input buffer, its access maps (a stencil has several)."""
        return [[m.data for m in accesses.data] for accesses in self.inp_view.data]  # type: ignore

    @property
    def output_maps(self) -> list[AffineMap]:
        return [accesses.data[0].data for accesses in self.out_view.data]  # type: ignore

    @property
    def scalar_func(self) -> str:
        ref = self.md_hom.data["scalar_func"]
        assert isinstance(ref, SymbolRefAttr)
        return ref.root_reference.data

    @property
    def combines(self) -> list[Combine]:
        ops = self.md_hom.data["combine_ops"]
        assert isinstance(ops, ArrayAttr)
        return [Combine.from_attr(a) for a in ops.data]

    @property
    def boundaries(self) -> list[str]:
        if self.boundary is None:
            return ["none"] * len(self.inputs)
        return [a.data for a in self.boundary.data]  # type: ignore[attr-defined]

    @property
    def input_element_types(self) -> list[Attribute]:
        return list(self.inp_types.data)

    @property
    def output_element_types(self) -> list[Attribute]:
        return list(self.out_types.data)

    def lookup_func(self, name: str) -> FuncOp | None:
        if self.parent_op() is None:
            return None
        found = SymbolTable.lookup_symbol(self, name)
        return found if isinstance(found, FuncOp) else None

    # --- custom syntax ---------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        comp_name = parser.parse_str_literal(" (the computation's name)")
        props: dict[str, Attribute] = {}
        for allowed in cls.ASSEMBLY_KEYS:
            cls._parse_dictionary(parser, allowed, props)
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand, " in mdh.compute inputs"
        )
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(operands):
            parser.raise_error(
                f"mdh.compute: {len(operands)} inputs but {len(ftype.inputs)} input types",
                at_position=pos,
            )
        inputs = parser.resolve_operands(operands, ftype.inputs.data, parser.pos)
        return cls(comp_name, inputs, props, ftype.outputs.data)

    @classmethod
    def _parse_dictionary(
        cls, parser: Parser, allowed: tuple[str, ...], props: dict[str, Attribute]
    ) -> None:
        """One `{key = value, ...}` of the custom syntax into `props`; errors point at
        the offending key or value, or at the dictionary for a missing key."""
        start = parser.pos
        definitions = cls.get_irdl_definition().properties

        def parse_entry() -> None:
            pos = parser.pos
            key = parser.parse_identifier(" (a key of mdh.compute)")
            if key not in allowed:
                parser.raise_error(
                    f"mdh.compute: unexpected key '{key}' in this dictionary "
                    f"(allowed: {', '.join(allowed)})",
                    at_position=pos,
                )
            if key in props:
                parser.raise_error(f"mdh.compute: key '{key}' is given twice", at_position=pos)
            parser.parse_punctuation("=")
            pos = parser.pos
            value = parser.parse_attribute()
            try:
                definitions[key].constr.verify(value, VerificationContext())
            except VerifyException as e:
                parser.raise_error(f"mdh.compute: {key}: {e}", at_position=pos)
            props[key] = value

        parser.parse_comma_separated_list(parser.Delimiter.BRACES, parse_entry, " in mdh.compute")
        missing = [k for k in allowed if k in REQUIRED_KEYS and k not in props]
        if missing:
            parser.raise_error(f"mdh.compute: missing {', '.join(missing)}", at_position=start)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.comp_name.data)
        props = self.properties
        for keys in self.ASSEMBLY_KEYS:
            printer.print_string(" {")
            present = [k for k in keys if k in props]
            printer.print_list(present, lambda k: _print_entry(printer, k, props[k]))
            printer.print_string("}")
        printer.print_string(" (")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(") : ")
        printer.print_function_type(self.inputs.types, self.outputs.types)

    # --- verification ----------------------------------------------------------------

    def verify_(self) -> None:
        from mdh_ir.dialects.mdh_verify import verify_compute

        verify_compute(self)


def _print_entry(printer: Printer, key: str, value: Attribute) -> None:
    printer.print_string(f"{key} = ")
    if key == "mda_size":
        printer.print_string("[" + ", ".join(str(_attr_to_value(a)) for a in value.data) + "]")  # type: ignore
    else:
        printer.print_attribute(value)


def make_view(maps: Sequence[Sequence[AffineMap]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([AffineMapAttr(m) for m in accesses]) for accesses in maps])


def index_args_allowed(func: FuncOp, num_scalars: int, rank: int) -> bool:
    """A scalar function may take the point's indices as `rank` trailing index args."""
    inputs = func.function_type.inputs.data
    return len(inputs) == num_scalars + rank and all(
        isinstance(t, IndexType) for t in inputs[num_scalars:]
    )


MDH = Dialect("mdh", [ComputeOp], [ConfigAttr])
