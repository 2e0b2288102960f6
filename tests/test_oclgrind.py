"""Generated-code safety: every catalog computation runs under Oclgrind with its checks on.

Each computation of `mdh_ir.catalog` runs at its small size on the Oclgrind simulator
with its default configuration (of the CPU class, as for this device, and of the GPU
class: work-items combining in local memory, barriers) and with `RANDOM_CONFIGS` random
legal configurations of the tuning space (`mdh_ir.tuning.space.sample_config`), in one
subprocess per computation and mode whose stderr is captured: Oclgrind reports every
error there, and any report fails the test, as does a wrong result. Checks, on in both
modes: out-of-bounds accesses (Oclgrind's memory checker, always on),
`OCLGRIND_CHECK_API=1` (OpenCL API misuse) and `OCLGRIND_DATA_RACES=1` (data races in
global and local memory). The two modes:

- "as-built": the programs exactly as the runtime builds and runs them.
- "uninitialized": `OCLGRIND_UNINITIALIZED=1` as well (reads of uninitialized memory:
  private, local and global). Oclgrind 21.10's uninitialized-value checker has three
  defects that this mode steps around, each shown by a minimal program in
  `test_oclgrind_defects_that_the_uninitialized_mode_avoids`:
  1. it aborts ("OCLGRIND FATAL ERROR (Uninitialized.cpp:1805) Unsupported instruction:
     freeze") on LLVM's `freeze` instruction, which the optimizer emits: programs are
     built with `-cl-opt-disable`;
  2. a host store that does not cover a whole buffer at once (`clEnqueueFillBuffer`,
     executed as one store per pattern, or a partial write) replaces the buffer's shadow
     memory by one the size of that store, so every later store beyond it is lost and
     every load beyond it reads as uninitialized: the runtime's 0xFF fill of output and
     temporary buffers (`clEnqueueFillBuffer` with a 1-byte pattern) is done as one write
     of the whole buffer instead (the same bytes);
  3. it keeps the shadow memory of a released buffer, and a later buffer given the same
     buffer number inherits it (when the old one was smaller, the same symptom as 2):
     buffers are never released while a worker runs.

  With the fill left out altogether, Oclgrind reports one thing more, and it is not a
  defect: with res_mem "glb" the generated code combines into its destination in place,
  `dest = first ? v : g(dest, v)` as straight-line code (`place_combine.store_combined`),
  so the first step loads the destination before anything wrote it and discards the
  result. The runtime fills every buffer it allocates, so that load reads defined
  memory; a host of its own must do the same (the README's "Reliability" section).

Compiler warnings ("loop not unrolled": a `#pragma unroll` clang does not honour) are
not Oclgrind reports: the worker ignores pyopencl's CompilerWarning, and `reports` drops
the "N warnings generated." line that Oclgrind's clang prints on stderr itself (on every
build that pyopencl's binary cache does not answer, so on a fresh machine).

Oclgrind is registered for the subprocesses only: `OCL_ICD_VENDORS` names a temporary
directory holding `oclgrind.icd` (`/usr/lib/oclgrind/liboclgrind-rt-icd.so`, Debian's
`oclgrind` package, installed by scripts/setup.sh); the device spec is "Oclgrind".
pyopencl probes every device for NVIDIA's compute capability (`clGetDeviceInfo` with
`CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV`, catching the error), which Oclgrind's API checker
reports: the worker answers that probe itself (not an NVIDIA device), so every remaining
API report is about this project's calls.

`MDH_OCLGRIND=0` skips these tests (scripts/setup.sh then does not install Oclgrind);
`MDH_OCLGRIND_CONFIGS` sets the number of random configurations (default 3),
`MDH_OCLGRIND_SEED` their seed; `python -m tests.test_oclgrind NAME MODE [SEED COUNT]`
(with the environment of `oclgrind_env`) runs one computation's cases.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ICD = Path("/usr/lib/oclgrind/liboclgrind-rt-icd.so")
ROOT = Path(__file__).parent.parent
RANDOM_CONFIGS = int(os.environ.get("MDH_OCLGRIND_CONFIGS", "3"))
SEED = int(os.environ.get("MDH_OCLGRIND_SEED", "8000"))
MODES = ("as-built", "uninitialized")
MARK = "=== mdh case "

SIZES: dict[str, dict] = {"histogram": dict(e=200, b=16), "dot": dict(k=64)}
"""Smaller than the catalog's small sizes where Oclgrind (an interpreter) would be slow."""


