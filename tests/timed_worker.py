"""An evaluation worker whose timer the tests control (tests only).

Run as `python -m tests.timed_worker FD`: candidates are built, run and checked as by
the real worker, but every run of a program takes `fake_seconds` of it: 1 ms for the
device's default configuration, 0.1 to 0.9 ms for any other (a fixed function of its
text). A test can then assert what the tuner makes of times without asserting which
of two real timings wins.
"""

import sys
import zlib
from multiprocessing.connection import Connection

import mdh_ir.driver
from mdh_ir.schedule.default_config import default_config
from mdh_ir.tuning import evaluate

real_compile = mdh_ir.driver.compile_module


def fake_seconds(compiled) -> float:
    if compiled.config == default_config(compiled.op, compiled.info):
        return 1e-3
    return 1e-4 * (1 + zlib.crc32(str(compiled.config.to_attr()).encode()) % 9)


class TimedProgram:
    """A runtime program whose every run takes `seconds`."""

    def __init__(self, program, seconds: float):
        self.program, self.seconds = program, seconds

    def __getattr__(self, name):
        return getattr(self.program, name)

    def run(self, inputs, repeats=1, flush_bytes=0, stopwatch=None, download=True):
        outputs, _ = self.program.run(inputs, download=download)
        return outputs, [self.seconds] * repeats


def timed_compile(module, device=None, config=None, stopwatch=None):
    compiled = real_compile(module, device, config, stopwatch=stopwatch)
    compiled.program = TimedProgram(compiled.program, fake_seconds(compiled))
    return compiled


mdh_ir.driver.compile_module = timed_compile

if __name__ == "__main__":
    evaluate._serve(Connection(int(sys.argv[1])))
