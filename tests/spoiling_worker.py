"""An evaluation worker that logs its uploads and can spoil a candidate's outputs (tests
only).

Run as `python -m tests.spoiling_worker FD`: candidates are built, run and checked as
by the real worker, but every buffer of inputs uploaded (`mdh_ir.runtime.inputs.upload`)
appends a line to the file `$MDH_TEST_UPLOADS`, and with `$MDH_TEST_SPOIL` set the
first candidate fills its outputs with NaN after each run (its result is then wrong;
were one of its outputs the buffer of an input, so would the next candidate's be).
"""

import os
import sys
from multiprocessing.connection import Connection

import numpy as np

import mdh_ir.driver
from mdh_ir.runtime import inputs
from mdh_ir.tuning import evaluate

real_compile = mdh_ir.driver.compile_module
real_upload = inputs.upload
compiled_programs = 0


def logged_upload(ctx, array):
    with open(os.environ["MDH_TEST_UPLOADS"], "a") as log:
        log.write(f"{array.shape}\n")
    return real_upload(ctx, array)


class SpoilingProgram:
    """A runtime program that fills its outputs with NaN after each run."""

    def __init__(self, program):
        self.program = program

    def __getattr__(self, name):
        return getattr(self.program, name)

    def run(self, inputs, repeats=1, flush_bytes=0, stopwatch=None, download=True):
        import pyopencl as cl

        outputs, times = self.program.run(inputs, repeats, flush_bytes, stopwatch, download=False)
        for buffer in outputs:
            cl.enqueue_fill_buffer(self.program.queue, buffer, np.float32(np.nan), 0, buffer.size).wait()
        return (self.program.download(outputs) if download else outputs), times


def spoiling_compile(module, device=None, config=None, stopwatch=None):
    global compiled_programs
    compiled = real_compile(module, device, config, stopwatch=stopwatch)
    compiled_programs += 1
    if os.environ.get("MDH_TEST_SPOIL") and compiled_programs == 1:
        compiled.program = SpoilingProgram(compiled.program)
    return compiled


inputs.upload = logged_upload
mdh_ir.driver.compile_module = spoiling_compile

if __name__ == "__main__":
    evaluate._serve(Connection(int(sys.argv[1])))