def oclgrind_env(tmp: Path, mode: str) -> dict[str, str]:
    vendors = tmp / "vendors"
    vendors.mkdir(exist_ok=True)
    (vendors / "oclgrind.icd").write_text(f"{ICD}\n")
    env = dict(os.environ, OCL_ICD_VENDORS=str(vendors), OCLGRIND_CHECK_API="1")
    env.update(OCLGRIND_DATA_RACES="1", MDH_TUNING_DB=str(tmp / "tuning.sqlite"))
    env.pop("OCLGRIND_UNINITIALIZED", None)
    if mode == "uninitialized":
        env["OCLGRIND_UNINITIALIZED"] = "1"
    return env


def catalog_names() -> list[str]:
    from mdh_ir.catalog import CATALOG

    return sorted(CATALOG)


def cases(name: str, seed: int, count: int):
    """(label, module, inputs, config): the default configurations and `count` random ones
    of computation `name` on the current device (Oclgrind)."""
    from dataclasses import replace

    import numpy as np

    from mdh_ir.catalog import CATALOG
    from mdh_ir.schedule.default_config import default_config
    from mdh_ir.device import DeviceInfo
    from mdh_ir.runtime import select_device
    from mdh_ir.semantics.reference import find_compute
    from mdh_ir.tuning.space import Infeasible, RandomTrial, sample_config

    entry = CATALOG[name]
    sizes = {**entry.small, **SIZES.get(name, {})}
    module = entry.build(**sizes)
    inputs = entry.inputs(np.random.default_rng(seed), **sizes)
    op = find_compute(module)
    info = DeviceInfo.from_cl(select_device("Oclgrind"))
    yield "default (cpu class)", module, inputs, default_config(op, replace(info, kind="cpu"))
    yield "default (gpu class)", module, inputs, default_config(op, replace(info, kind="gpu"))
    rng = np.random.default_rng(seed)
    drawn = 0
    for _ in range(100 * count):
        if drawn == count:
            break
        try:
            cfg = sample_config(op, info, RandomTrial(rng))
        except Infeasible:
            continue
        drawn += 1
        yield f"random {drawn}", module, inputs, cfg


def worker(name: str, mode: str, seed: int, count: int) -> int:
    """Run the cases of `name` on Oclgrind; a marker line on stderr precedes each."""
    import warnings

    import numpy as np
    import pyopencl
    import pyopencl.characterize

    import mdh_ir.runtime.program
    from mdh_ir.driver import compile_module
    from mdh_ir.semantics.compare import compare

    pyopencl.characterize.nv_compute_capability = lambda dev: None  # see the docstring
    warnings.simplefilter("ignore", pyopencl.CompilerWarning)  # see the docstring
    if mode == "uninitialized":  # see the docstring
        kept = []

        class KeptBuffer(pyopencl.Buffer):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                kept.append(self)

        def fill_at_once(queue, mem, pattern, offset, size, wait_for=None):
            pattern = np.frombuffer(np.ascontiguousarray(pattern).tobytes(), np.uint8)
            host = np.resize(pattern, size)
            return pyopencl.enqueue_copy(queue, mem, host, dst_offset=offset, wait_for=wait_for)

        pyopencl.Buffer = KeptBuffer
        pyopencl.enqueue_fill_buffer = fill_at_once
        mdh_ir.runtime.program.build_options = lambda device, lowered: ["-cl-opt-disable"]
    wrong = 0
    for label, module, inputs, cfg in cases(name, seed, count):
        sys.stderr.flush()
        os.write(2, f"{MARK}{label}: {cfg.to_attr()}\n".encode())
        outputs = compile_module(module, "Oclgrind", cfg)(*inputs)
        result = compare(module, inputs, outputs)
        sys.stderr.flush()
        if not result.ok:
            os.write(2, f"WRONG RESULT: {result.message}\n".encode())
            wrong += 1
    return 1 if wrong else 0


