"""`mdh-check-config`: refuse a configuration that breaks a rule of `mdh_ir.schedule.constraints`.

Runs before anything is generated, so an invalid configuration never reaches an OpenCL
compiler. Device limits are those of the device class's preset (`device=cpu|gpu`,
`mdh_ir.device.PRESETS`), which a message about a limit names; the runtime checks
against the real device instead (`mdh_ir.runtime.device_info`). The error names the rule:

    error: mdh.compute "matvec": configuration breaks rule 'tile-sizes': dim 1: ...
    error: mdh.compute "mv": configuration breaks rule 'local-memory': 1048576 bytes >
           device limit 524288 (preset cpu)
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mdh_ir.schedule.config import Config, ConfigError
from mdh_ir.schedule.constraints import violations
from mdh_ir.device import PRESETS
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.errors import MDHError


@dataclass(frozen=True)
class MDHCheckConfig(ModulePass):
    name = "mdh-check-config"

    device: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.device not in PRESETS:
            raise MDHError(f"mdh-check-config: unknown device class '{self.device}' (cpu, gpu)")
        for compute in op.walk():
            if not isinstance(compute, ComputeOp):
                continue
            label = f'mdh.compute "{compute.comp_name.data}"'
            try:
                cfg = Config.of(compute)
            except ConfigError as e:
                raise MDHError(f"{label}: {e}", compute) from None
            found = violations(compute, cfg, PRESETS[self.device])
            if found:
                raise MDHError(f"{label}: {found[0]}", compute)
