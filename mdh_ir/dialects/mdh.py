"""The high-level `mdh` dialect: one op, `mdh.compute`, holding a whole MDH computation.

Syntax (the MDH MLIR interface of the seed papers):

    %w = mdh.compute "mdh_matvec"
      { inp_view = [ [ affine_map<(i,k) -> (i,k)> ], [ affine_map<(i,k) -> (k)> ] ],
        md_hom   = { scalar_func = @mul, combine_ops = [ "cc", ["pw", @add] ] },
        out_view = [ [ affine_map<(i,k) -> (i)> ] ] }
      { inp_types = [ f32, f32 ], mda_size = [ 128, 64 ], out_types = [ f32 ] }
      (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>

The first dictionary may also hold `boundary = ["none", "clamp", ...]` (one entry per
input buffer) and an `epilogue` (below), the second `config = #mdh.config<...>` (the
tuning configuration) and `precision = "tf32"` (below).

Input element types may also be `f16` and `bf16` (storage only): each element is read
as the f32 of the same value, which the scalar function takes (`mdh_attrs.read_type`);
outputs are f32, f64, i32 or i64. `precision` says what f32 inputs are read as: `"ieee"`
(the default) as they are, `"tf32"` rounded to TF32 (10 mantissa bits, round to nearest
even) first, as tensor cores read them; only the user asks for it, never a
configuration.

An epilogue (what `mdh-fuse` makes of a point-wise consumer) is a scalar function
applied to each final output value, after every combine:

    epilogue = { func = @bias_relu, inp_view = [ [ affine_map<(i,j,k) -> (j)> ] ],
                 boundary = ["none"] }

`inp_view` gives, per extra input buffer, its access maps over the op's dimensions
(kept dimensions only: a `pw` dimension has no value at an output point); `boundary` is
optional. The extra buffers are the op's last operands, after the md_hom's inputs
(`epilogue_inputs`); the function takes the output values, then one value per access,
and returns the final output values.

A prologue (what `mdh-fuse` makes of a point-wise producer) applies a scalar function
to input reads before the scalar function sees them:

    prologue = [ { func = @scale, inputs = [0, 1] } ]

Each entry groups md_hom inputs (each with the same number n of accesses, each
input in at most one group); at every point, for each access a < n, the function is
applied to the group's reads of access a (in the group's order) and its one result is
the scalar function's argument. The scalar function's arguments are, input by input,
the accesses of an input outside every group, and a group's n results at the place
of its first input (`mdh_attrs.scalar_arguments`). Promotion into local or private memory
copies the raw inputs; the function runs where the scalar function reads them.
Row statistics (what `mdh-fuse` makes of reductions whose results a later op reads
along the rows they reduce: a row softmax) are computed before the md_hom, in order:

    stats = [ { func = @id, combine_ops = ["cc", ["pw", "max"]], inp_view = [[(i,j) -> (i,j)]] },
              { func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = [[(i,j) -> (i,j)]] } ]

Entry k is a reduction over the op's dimensions (no `ps`; its `pw` dimensions are its
rows, its `cc` ones are kept) of its own input buffers (the op's operands after the
md_hom's inputs, in entry order; `boundary` optional): at every point x its function
takes the values of entries 0..k-1 at x's coordinates along their kept dimensions,
then one value per access of its inputs, and returns the values it combines. The
md_hom's scalar function takes every entry's values at x first, then its accesses.
Every point of the op reads each statistic complete: the lowering runs the entries and
the md_hom as phases of one kernel whose work-groups hold whole rows (rule `rows`).
Its attributes' vocabulary is in `mdh_attrs` (element types, combine operators, boundary
modes) and `mdh_config` (`#mdh.config`); the verification rules in `mdh_verify`.
Semantics: see `mdh_ir.semantics.reference`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DictionaryAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Dialect, SSAValue, SSAValues
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    VerificationContext,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from mdh_ir.dialects.mdh_attrs import Combine, read_type, scalar_arguments
from mdh_ir.dialects.mdh_config import ConfigAttr
from mdh_ir.dialects.mdh_verify import verify_compute

VIEW_KEYS = ("inp_view", "md_hom", "out_view", "boundary", "epilogue", "prologue", "stats")
TYPE_KEYS = ("inp_types", "mda_size", "out_types", "config", "precision", "kernel_group")
REQUIRED_KEYS = ("inp_view", "md_hom", "out_view", "inp_types", "mda_size", "out_types")


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A whole MDH computation: views, scalar function, one combine operator per dim."""

    name = "mdh.compute"

    buffers = var_operand_def(MemRefType)
    """The md_hom's inputs, then the epilogue's (`inputs`, `epilogue_inputs`)."""
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
    precision = opt_prop_def(StringAttr)
    epilogue = opt_prop_def(DictionaryAttr)
    prologue = opt_prop_def(ArrayAttr)
    stats = opt_prop_def(ArrayAttr)
    kernel_group = opt_prop_def(StringAttr)

    ASSEMBLY_KEYS: ClassVar[tuple[tuple[str, ...], ...]] = (VIEW_KEYS, TYPE_KEYS)

    def __init__(
        self,
        comp_name: str,
        inputs: Sequence[SSAValue],
        properties: dict[str, Attribute],
        result_types: Sequence[Attribute],
        epilogue_inputs: Sequence[SSAValue] = (),
        stats_inputs: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[[*inputs, *stats_inputs, *epilogue_inputs]],
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
    def input_read_types(self) -> list[Attribute]:
        """Per input buffer, the type its elements are read as (`read_type`)."""
        return [read_type(t) for t in self.inp_types.data]

    @property
    def input_precision(self) -> str:
        """What f32 inputs are read as: "ieee" (the default) or "tf32"."""
        return self.precision.data if self.precision is not None else "ieee"

    @property
    def output_element_types(self) -> list[Attribute]:
        return list(self.out_types.data)

    @property
    def inputs(self) -> SSAValues:
        """The md_hom's input buffers."""
        return SSAValues(self.buffers[: len(self.buffers) - epilogue_count(self.epilogue) - stats_count(self.stats)])

    @property
    def stats_inputs(self) -> SSAValues:
        """The row statistics' input buffers (none without `stats`)."""
        end = len(self.buffers) - epilogue_count(self.epilogue)
        return SSAValues(self.buffers[end - stats_count(self.stats) : end])

    @property
    def epilogue_inputs(self) -> SSAValues:
        """The epilogue's input buffers (none without an epilogue)."""
        return SSAValues(self.buffers[len(self.buffers) - epilogue_count(self.epilogue) :])

    @property
    def row_stats(self) -> list[RowStat]:
        """The row statistics, in order (valid once verified; none without `stats`)."""
        if self.stats is None:
            return []
        result, buffers = [], list(self.stats_inputs)
        for entry in self.stats.data:
            d = entry.data  # type: ignore[attr-defined]
            maps = [[m.data for m in accesses.data] for accesses in d["inp_view"].data]
            bounds = [b.data for b in d["boundary"].data] if "boundary" in d else ["none"] * len(maps)
            result.append(RowStat(
                d["func"].root_reference.data, [Combine.from_attr(c) for c in d["combine_ops"].data],
                maps, bounds, buffers[: len(maps)],
            ))  # fmt: skip
            buffers = buffers[len(maps) :]
        return result

    @property
    def stat_dims(self) -> list[int]:
        """The dimensions a row statistic reduces (rule `rows`), in order."""
        return sorted({d for s in self.row_stats for d, c in enumerate(s.combines) if c.kind == "pw"})

    @property
    def epilogue_func(self) -> str | None:
        """The epilogue's function, or None without an epilogue."""
        if self.epilogue is None:
            return None
        ref = self.epilogue.data["func"]
        assert isinstance(ref, SymbolRefAttr)
        return ref.root_reference.data

    @property
    def epilogue_maps(self) -> list[list[AffineMap]]:
        """Per epilogue input buffer, its access maps (none without an epilogue)."""
        if self.epilogue is None:
            return []
        return [[m.data for m in accesses.data] for accesses in self.epilogue.data["inp_view"].data]  # type: ignore

    @property
    def epilogue_boundaries(self) -> list[str]:
        bounds = self.epilogue.data.get("boundary") if self.epilogue is not None else None
        if bounds is None:
            return ["none"] * len(self.epilogue_inputs)
        return [a.data for a in bounds.data]  # type: ignore[attr-defined]

    @property
    def prologues(self) -> list[tuple[str, list[int]]]:
        """Per prologue entry, its function and the md_hom inputs it reads (valid once
        verified; none without a prologue)."""
        if self.prologue is None:
            return []
        return [
            (e.data["func"].root_reference.data, [i.value.data for i in e.data["inputs"].data])  # type: ignore
            for e in self.prologue.data
        ]

    @property
    def scalar_arity(self) -> int:
        """The scalar function's arguments before any index arguments: one per input
        access, a prologue group's accesses counting once per access index."""
        stats = sum(len(self.lookup_func(s.func).function_type.outputs) for s in self.row_stats)  # type: ignore[union-attr]
        return stats + len(scalar_arguments(self.prologues, [[0] * len(maps) for maps in self.input_maps], lambda f, a: 0))

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
        values = parser.resolve_operands(operands, ftype.inputs.data, parser.pos)
        extra, stats = epilogue_count(props.get("epilogue")), stats_count(props.get("stats"))
        if extra + stats > len(values):
            parser.raise_error(
                f"mdh.compute: the epilogue and row statistics read {extra + stats} buffers but the op has {len(values)} operands",
                at_position=pos,
            )
        split, first = len(values) - extra, len(values) - extra - stats
        return cls(comp_name, values[:first], props, ftype.outputs.data, values[split:], values[first:split])

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
        operands = list(self.buffers)
        printer.print_list(operands, printer.print_operand)
        printer.print_string(") : ")
        printer.print_function_type([o.type for o in operands], self.outputs.types)

    # --- verification ----------------------------------------------------------------

    def verify_(self) -> None:
        verify_compute(self)


def _print_entry(printer: Printer, key: str, value: Attribute) -> None:
    printer.print_string(f"{key} = ")
    if key == "mda_size":
        printer.print_string("[" + ", ".join(str(a.value.data) for a in value.data) + "]")  # type: ignore
    else:
        printer.print_attribute(value)


def epilogue_count(epilogue: Attribute | None) -> int:
    """The number of buffers an `epilogue` attribute reads (its `inp_view` entries)."""
    if not isinstance(epilogue, DictionaryAttr):
        return 0
    view = epilogue.data.get("inp_view")
    return len(view.data) if isinstance(view, ArrayAttr) else 0


def stats_count(stats: Attribute | None) -> int:
    """The number of buffers a `stats` attribute reads (its entries' `inp_view` entries)."""
    if not isinstance(stats, ArrayAttr):
        return 0
    views = [e.data.get("inp_view") for e in stats.data if isinstance(e, DictionaryAttr)]
    return sum(len(v.data) for v in views if isinstance(v, ArrayAttr))


@dataclass
class RowStat:
    """One entry of `stats`: its function, combine operators, views, boundary modes and
    buffers."""

    func: str
    combines: list[Combine]
    maps: list[list[AffineMap]]
    boundaries: list[str]
    buffers: list[SSAValue]

    @property
    def kept(self) -> list[int]:
        return [d for d, c in enumerate(self.combines) if c.kind != "pw"]


def make_view(maps: Sequence[Sequence[AffineMap]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([AffineMapAttr(m) for m in accesses]) for accesses in maps])


MDH = Dialect("mdh", [ComputeOp], [ConfigAttr])