def reports(stderr: str) -> list[tuple[str, str]]:
    """(case, report) for every case whose stretch of stderr holds anything."""
    found = []
    for part in stderr.split(MARK)[1:]:
        case, _, rest = part.partition("\n")
        rest = COMPILER_WARNINGS.sub("", rest).strip()
        if rest:
            found.append((case, rest))
    return found


COMPILER_WARNINGS = re.compile(r"^\d+ warnings? generated\.$", re.MULTILINE)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    if os.environ.get("MDH_OCLGRIND") == "0":
        pytest.skip("MDH_OCLGRIND=0")
    if not ICD.exists():
        pytest.fail(f"Oclgrind is not installed ({ICD} missing): run scripts/setup.sh")
    return tmp_path_factory.mktemp("oclgrind")


def run_worker(tmp: Path, mode: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=oclgrind_env(tmp, mode),
        cwd=ROOT, timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", catalog_names())
def test_catalog_under_oclgrind(name: str, mode: str, tmp: Path) -> None:
    r = run_worker(tmp, mode, "-m", "tests.test_oclgrind", name, mode, str(SEED), str(RANDOM_CONFIGS))
    found = reports(r.stderr)
    assert r.returncode == 0 or found, f"worker failed ({r.returncode}):\n{r.stderr[-4000:]}"
    assert not found, "\n\n".join(f"{name}, {case}:\n{text[:3000]}" for case, text in found)
    assert r.stderr.startswith(MARK), f"output before the first case:\n{r.stderr[:3000]}"
    assert r.stderr.count(MARK) == 2 + RANDOM_CONFIGS


def test_prefetch_under_oclgrind(tmp: Path) -> None:
    """The pipelined lowerings (`test_prefetch`'s draws: one local buffer, or two used in
    turn with one barrier a step) and the copies without bounds checks
    (`test_inside_copies`) give the reference result on Oclgrind, and its race and
    bounds checkers find nothing. On PoCL a barrier missing at the end of a step does
    not show: a mutant that keeps every step in slot 0 passes there and fails here
    (wrong results and read-write races on local memory); nor does a read past the
    end of a buffer."""
    run_tests_on_oclgrind(tmp, "tests/test_lowering_random.py", "test_prefetch or test_inside_copies", 12)


def test_whole_k_tiles_under_oclgrind(tmp: Path) -> None:
    """Fragments of whole local tiles along a padded k in a branch of their own
    (`test_mma.py::test_whole_k_tiles_in_a_branch_of_their_own`, which PoCL 3.1
    miscompiles) give the reference result on Oclgrind, and its race and bounds
    checkers find nothing."""
    run_tests_on_oclgrind(tmp, "tests/test_mma.py", "test_whole_k_tiles_in_a_branch_of_their_own", 2)


def run_tests_on_oclgrind(tmp: Path, path: str, selected: str, count: int) -> None:
    """The tests of `path` that `selected` (pytest's -k) names, run with Oclgrind as the
    test device: `count` of them pass, and its race and bounds checkers report
    nothing."""
    env = dict(oclgrind_env(tmp, "as-built"), MDH_TEST_DEVICE="Oclgrind")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", path, "-k", selected],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert f"{count} passed" in r.stdout, r.stdout[-2000:]
    for report in ("data race", "Invalid read", "Invalid write"):
        assert report not in r.stdout + r.stderr, (r.stdout + r.stderr)[-4000:]


def test_reports_are_attributed_to_their_case() -> None:
    stderr = f"{MARK}a: cfg\n{MARK}b: cfg\nOclgrind - Read-write data race\n{MARK}c: cfg\n"
    assert reports(stderr) == [("b: cfg", "Oclgrind - Read-write data race")]


DEFECTS = r'''
import gc, os, sys
import numpy as np, pyopencl as cl, pyopencl.characterize
pyopencl.characterize.nv_compute_capability = lambda dev: None
ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
queue = cl.CommandQueue(ctx)
source = """
__kernel void write(__global float* t) { t[get_global_id(0)] = 1.0f; }
__kernel void copy(__global const float* t, __global float* o) {
  o[get_global_id(0)] = t[get_global_id(0)]; }
__kernel void div_rem(__global float* o, int n) {
  int i = get_global_id(0);
  o[i] = (float)(i / n) + (float)(i % n); }
__kernel void out_of_bounds(__global const float* t, __global float* o) {
  o[get_global_id(0)] = t[get_global_id(0) + 1]; }
__kernel void race(__global float* o) { o[0] = get_global_id(0); }
__kernel void private_uninit(__global float* o) {
  float p[2]; p[0] = 1.0f; o[get_global_id(0)] = p[get_global_id(0) % 2]; }
"""
class Kernels:
    def __init__(self, program):
        for name in ("write", "copy", "div_rem", "out_of_bounds", "race", "private_uninit"):
            setattr(self, name, cl.Kernel(program, name))
optimized = Kernels(cl.Program(ctx, source).build())
plain = Kernels(cl.Program(ctx, source).build(options=["-cl-opt-disable"]))
mf = cl.mem_flags
def mark(text):
    sys.stderr.flush(); os.write(2, ("@@ " + text + "\n").encode())
def buffer():
    return cl.Buffer(ctx, mf.READ_WRITE, size=64)
case = sys.argv[1]
t, o = buffer(), buffer()
if case == "freeze":
    mark("optimized"); optimized.div_rem(queue, (16,), None, o, np.int32(3)); queue.finish()
    mark("plain"); plain.div_rem(queue, (16,), None, o, np.int32(3)); queue.finish()
elif case == "fill":
    mark("fill"); cl.enqueue_fill_buffer(queue, t, np.uint8(0xFF), 0, 64)
    plain.write(queue, (16,), None, t); plain.copy(queue, (16,), None, t, o); queue.finish()
    mark("no fill"); t2 = buffer()
    plain.write(queue, (16,), None, t2); plain.copy(queue, (16,), None, t2, o); queue.finish()
elif case == "release":
    small = cl.Buffer(ctx, mf.READ_WRITE, size=4); plain.write(queue, (1,), None, small)
    queue.finish(); small.release(); del small; gc.collect()
    mark("after release"); t3 = buffer()
    plain.write(queue, (16,), None, t3); plain.copy(queue, (16,), None, t3, o); queue.finish()
elif case == "controls":
    cl.enqueue_copy(queue, t, np.ones(16, np.float32))
    mark("out of bounds"); plain.out_of_bounds(queue, (16,), None, t, o); queue.finish()
    mark("race"); plain.race(queue, (16,), (16,), o); queue.finish()
    mark("uninitialized"); plain.private_uninit(queue, (2,), None, o); queue.finish()
mark("end")
'''


@pytest.mark.parametrize("case", ["controls", "freeze", "fill", "release"])
def test_oclgrind_checks_and_defects(case: str, tmp: Path) -> None:
    """Each check reports a planted error (an out-of-bounds read, a write-write race, a
    read of an uninitialized private element), and each defect of the module docstring
    shows on a minimal correct program, which the workaround avoids. Should Oclgrind fix
    a defect, this test says so."""
    r = run_worker(tmp, "uninitialized", "-c", DEFECTS, case)
    parts = dict(p.partition("\n")[::2] for p in r.stderr.split("@@ ")[1:])
    assert "end" in parts, r.stderr
    if case == "controls":
        assert "Invalid read of size 4 at global memory address" in parts["out of bounds"]
        assert "Write-write data race at global memory address" in parts["race"]
        assert "Uninitialized value written to global memory" in parts["uninitialized"]
    elif case == "freeze":
        assert "Unsupported instruction: freeze" in parts["optimized"], r.stderr
        assert parts["plain"].strip() == "", parts["plain"]
    elif case == "fill":  # 16 floats written by `write`, read by `copy`: all reported
        assert parts["fill"].count("Uninitialized value written to global memory") == 16, r.stderr
        assert parts["no fill"].strip() == "", parts["no fill"]
    else:  # the released buffer held 1 float: floats 1 to 15 of the new one are reported
        assert parts["after release"].count("Uninitialized value written") == 15, r.stderr


if __name__ == "__main__":
    args = sys.argv[1:]
    seed, count = (int(args[2]), int(args[3])) if len(args) > 3 else (SEED, RANDOM_CONFIGS)
    sys.exit(worker(args[0], args[1], seed, count))
