"""What the lowering and the tuner need to know about an OpenCL device: its model.

A tool with a device (`mdh-run`, `mdh-tune`, `compile_module`) takes the model from the
device (`DeviceInfo.from_cl`): the limits it reports. Without one (`mdh-opt`), a named
preset (`PRESETS`) stands in, and diagnostics say which (`device limit 524288 (preset
cpu)`). `DeviceInfo.limited` lowers a device's limits, so that configurations also fit a
smaller device of its kind (the runtime applies `$MDH_DEVICE_LIMITS`, e.g.
`local_mem=262144,max_wg_size=1024`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class DeviceInfo:
    kind: str
    """"cpu" or "gpu": the device class the default configuration is made for."""
    name: str
    max_wg_size: int
    max_wi_sizes: tuple[int, int, int]
    local_mem: int
    """Bytes of local memory a work-group may use."""
    compute_units: int
    private_elems: int
    """Elements of private memory a work-item may use (caches + accumulators): the budget
    of the device class, since OpenCL reports no private memory size."""
    platform: str = ""
    driver: str = ""
    global_mem: int = 0
    """Bytes of global memory (inputs, outputs and temporaries together); 0: unknown."""
    preset: str = ""
    """The preset's name (`PRESETS`), for a model that stands in for a device."""
    lowered: str = ""
    """The limits `limited` lowered (`local_mem=262144`), "" for the device's own."""
    compute_capability: tuple[int, int] = (0, 0)
    """NVIDIA's compute capability (major, minor), read through the OpenCL extension
    `cl_nv_device_attribute_query`; (0, 0) on other devices (PoCL)."""

    @staticmethod
    def from_cl(device) -> DeviceInfo:
        import pyopencl as cl

        gpu = bool(device.type & cl.device_type.GPU)
        return DeviceInfo(
            kind="gpu" if gpu else "cpu",
            name=device.name.strip(),
            max_wg_size=device.max_work_group_size,
            max_wi_sizes=tuple(device.max_work_item_sizes[:3]),  # type: ignore[arg-type]
            local_mem=device.local_mem_size,
            compute_units=device.max_compute_units,
            private_elems=PRESETS["gpu" if gpu else "cpu"].private_elems,
            platform=device.platform.name.strip(),
            driver=device.driver_version.strip(),
            global_mem=device.global_mem_size,
            compute_capability=nvidia_compute_capability(device),
        )

    def limited(self, text: str) -> DeviceInfo:
        """This model with each limit named in `text` (`name=value,...`, names of
        `LIMITS`) lowered to that value. A limit is never raised: a model above the
        device would accept configurations that the device refuses."""
        lowered: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            m = re.fullmatch(r"(\w+)\s*=\s*(\d+)", part)
            if m is None or m.group(1) not in LIMITS:
                names = ", ".join(LIMITS)
                raise ValueError(f"device limit '{part}': expected NAME=NUMBER, NAME one of {names}")
            name, value = m.group(1), int(m.group(2))
            if value < getattr(self, name):
                lowered[name] = value
        if not lowered:
            return self
        wi_sizes = tuple(min(n, lowered.get("max_wg_size", n)) for n in self.max_wi_sizes)
        text = ",".join(f"{k}={v}" for k, v in sorted(lowered.items()))
        return replace(self, **lowered, max_wi_sizes=wi_sizes, lowered=text)  # type: ignore[arg-type]

    @property
    def model(self) -> str:
        """Where the limits come from, as diagnostics name it: `preset cpu`, or the
        device's name (and the limits `limited` lowered)."""
        if self.preset:
            return f"preset {self.preset}"
        return f"{self.name}, limited to {self.lowered}" if self.lowered else self.name

    @property
    def fences_across_groups(self) -> bool:
        """Whether `lowlevel.fence` orders memory for every work-group, as
        `wg_combine = "last"` needs: NVIDIA's OpenCL (PTX `membar.gl`) and PoCL
        (work-groups are threads of one coherent CPU; `atomic_inc` is a sequentially
        consistent read-modify-write). OpenCL 1.2 orders only within a work-group."""
        return any(p in self.platform for p in ("NVIDIA", "Portable Computing Language"))

    @property
    def tensor_cores(self) -> bool:
        """Whether the device has the tensor cores a warp-level `mma.sync` lowering needs:
        TF32 m16n8k8 and FP16/BF16 m16n8k16 with f32 accumulators, NVIDIA's compute
        capability 8.0 (A100) and later. PoCL never has them."""
        return self.compute_capability >= (8, 0)

    @property
    def async_copies(self) -> bool:
        """Whether the device copies from global to local memory asynchronously, PTX
        `cp.async` (`prefetch = 3`): NVIDIA's compute capability 8.0 and later."""
        return self.compute_capability >= (8, 0)

    @property
    def tf32_conversion(self) -> bool:
        """Whether the device rounds f32 to TF32 as `lowlevel.round_tf32` does (to
        nearest, ties to even) in one instruction, PTX `cvt.rn.tf32.f32`: NVIDIA's
        compute capability 9.0 (H100) and later (8.x has only `cvt.rna`, ties away
        from zero)."""
        return self.compute_capability >= (9, 0)

    @property
    def key(self) -> str:
        """Identifies the device in the tuning database; a model with lowered limits has
        its own results (the device's may not fit it)."""
        key = f"{self.platform}|{self.name}|{self.driver}"
        return f"{key}|{self.lowered}" if self.lowered else key


CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV = 0x4000
CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV = 0x4001


def nvidia_compute_capability(device) -> tuple[int, int]:
    """The compute capability of a pyopencl `device` whose extensions list
    `cl_nv_device_attribute_query` (NVIDIA's OpenCL), (0, 0) for any other."""
    if "cl_nv_device_attribute_query" not in device.extensions.split():
        return (0, 0)
    return (
        device.get_info(CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV),
        device.get_info(CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV),
    )


LIMITS = ("max_wg_size", "local_mem", "private_elems", "global_mem")
"""The limits `DeviceInfo.limited` can lower."""


PRESETS = {
    "cpu": DeviceInfo(
        "cpu", "generic CPU", 4096, (4096, 4096, 4096), 512 * 1024, 2, 16384,
        platform="Portable Computing Language", global_mem=16 * 2**30, preset="cpu",
    ),
    "gpu": DeviceInfo(
        "gpu", "generic GPU", 1024, (1024, 1024, 64), 48 * 1024, 132, 512,
        platform="NVIDIA CUDA", global_mem=80 * 2**30, preset="gpu", compute_capability=(9, 0),
    ),
}  # fmt: skip
"""Device classes for lowering without a device at hand (`mdh-opt`): PoCL on a CPU, and
an NVIDIA (H100-class: 132 compute units, 80 GiB of global memory, compute capability
9.0, with tensor cores) GPU; 16 GiB of host memory for the CPU class."""
