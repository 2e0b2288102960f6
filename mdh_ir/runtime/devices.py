"""OpenCL devices and their contexts.

The device is chosen by argument or by `MDH_DEVICE`: `cpu` (the default: the first CPU
device, PoCL; simulators such as Oclgrind are only used when named), `gpu`, or
`PLATFORM:DEVICE` where each part is an index or a substring of the name. Its model
(`device_info`: the limits it reports, lowered where `MDH_DEVICE_LIMITS` names them) is
what every configuration is checked against.
"""

from __future__ import annotations

import os
from functools import cache

from mdh_ir.device import DeviceInfo


class DeviceError(Exception):
    """No OpenCL device matches the request."""


def _match(items, key: str, name) -> list:
    if key.isdigit():
        return [items[int(key)]] if int(key) < len(items) else []
    return [x for x in items if key.lower() in name(x).lower()]


@cache
def select_device(spec: str | None = None):
    """The pyopencl device for `spec` (see the module docstring)."""
    import pyopencl as cl

    spec = spec or os.environ.get("MDH_DEVICE") or "cpu"
    platforms = cl.get_platforms()
    devices = [d for p in platforms for d in p.get_devices()]
    if spec in ("cpu", "gpu"):
        wanted = cl.device_type.CPU if spec == "cpu" else cl.device_type.GPU
        found = [d for d in devices if d.type & wanted and "Oclgrind" not in d.platform.name]
    else:
        plat, colon, dev = spec.partition(":")
        if not plat.strip() or (colon and not dev.strip()):
            raise DeviceError(f"device '{spec}': expected cpu, gpu or PLATFORM:DEVICE, each part an index or part of a name")
        found = [
            d for p in _match(platforms, plat, lambda p: p.name)
            for d in _match(p.get_devices(), dev or "0", lambda d: d.name)
        ]  # fmt: skip
    if not found:
        available = "; ".join(f"{d.platform.name}: {d.name}" for d in devices) or "none"
        raise DeviceError(f"no OpenCL device matches '{spec}' (available: {available})")
    return found[0]


def device_info(device=None) -> DeviceInfo:
    """The model of `device` (a pyopencl device, or a `select_device` spec) that every
    configuration is checked against: the limits the device reports, each lowered to
    the value `$MDH_DEVICE_LIMITS` gives it (`DeviceInfo.limited`)."""
    if device is None or isinstance(device, str):
        device = select_device(device)
    limits = os.environ.get("MDH_DEVICE_LIMITS", "")
    try:
        return DeviceInfo.from_cl(device).limited(limits)
    except ValueError as e:
        raise DeviceError(f"MDH_DEVICE_LIMITS: {e}") from None


def open_device(spec: str | None = None) -> None:
    """Open `spec`'s device (`select_device`) now: its OpenCL context and queue, which
    every program on it then shares (NVIDIA's driver took 0.9 s to open an H100)."""
    _context(select_device(spec))


@cache
def _context(device):
    import pyopencl as cl

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    return ctx, queue
