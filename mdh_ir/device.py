"""What the lowering and the tuner need to know about an OpenCL device."""

from __future__ import annotations

from dataclasses import dataclass


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
    """Elements of private memory a work-item may use (caches + accumulators)."""
    platform: str = ""
    driver: str = ""
    global_mem: int = 0
    """Bytes of global memory (inputs, outputs and temporaries together); 0: unknown."""

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
        )

    @property
    def fences_across_groups(self) -> bool:
        """Whether `lowlevel.fence` orders memory for every work-group, as
        `wg_combine = "last"` needs: NVIDIA's OpenCL (PTX `membar.gl`) and PoCL
        (work-groups are threads of one coherent CPU; `atomic_inc` is a sequentially
        consistent read-modify-write). OpenCL 1.2 orders only within a work-group."""
        return any(p in self.platform for p in ("NVIDIA", "Portable Computing Language"))

    @property
    def key(self) -> str:
        """Identifies the device in the tuning database."""
        return f"{self.platform}|{self.name}|{self.driver}"


PRESETS = {
    "cpu": DeviceInfo(
        "cpu", "generic CPU", 4096, (4096, 4096, 4096), 512 * 1024, 2, 16384,
        platform="Portable Computing Language", global_mem=16 * 2**30,
    ),
    "gpu": DeviceInfo(
        "gpu", "generic GPU", 1024, (1024, 1024, 64), 48 * 1024, 132, 512,
        platform="NVIDIA CUDA", global_mem=80 * 2**30,
    ),
}  # fmt: skip
"""Device classes for lowering without a device at hand (`mdh-opt`): PoCL on a CPU, and
an NVIDIA (H100-class: 132 compute units, 80 GiB of global memory) GPU; 16 GiB of host
memory for the CPU class."""
