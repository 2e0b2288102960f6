"""The `mdh.compute` an op was lowered from, carried as an attribute.

`mdh-tile` stores the op's properties (views, combine operators, sizes, configuration)
on the work-group `par_for`, and `mdh-assign-asm` moves them to the kernel, so later
passes can re-derive every static fact (`mdh_ir.schedule.tiling.TilePlan`) of the computation.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation

from mdh_ir.schedule.config import Config
from mdh_ir.dialects.mdh import ComputeOp, epilogue_count
from mdh_ir.schedule.tiling import TilePlan

COMPUTE_ATTR = "mdh.compute"


def carry(holder: Operation, op: ComputeOp) -> None:
    holder.attributes[COMPUTE_ATTR] = DictionaryAttr(dict(op.properties))


def carried(holder: Operation, buffer_types: Sequence[Attribute]) -> TilePlan:
    """The plan of the computation `holder` carries; `buffer_types`: inputs, outputs,
    epilogue inputs, ..."""
    props = dict(holder.attributes[COMPUTE_ATTR].data)  # type: ignore[attr-defined]
    name = props.pop("comp_name")
    assert isinstance(name, StringAttr)
    inputs = len(props["inp_types"].data)  # type: ignore[attr-defined]
    outputs = len(props["out_types"].data)  # type: ignore[attr-defined]
    extra = epilogue_count(props.get("epilogue"))
    first_extra = inputs + outputs
    block = Block(arg_types=[*buffer_types[:inputs], *buffer_types[first_extra : first_extra + extra]])
    op = ComputeOp(
        name.data, block.args[:inputs], props, buffer_types[inputs:first_extra], block.args[inputs:]
    )
    return TilePlan(op, Config.of(op), holder)
