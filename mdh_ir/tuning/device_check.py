"""Check a candidate's outputs against the reference on the device.

The tuner checks every candidate's outputs against one reference (`compare.Expected`).
Downloading the outputs and comparing them on the host took the most of an evaluation
on the GPU host (a contraction's 37.7 M outputs: 228 ms a candidate, its run included).
Here the reference is uploaded once per tuning and a kernel (`STATS_SOURCE`) reads a
candidate's outputs where they lie and reduces them to a few numbers, by the rules of
`compare` (float64 reference for a computation that reduces, else the declared float32):
how many values differ in NaN or Inf from the reference (`compare.non_finite_mismatch`),
and over the reference's finite positions, the sum of the squared differences (float64)
or the largest relative element error max |got - want| / max(|want|, 1), its subtraction
and division done in float64 and rounded to float32 (the float32 result the host
computes: double rounding through 53 bits is exact for these operations on 24-bit
operands). Only those numbers are downloaded.

The device decides only that a candidate passes, and only where the host would: no value
differs in NaN or Inf, and the error is within the tolerance (`Expected.tolerance`); a
relative L2 error needs a margin below it for sums taken in another order than the
host's (`l2_margin`). Every other candidate, and every output the device does not
compare (other types than float32 and 32-bit integers, a device without float64), is
downloaded and compared on the host (`Expected.compare`), which gives a failure its
message.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from mdh_ir.semantics.compare import Comparison, Expected, passed

PARTS = 4096
"""Work-items of the statistics kernels; each reduces every PARTS-th value."""
STATS_SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* Whether g and w differ in a NaN or an infinity (compare.non_finite_mismatch). */
#define DIFFER(g, w) (isnan(g) != isnan(w) || ((isinf(g) || isinf(w)) && (g) != (w)))

__kernel void l2_stats(__global const float* got, __global const double* want, ulong n, __global double* parts) {
    ulong id = get_global_id(0);
    double squares = 0.0;
    uint differ = 0;
    for (ulong i = id; i < n; i += get_global_size(0)) {
        double g = got[i], w = want[i];
        if (DIFFER(g, w)) {
            differ += 1;
        } else if (isfinite(w)) {
            double d = g - w;
            squares += d * d;
        }
    }
    parts[3 * id] = squares;
    parts[3 * id + 1] = 0.0;
    parts[3 * id + 2] = differ;
}

__kernel void element_stats(__global const float* got, __global const float* want, ulong n, __global double* parts) {
    ulong id = get_global_id(0);
    float worst = 0.0f;
    uint differ = 0;
    for (ulong i = id; i < n; i += get_global_size(0)) {
        float g = got[i], w = want[i];
        if (DIFFER(g, w)) {
            differ += 1;
        } else if (isfinite(w)) {
            float d = (float)((double)g - (double)w);
            worst = fmax(worst, (float)((double)fabs(d) / (double)fmax(fabs(w), 1.0f)));
        }
    }
    parts[3 * id] = 0.0;
    parts[3 * id + 1] = worst;
    parts[3 * id + 2] = differ;
}

__kernel void word_stats(__global const uint* got, __global const uint* want, ulong n, __global double* parts) {
    ulong id = get_global_id(0);
    uint differ = 0;
    for (ulong i = id; i < n; i += get_global_size(0))
        differ += got[i] != want[i];
    parts[3 * id] = 0.0;
    parts[3 * id + 1] = 0.0;
    parts[3 * id + 2] = differ;
}

__kernel void total(__global double* parts, uint count) {
    double squares = 0.0, worst = 0.0, differ = 0.0;
    for (uint i = 0; i < count; ++i) {
        squares += parts[3 * i];
        worst = fmax(worst, parts[3 * i + 1]);
        differ += parts[3 * i + 2];
    }
    parts[0] = squares;
    parts[1] = worst;
    parts[2] = differ;
}
"""


@cache
def _kernels(ctx):
    """The statistics kernels (`STATS_SOURCE`), built once per context."""
    import pyopencl as cl

    program = cl.Program(ctx, STATS_SOURCE).build()
    return {name: cl.Kernel(program, name) for name in ("l2_stats", "element_stats", "word_stats", "total")}


