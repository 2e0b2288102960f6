"""An evaluation worker with faults injected by configuration (tests only).

Run as `python -m tests.faulty_worker FD`: a candidate whose `pt_size` starts with
4 fails to build, 2 gives a wrong result, 3 crashes the worker, 7 hangs while building,
5 hangs while running.
"""

import os
import sys
import time
from multiprocessing.connection import Connection

import mdh_ir.driver
from mdh_ir.runtime import BuildError
from mdh_ir.tuning import evaluate

real_compile = mdh_ir.driver.compile_module


class WrongProgram:
    """A runtime program whose outputs are off by one."""

    def __init__(self, program):
        self.program = program

    def __getattr__(self, name):
        return getattr(self.program, name)

    def run(self, inputs, repeats=1, flush_bytes=0, stopwatch=None, download=True):
        import pyopencl as cl

        outputs, times = self.program.run(inputs, repeats, flush_bytes, stopwatch)
        wrong = [o + 1 for o in outputs]
        if download:
            return wrong, times
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
        return [cl.Buffer(self.program.ctx, flags, hostbuf=o) for o in wrong], times


class HangingProgram:
    """A runtime program whose runs never end."""

    def __init__(self, program):
        self.program = program

    def __getattr__(self, name):
        return getattr(self.program, name)

    def run(self, inputs, repeats=1, flush_bytes=0, stopwatch=None, download=True):
        time.sleep(3600)


def faulty_compile(module, device=None, config=None, stopwatch=None):
    fault = config.pt_size[0] if config is not None else None
    if fault == 4:
        raise BuildError("<kernel>:1:1: error: injected build failure", "source")
    if fault == 3:
        os._exit(3)
    if fault == 7:
        time.sleep(3600)
    compiled = real_compile(module, device, config, stopwatch=stopwatch)
    if fault in (2, 5):
        compiled.program = (WrongProgram if fault == 2 else HangingProgram)(compiled.program)
    return compiled


mdh_ir.driver.compile_module = faulty_compile

if __name__ == "__main__":
    evaluate._serve(Connection(int(sys.argv[1])))
