"""`mdh-default-config`: give every `mdh.compute` a complete tuning configuration.

An op without `config` gets the default of `mdh_ir.schedule.default_config` for the device class
(`device=cpu` or `device=gpu`); an op with a partial `config` keeps the keys it has, and
the missing ones are chosen to fit them (`complete_config`). Nothing is measured.

    mdh-opt -p 'mdh-default-config{device=gpu}' f.mlir
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mdh_ir.schedule.default_config import complete_config
from mdh_ir.device import PRESETS
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError


@dataclass(frozen=True)
class MDHDefaultConfig(ModulePass):
    name = "mdh-default-config"

    device: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.device not in PRESETS:
            raise MDHError(f"mdh-default-config: unknown device class '{self.device}' (cpu, gpu)")
        for compute in op.walk():
            if isinstance(compute, ComputeOp):
                compute.config = complete_config(compute, PRESETS[self.device]).to_attr()