def l2_margin(n: int) -> float:
    """How far below the tolerance, relative to it, a relative L2 error over `n` values
    computed on the device must lie for the host's to lie within it too: the host and
    the device each sum `n` squares in float64, in their own orders (each sum off by at
    most (n - 1) 2^-53 relative, the square root halves it; doubled for margin)."""
    return (n + 1) * 2.0**-52


class DeviceCheck:
    """Compares programs' outputs with `expected`'s reference on their device (module
    docstring); outputs it cannot compare there are compared on the host."""

    def __init__(self, expected: Expected):
        self.expected = expected
        self.uploaded: dict[object, _Uploaded] = {}
        """Per OpenCL context, the reference uploaded there."""

    def compare(self, program, buffers: Sequence) -> Comparison:
        """The comparison of `program`'s outputs held in `buffers` (`Program.run`
        without `download`) with the reference: on the device where they pass there,
        else that of the host on the downloaded outputs."""
        if program.ctx not in self.uploaded:
            self.uploaded[program.ctx] = _Uploaded(self.expected, program.ctx)
        error = self.uploaded[program.ctx].passing_error(program.queue, buffers, program.output_specs())
        if error is not None:
            return passed(error)
        return self.expected.compare(program.download(buffers))


class _Uploaded:
    """`expected`'s reference in buffers of `ctx`, and the statistics kernels."""

    def __init__(self, expected: Expected, ctx):
        import pyopencl as cl

        self.expected = expected
        fp64 = "cl_khr_fp64" in ctx.devices[0].extensions
        self.kernels = _kernels(ctx) if fp64 else {}
        self.wants: list[tuple[str, np.dtype, object] | None] = []
        """Per output, its statistics kernel (`l2`, `element`, `word`), the type the
        output must have, and the reference's buffer; None where the host compares it."""
        flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
        for want in expected.reference:
            if want.dtype.kind == "f":
                kind, dtype = ("l2" if expected.l2 else "element" if want.dtype == np.float32 else None), np.float32
                want = want.astype(np.float64 if expected.l2 else np.float32, copy=False)
            else:
                kind, dtype = ("word" if want.dtype.kind in "iu" and want.dtype.itemsize == 4 else None), want.dtype
            if fp64 and kind is not None and want.size > 0:
                self.wants.append((kind, np.dtype(dtype), cl.Buffer(ctx, flags, hostbuf=np.ascontiguousarray(want))))
            else:
                self.wants.append(None)
        self.parts = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, size=3 * 8 * PARTS) if fp64 else None

    def passing_error(self, queue, buffers: Sequence, specs: Sequence[tuple[tuple[int, ...], np.dtype]]) -> float | None:
        """The largest error of the outputs in `buffers` (shapes and types `specs`),
        where the device finds them all within the tolerance; None where it does not,
        or where it cannot compare one of them."""
        expected, worst = self.expected, 0.0
        if len(buffers) != len(expected.reference):
            return None
        for j, (buffer, (shape, dtype), want) in enumerate(zip(buffers, specs, expected.reference)):
            on_device = self.wants[j]
            if on_device is None or shape != want.shape or np.dtype(dtype) != on_device[1]:
                return None
            kind = on_device[0]
            squares, error, differ = self._stats(queue, kind, buffer, on_device[2], want.size)
            if differ:
                return None
            if kind == "word":
                continue
            tolerance = expected.tolerance(np.dtype(dtype))
            if kind == "l2":
                error = squares**0.5 / max(expected.norms[j], 1e-30)
                if error * (1 + l2_margin(want.size)) > tolerance:
                    return None
            elif error > tolerance:
                return None
            worst = max(worst, error)
        return worst

    def _stats(self, queue, kind: str, got, want, n: int) -> tuple[float, float, int]:
        """(sum of squared differences, largest relative element error, values differing
        in NaN or Inf) of `got` against `want`, `n` values, by the kernel `kind`."""
        import pyopencl as cl

        self.kernels[f"{kind}_stats"](queue, (PARTS,), None, got, want, np.uint64(n), self.parts)
        self.kernels["total"](queue, (1,), (1,), self.parts, np.uint32(PARTS))
        out = np.empty(3, np.float64)
        cl.enqueue_copy(queue, out, self.parts)
        return float(out[0]), float(out[1]), int(out[2])
