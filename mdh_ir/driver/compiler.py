"""The compile driver: a module of one or several `mdh.compute` ops -> the configuration
of each (`choose`) -> the lowering passes -> OpenCL source -> a runtime program.

    compiled = compile_module(module, device="cpu")     # choose, lower, check, build once
    (w,) = compiled(M, v)                                # numpy in, numpy out
    outputs, seconds = compiled.run([M, v], repeats=20)  # times (`mdh_ir.runtime`)
    compiled.module, compiled.lowered, compiled.source   # every level, `compiled.asm`
    compiled.choices                                     # each op's configuration, origin
    compile_module(module, "cpu", stopwatch=watch)       # watch.seconds: lower, print, build

Each op's configuration is checked against the device's model (`device_info`) before
anything is built: a broken rule raises `MDHError` naming it. The ops of one function
run as one program, their kernels launched in the order of the ops.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import violations
from mdh_ir.database.store import Database
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.driver.choose import Choice, choose_config
from mdh_ir.emit_opencl import opencl_source
from mdh_ir.errors import MDHError
from mdh_ir.passes.bufferize import MDHBufferize
from mdh_ir.passes.fuse import MDHFuse
from mdh_ir.passes.lower_to_opencl import lowering
from mdh_ir.runtime.devices import device_info, select_device
from mdh_ir.runtime.inputs import DeviceInputs
from mdh_ir.runtime.program import Program
from mdh_ir.runtime.timing import Stopwatch

Configs = Config | Sequence[Config | None] | None
"""A configuration for a module of one op, or one (or None) per op, in module order."""


def compute_ops(module: ModuleOp) -> list[ComputeOp]:
    return [op for op in module.walk() if isinstance(op, ComputeOp)]


def configure(
    module: ModuleOp, info: DeviceInfo, configs: Configs = None, database: Database | None = None,
    fuse: bool = False,
) -> tuple[ModuleOp, list[Choice]]:
    """A copy of `module`, its host functions of buffers (`mdh-bufferize`), with `fuse`
    its point-wise consumers fused into their producers (`mdh-fuse`; `configs` then
    count the fused ops), whose every op carries its configuration, chosen and completed
    for `info` (`choose_config`) and checked against it, and the choices."""
    check_arguments(module, configs)
    configured = module.clone()
    MDHBufferize().apply(Context(), configured)
    if fuse:
        MDHFuse().apply(Context(), configured)
    ops = compute_ops(configured)
    if not ops:
        raise ValueError("the module holds no mdh.compute")
    given = list(configs) if isinstance(configs, Sequence) else [configs] * len(ops)
    if len(given) != len(ops):
        raise ValueError(f"{len(given)} configurations for {len(ops)} mdh.compute ops")
    choices = []
    for op, config in zip(ops, given):
        choice = choose_config(op, info, config, database)
        found = violations(op, choice.config, info)
        if found:
            raise MDHError(f'mdh.compute "{op.comp_name.data}": {found[0]}', op)
        choices.append(choice)
    return configured, choices


def check_arguments(module, configs) -> None:
    """Refuse a module or configurations of the wrong kind (`MDHError` naming the
    argument and what it must be)."""
    if not isinstance(module, ModuleOp):
        raise MDHError(
            f"module: expected an xDSL ModuleOp (text is parsed first: mdh_ir.tools.diagnostics."
            f"load_module), got {type(module).__name__}"
        )
    given = list(configs) if isinstance(configs, Sequence) and not isinstance(configs, str) else [configs]
    for config in given:
        if config is not None and not isinstance(config, Config):
            raise MDHError(
                f"config: expected a mdh_ir.schedule.config.Config (such as default_config(op, "
                f"info).with_(num_wg=...)), one per mdh.compute or None, got {type(config).__name__}"
            )


def lower_configured(configured: ModuleOp, info: DeviceInfo) -> ModuleOp:
    """A lowered copy of a configured module (`configure`), verified as `mdh-opt
    --lower-to-opencl` verifies it."""
    lowered = configured.clone()
    ctx = Context()
    for p in lowering(info.kind, info.tensor_cores, info.tf32_conversion, info.async_copies):
        p.apply(ctx, lowered)
    lowered.verify()
    return lowered


def lower(module: ModuleOp, info: DeviceInfo, config: Configs = None) -> ModuleOp:
    """A lowered copy of `module`, configured for `info` (`configure`)."""
    return lower_configured(configure(module, info, config)[0], info)


def check_device(device) -> None:
    """Refuse a device that is neither a `select_device` spec nor a pyopencl device."""
    import pyopencl as cl

    if device is not None and not isinstance(device, str | cl.Device):
        raise MDHError(f"device: expected 'cpu', 'gpu', 'PLATFORM:DEVICE' or a pyopencl Device, got {type(device).__name__}")


class Compiled:
    """A module compiled for one device, every level kept: `module` (the `mdh` module,
    every op carrying its configuration), `choices` (each op's configuration and its
    origin), `lowered` (the low-level IR), `source` (the OpenCL program) and `program`
    (the runtime's, built). A `stopwatch` counts the phases' wall time: `lower`
    (configuring and the passes), `print` (the OpenCL source) and `build` (the OpenCL
    compiler), also of a compilation that fails."""

    def __init__(
        self,
        module: ModuleOp,
        device=None,
        configs: Configs = None,
        database: Database | None = None,
        stopwatch: Stopwatch | None = None,
        fuse: bool = False,
    ):
        watch = stopwatch or Stopwatch()
        check_device(device)
        self.device = device if device is not None and not isinstance(device, str) else select_device(device)
        self.info = device_info(self.device)
        with watch.phase("lower"):
            self.module, self.choices = configure(module, self.info, configs, database, fuse)
            self.lowered = lower_configured(self.module, self.info)
        with watch.phase("print"):
            self.source = opencl_source(self.lowered)
        with watch.phase("build"):
            self.program = Program(self.lowered, self.source, self.device)

    @property
    def ops(self) -> list[ComputeOp]:
        return compute_ops(self.module)

    @property
    def op(self) -> ComputeOp:
        """The op of a module of one."""
        (op,) = self.ops
        return op

    @property
    def config(self) -> Config:
        """The configuration of a module of one op."""
        (choice,) = self.choices
        return choice.config

    @property
    def asm(self) -> dict[str, str]:
        """Each level as text: `mdh`, `lowlevel`, `opencl`."""
        return {"mdh": str(self.module), "lowlevel": str(self.lowered), "opencl": self.source}

    def kernel_names(self) -> list[str]:
        return self.program.kernel_names()

    def __call__(self, *inputs: np.ndarray) -> list[np.ndarray]:
        return self.program(*inputs)

    def upload(self, inputs: list[np.ndarray]) -> DeviceInputs:
        return self.program.upload(inputs)

    def run(self, inputs: list | DeviceInputs, *args, **kwargs) -> tuple[list, list[float]]:
        """`Program.run` of the runtime (its arguments): outputs (or their buffers) and,
        per repeat, seconds."""
        return self.program.run(inputs, *args, **kwargs)


def compile_module(
    module: ModuleOp,
    device=None,
    config: Configs = None,
    database: Database | None = None,
    stopwatch: Stopwatch | None = None,
    fuse: bool = False,
) -> Compiled:
    """`module` compiled for `device` (a pyopencl device or a `select_device` spec);
    `database`: the tuning database to consult (by default `$MDH_TUNING_DB`'s file);
    `stopwatch`: counts the time of each phase (`Compiled`); `fuse`: run `mdh-fuse`
    first (opt-in)."""
    return Compiled(module, device, config, database, stopwatch, fuse)
