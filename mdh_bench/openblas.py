"""What numpy's OpenBLAS is and does on this CPU, and the numpy peer under another
`OPENBLAS_CORETYPE`.

OpenBLAS built with DYNAMIC_ARCH picks its kernels for the CPU at load time; the
environment variable `OPENBLAS_CORETYPE` forces a core type, and only takes effect when
the library is loaded, hence the subprocess: `python -m mdh_bench.openblas CASE_JSON
REPEATS` prints the numpy peer's measurement of one case (JSON).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from mdh_bench.case_data import case_data
from mdh_bench.cases import Case
from mdh_bench.measure import Measurement, interleave
from mdh_bench.numpy_peer import numpy_peer

AVX512_CORETYPE = "SkylakeX"


@dataclass(frozen=True)
class OpenBLAS:
    config: str
    """`openblas_get_config()`: version, build options and the core type in use."""
    core: str
    """The core type whose kernels it uses now."""
    threads: int
    library: str

    def describe(self) -> str:
        return f"{self.config} — core type in use: {self.core}, {self.threads} threads ({self.library})"


def _loaded_openblas() -> Path | None:
    """The OpenBLAS shared library numpy loaded into this process."""
    import numpy  # noqa: F401 - loads the library

    for line in Path("/proc/self/maps").read_text().splitlines():
        path = line.split()[-1]
        if "openblas" in Path(path).name.lower() and ".so" in path:
            return Path(path)
    return None


def _call(lib, names: list[str], restype):
    """The first of `names` the library exports, called without arguments."""
    for name in names:
        if hasattr(lib, name):
            f = getattr(lib, name)
            f.restype = restype
            return f()
    return None


def openblas_info() -> OpenBLAS | None:
    """numpy's OpenBLAS, or None if numpy does not use OpenBLAS."""
    path = _loaded_openblas()
    if path is None:
        return None
    lib = ctypes.CDLL(str(path))
    prefixes = ["scipy_openblas_", "openblas_"]
    suffixes = ["64_", ""]
    names = lambda what: [p + what + s for p in prefixes for s in suffixes]  # noqa: E731
    config = (_call(lib, names("get_config"), ctypes.c_char_p) or b"").decode()
    core = (_call(lib, names("get_corename"), ctypes.c_char_p) or b"?").decode()
    threads = _call(lib, names("get_num_threads"), ctypes.c_int) or 0
    return OpenBLAS(config.strip(), core, threads, path.name)


def avx512_problem(info: OpenBLAS | None) -> str | None:
    """Why the numpy peer cannot also be measured with the AVX-512 kernels, or None."""
    if info is None:
        return "numpy does not use OpenBLAS"
    if "DYNAMIC_ARCH" not in info.config:
        return f"numpy's OpenBLAS is built for one core only ({info.config})"
    if info.core.lower() == AVX512_CORETYPE.lower():
        return f"OpenBLAS already uses its {AVX512_CORETYPE} kernels"
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if " avx512f" not in flags:
        return f"the CPU has no AVX-512 (OpenBLAS uses its {info.core} kernels)"
    return None


def numpy_with_coretype(case: Case, repeats: int, coretype: str) -> Measurement:
    """The numpy peer's measurement of `case` in a subprocess with `OPENBLAS_CORETYPE`."""
    env = {**os.environ, "OPENBLAS_CORETYPE": coretype}
    args = [sys.executable, "-m", "mdh_bench.openblas", json.dumps(asdict(case)), str(repeats)]
    root = Path(__file__).parent.parent
    done = subprocess.run(args, env=env, cwd=root, capture_output=True, text=True, timeout=3600)
    if done.returncode < 0:
        raise RuntimeError(f"the subprocess died of {signal.Signals(-done.returncode).name}")
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return Measurement(**json.loads(done.stdout.splitlines()[-1]))


def _main(case_json: str, repeats: str) -> None:
    data = case_data(Case(**json.loads(case_json)))
    (measurement,) = interleave([numpy_peer(data)], int(repeats), idle=True)
    print(json.dumps(asdict(measurement)))


if __name__ == "__main__":
    _main(*sys.argv[1:])
