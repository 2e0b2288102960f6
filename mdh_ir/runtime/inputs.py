"""Inputs uploaded to a device once, for the runs of many programs.

`Program.upload` puts a program's inputs into read-only buffers of its context, held by
a `DeviceInputs`, which `Program.run` takes in place of arrays: the runs of every program
of that context whose arguments have the inputs' shapes and element types, such as the
candidates of one computation's tuning, read the same buffers (uploading matmul
3000^3's two 36 MB inputs again for each candidate took 41 ms of the 240 ms of an
evaluation on an H100). No run writes them: an argument that a program writes starts
each of its runs as a copy of its input, made on the device into a buffer of the
program's own (`Program.run`), so that nothing a program writes reaches the inputs of
another or of its own next run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class DeviceInputs:
    """Arrays held in read-only buffers of one OpenCL context (module docstring)."""

    def __init__(self, ctx, arrays: Sequence[np.ndarray]):
        """`arrays` (of the types the programs' arguments have), uploaded into `ctx`."""
        self.ctx = ctx
        self.specs = [(tuple(a.shape), np.dtype(a.dtype)) for a in arrays]
        """Per input, its shape and element type."""
        self.buffers = [upload(ctx, a) for a in arrays]


def upload(ctx, array: np.ndarray):
    """A read-only buffer of `ctx` holding `array`."""
    import pyopencl as cl

    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    return cl.Buffer(ctx, flags, hostbuf=np.ascontiguousarray(array))
