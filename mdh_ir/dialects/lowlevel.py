"""The `lowlevel` dialect: an MDH computation de-composed over the OpenCL system model.

It adds to builtin/func/arith/memref/scf only what they lack. The passes introduce its
ops step by step (DESIGN.md section 5):

- `mdh-tile`: `par_for` (the parts of a core layer: work-groups "wg" or work-items
  "wi"), `tile_for` (the tiles of one dimension at one layer: "lt" local tiles, "pt"
  private tiles, "el" elements), `view_load` (an input read through its view) and
  `accumulate` (an abstract combine of a point's result into the outputs);
- `mdh-assign-asm`: `kernel` / `launch`, `group_id` / `local_id`;
- `mdh-promote-memory`: `copy` into buffers of memory space "lcl" or "prv", `barrier`;
- `mdh-place-combine`: `fill`, and accumulation spelled out with memref/arith/scf; for
  the last work-group's combine, `atomic_inc`, `fence` and a barrier on global memory
  (and, in the host function, a `fill` of the counter);
- `mdh-vectorize`: `view` (an accumulator of vector elements seen as scalars), and for
  the vector versions of scalar functions `mask_compare`, `mask_select` and `convert`
  (xDSL's arith compares, select and casts take scalars only);
- `lowlevel-prefetch`: the `staged` halves of a `copy`, `slot` (one of a local tile's
  buffers), `async_commit` and `async_wait` around asynchronous copies;
- `lowlevel-async-copies`: `cp_async`, one move of an asynchronous copy as PTX
  `cp.async` (devices that have it);
- `lowlevel-expand`: `load_widened`, the read of a 16-bit float element (f16, bf16) as
  the f32 of its value;
- `mdh-tile`: `round_tf32`, an f32 input read as TF32 (`precision = "tf32"`;
  `mdh-promote-memory` moves it to the copies into local buffers, `round` on a `copy`;
  `lowlevel-tf32-ptx` has the device's instruction do it);
- `mdh-mma`: `mma`, one warp-level tensor-core `mma.sync` on fragments held by the
  lanes, and `ldmatrix`, a warp's load of fragments from local memory
  (`lowlevel-expand-mma` rewrites both through local memory for devices without tensor
  cores).

16-bit float elements (f16, bf16: inputs only) stay 16-bit in every memory, global,
local and private: copies move them as they are, and only `load_widened` reads one as a
value. A `view_load` of such a buffer gives the f32 (`mdh_attrs.read_type`).

`lowlevel-expand` rewrites `tile_for`, `view_load`, `copy` and a kernel's `fill` into
scf/arith/memref, leaving only what the OpenCL printer maps one-to-one (a host
function's `fill` is the runtime's: it fills the buffer before the launches).

Memory spaces: a memref without memory space lives in global memory; `"lcl"` is OpenCL
local memory, `"prv"` private memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, NamedTuple

from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import (
    I32,
    I64,
    i32,
    i64,
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    bf16,
    f16,
    f32,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from mdh_ir.dialects.mdh_attrs import STORAGE_TYPES, read_type

LOCAL_SIZE_ATTR = "local_size"
"""Kernel attribute: the work-group size every launch of the kernel uses."""

SHARED_ATTR = "shared"
"""Kernel attribute: the arguments (their positions) that one work-item writes and others
read after a barrier in the same kernel. They are declared without `restrict`: with it,
a compiler may take the barrier (a call that is not given them) to leave them unchanged
and read them before it."""

KEPT_ATTR = "kept"
"""`memref.alloca` attribute (`mdh-keep-rows`): the array holds, across the phases of a
kernel group, values of the kernel argument at this position (a row statistic it writes,
or a buffer it reads); `lowlevel-merge-kernels` makes the arrays of one host buffer one."""

UNROLL_ATTR = "unroll"
"""Attribute of an `scf.for` (or a `tile_for` that becomes one): `#pragma unroll N`, 0 for
full unrolling."""

LANES_ATTR = "lanes"
"""Copy attribute: elements moved at once along the innermost axis (see lowlevel-expand)."""

INSIDE_ATTR = "inside"
"""Copy attribute (unit): the box lies inside the source wherever the copy runs, so its
moves need no bounds checks (see mdh-promote-memory)."""

INSIDE_AXES_ATTR = "inside_axes"
"""Copy attribute: the logical axes along which the box lies inside the source wherever
the copy runs (where some do and others do not); they need no bounds checks."""

SOURCE_EXTENTS_ATTR = "source_extents"
"""Copy attribute: the logical extents of the part of the source that holds data (a local
copy's box, without the `lcl_pad` elements of its rows); box elements beyond it count as
outside the source (see mdh-promote-memory)."""

SWIZZLE_ATTR = "swizzle"
"""`memref.alloca` attribute of a local buffer (`lcl_swizzle`), an integer n >= 2: each
row's 16-byte chunks are permuted by XOR with bits of the index of axis -n (counted from
the last; `lowlevel-swizzle-local` rewrites its accesses; `mdh-promote-memory` marks it,
`lowlevel-prefetch` keeps the mark on its slots)."""

ROUND_ATTR = "round"
"""Copy attribute: "tf32" rounds each element it stores into the destination
(`round_tf32`), so that the destination's readers read rounded values (see
mdh-promote-memory)."""

PTX_ATTR = "ptx"
"""`round_tf32` attribute (unit): done by the device's conversion instruction, PTX
`cvt.rn.tf32.f32` (see lowlevel-tf32-ptx), instead of integer operations."""

ASYNC_ATTR = "async"
"""Copy attribute (unit), and of the stores `lowlevel-expand` makes of its moves: the
copy may complete asynchronously, by its work-item's next `async_wait` (see
lowlevel-prefetch, `prefetch = 3`, and lowlevel-async-copies)."""

ALIGNMENT_ATTR = "alignment"
"""`vector.load`/`vector.store` attribute: bytes to which the address is aligned, the
vector's size (see lowlevel-align-vectors)."""

LCL = StringAttr("lcl")
PRV = StringAttr("prv")

CORE_LAYERS = ("wg", "wi")
TILE_LAYERS = ("lt", "pt", "el")


def memory_space(t: Attribute) -> str:
    """"glb", "lcl" or "prv" for a memref type."""
    assert isinstance(t, MemRefType)
    space = t.memory_space
    return space.data if isinstance(space, StringAttr) else "glb"


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


@irdl_op_definition
class ParForOp(IRDLOperation):
    """The parts of a core layer ("wg" or "wi"); independent of each other.

    The block arguments are one part id per dimension, then (work-group layer) one
    argument per buffer operand: the buffers the kernel made from it will take.
    `mdh-assign-asm` binds the ids to OpenCL ids.
    """

    name = "lowlevel.par_for"
    layer = prop_def(StringAttr)
    counts = prop_def(DenseArrayBase.constr(I64))
    buffers = var_operand_def(MemRefType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = "$layer $counts (`(` $buffers^ `:` type($buffers) `)`)? $body attr-dict"

    def __init__(self, layer: str, counts: Sequence[int], body: Region, buffers=()):
        super().__init__(
            operands=[buffers],
            properties={"layer": StringAttr(layer), "counts": i64_array(counts)},
            regions=[body],
        )

    @property
    def ids(self) -> Sequence[SSAValue]:
        return self.body.block.args[: len(self.counts.get_values())]

    def verify_(self) -> None:
        if self.layer.data not in CORE_LAYERS:
            raise VerifyException(f"layer must be one of {CORE_LAYERS}")
        expected = len(self.counts.get_values()) + len(self.buffers)
        if len(self.body.block.args) != expected:
            raise VerifyException("block arguments: one id per count, then one per buffer")


@irdl_op_definition
class TileForOp(IRDLOperation):
    """The tiles of `[start, start+size)` in dimension `dim` at layer `layer`.

    The range is cut into chunks of `tile` elements (the last may be shorter); chunk c
    belongs to part `c mod parts`. The region runs, for this `part`, once per owned
    chunk in increasing order, with block arguments (step, tile_start, tile_size):
    step s handles chunk `s*parts + part`. `max_trips` bounds the number of steps of any
    part.

    A `padded` loop runs as if `size` were the largest it can be: exactly `max_trips`
    steps, every tile `tile` elements long, so its trip counts are compile-time
    constants. Its chunks beyond `size` are padding: the code inside discards what they
    compute (see `mdh-tile`).
    """

    name = "lowlevel.tile_for"
    layer = prop_def(StringAttr)
    dim = prop_def(IntegerAttr[I64])
    tile = prop_def(IntegerAttr[I64])
    parts = prop_def(IntegerAttr[I64])
    max_trips = prop_def(IntegerAttr[I64])
    padded = opt_prop_def(UnitAttr)
    start = operand_def(IndexType)
    size = operand_def(IndexType)
    part = operand_def(IndexType)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())
    assembly_format = (
        "$layer `dim` $dim `(` $start `,` $size `)` `tile` $tile `parts` $parts `part` $part"
        " `max` $max_trips (`padded` $padded^)? $body attr-dict"
    )

    def __init__(
        self,
        layer: str,
        dim: int,
        start: SSAValue,
        size: SSAValue,
        tile: int,
        parts: int,
        part: SSAValue,
        max_trips: int,
        body: Region | None = None,
        padded: bool = False,
    ):
        if body is None:
            body = Region(Block(arg_types=[IndexType()] * 3))
        properties: dict[str, Attribute] = {
            "layer": StringAttr(layer),
            "dim": IntegerAttr(dim, 64),
            "tile": IntegerAttr(tile, 64),
            "parts": IntegerAttr(parts, 64),
            "max_trips": IntegerAttr(max_trips, 64),
        }
        if padded:
            properties["padded"] = UnitAttr()
        super().__init__(operands=[start, size, part], properties=properties, regions=[body])

    @property
    def step(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def tile_start(self) -> SSAValue:
        return self.body.block.args[1]

    @property
    def tile_size(self) -> SSAValue:
        return self.body.block.args[2]

    def verify_(self) -> None:
        if self.layer.data not in TILE_LAYERS:
            raise VerifyException(f"layer must be one of {TILE_LAYERS}")
        if len(self.body.block.args) != 3:
            raise VerifyException("expected block arguments (step, tile_start, tile_size)")


@irdl_op_definition
class ViewLoadOp(IRDLOperation):
    """Read `source` at `map(dims)[syms]`; outside the buffer, `boundary` decides.

    With `limits` (one per dim), it reads at `map(min(dims, limits))[syms]`: a point of
    a padded tile (see `TileForOp`) reads inside the memory it reads from (a limit that
    is its dim's own value leaves that dim as it is).

    With a vector result of N lanes (`mdh-vectorize`), it reads N consecutive elements
    along the last axis, from the position the map gives (boundary "none" only).

    Its result is the element's read type (`read_type`: f32 for f16 and bf16 buffers),
    or for a 16-bit float buffer with `widen` False, the element as stored (its bits, as
    `mdh-mma` packs them into registers).
    """

    name = "lowlevel.view_load"
    source = operand_def(MemRefType)
    dims = var_operand_def(IndexType)
    syms = var_operand_def(IndexType)
    limits = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    boundary = prop_def(StringAttr)
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$source `[` $dims `]` `[` $syms `]` (`limits` `[` $limits^ `]`)? $map `boundary`"
        " $boundary attr-dict `:` type($source) `->` type($result)"
    )

    def __init__(
        self,
        source: SSAValue,
        dims: Sequence[SSAValue],
        syms: Sequence[SSAValue],
        amap: AffineMapAttr,
        boundary: str,
        lanes: int = 1,
        limits: Sequence[SSAValue] = (),
        widen: bool = True,
    ):
        assert isinstance(source.type, MemRefType)
        elem = read_type(source.type.element_type) if widen else source.type.element_type
        super().__init__(
            operands=[source, dims, syms, limits],
            properties={"map": amap, "boundary": StringAttr(boundary)},
            result_types=[elem if lanes == 1 else VectorType(elem, [lanes])],
        )

    def verify_(self) -> None:
        if self.limits and len(self.limits) != len(self.dims):
            raise VerifyException("limits: none, or one per dim")
        stored = self.source.type.element_type  # type: ignore[attr-defined]
        elem = read_type(stored)
        t = self.result.type
        if isinstance(t, VectorType):
            if t.element_type != elem or self.boundary.data != "none":
                raise VerifyException("a vector view_load reads its buffer's read type, boundary none")
        elif t != elem and not (t == stored and isinstance(stored, STORAGE_TYPES)):
            raise VerifyException(f"result type {t} differs from the buffer's read type {elem}")



@irdl_op_definition
class LoadWidenedOp(IRDLOperation):
    """Read the 16-bit float element (f16 or bf16) of `memref` at `indices` as the f32 of
    its value; with a vector result of N lanes, N consecutive elements along the last
    axis. (OpenCL C without `cl_khr_fp16`, as NVIDIA's, holds no f16 value: the element
    stays 16 bits in memory and becomes a float as it is read.)"""

    name = "lowlevel.load_widened"
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$memref `[` $indices `]` attr-dict `:` type($memref) `->` type($result)"

    def __init__(self, memref: SSAValue, indices: Sequence[SSAValue], lanes: int = 1):
        super().__init__(
            operands=[memref, indices],
            result_types=[read_type(memref.type.element_type) if lanes == 1 else VectorType(f32, [lanes])],  # type: ignore
        )

    def verify_(self) -> None:
        elem = self.memref.type.element_type  # type: ignore[attr-defined]
        if not isinstance(elem, STORAGE_TYPES):
            raise VerifyException(f"load_widened reads f16 or bf16 elements, not {elem}")
        t = self.result.type
        if (t.element_type if isinstance(t, VectorType) else t) != f32:
            raise VerifyException(f"load_widened gives f32 or a vector of f32, not {t}")
        if len(self.indices) != self.memref.type.get_num_dims():  # type: ignore[attr-defined]
            raise VerifyException("one index per axis of the memref")


@irdl_op_definition
class RoundTF32Op(IRDLOperation):
    """`input` (f32, or a vector of f32) rounded to TF32: 10 mantissa bits, round to
    nearest, ties to even; NaN kept (`semantics.precision.round_tf32` is its reference).
    With `PTX_ATTR`, by the device's conversion instruction."""

    name = "lowlevel.round_tf32"
    T: ClassVar = VarConstraint("T", base(Attribute))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        t = self.input.type
        if (t.element_type if isinstance(t, VectorType) else t) != f32:
            raise VerifyException(f"round_tf32 takes and gives f32 or a vector of f32, not {t}")


class MmaKind(NamedTuple):
    """One kind of `lowlevel.mma`: its shape (M, N, K), the registers of a lane's A and B
    fragments and their type (a lane's C and D fragments hold M * N / 32 = 4 f32), and
    the type of the A and B elements."""

    shape: tuple[int, int, int]
    a: int
    b: int
    register: Attribute
    element: Attribute

    @property
    def per_register(self) -> int:
        """A and B elements per register: 1 (TF32) or 2 (16-bit kinds)."""
        return 1 if self.register == self.element else 2


MMA_KINDS = {
    "tf32": MmaKind((16, 8, 8), 4, 2, f32, f32),
    "f16": MmaKind((16, 8, 16), 4, 2, i32, f16),
    "bf16": MmaKind((16, 8, 16), 4, 2, i32, bf16),
}
"""TF32 registers are f32 (TF32 values); a 16-bit kind's are i32, two elements each,
the first (lower k) in the low 16 bits."""


@irdl_op_definition
class MmaOp(IRDLOperation):
    """One warp-level `mma.sync`: D = A B + C for a fragment of M x N (K summed), the
    operands spread over the 32 lanes of a warp (a lane's registers: `a`, `b`, `c`,
    results `d`), per lane of id l, g = l / 4, t = l mod 4 (PTX ISA, "Matrix Fragments
    for mma.m16n8k8" and "for mma.m16n8k16 with floating point type"):

    - TF32 m16n8k8: a0..a3 = A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]; b0, b1 = B[t][g],
      B[t+4][g]. The values are TF32 (f32 whose 13 low mantissa bits are zero:
      `round_tf32`).
    - f16 / bf16 m16n8k16: registers of two elements each, at k and k + 1 (low, high
      half): a0..a3 = A[g][2t..], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..];
      b0, b1 = B[2t..][g], B[2t+8..][g].

    c0..c3 (and d) = C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1], f32. Every lane of
    every warp of the work-group runs it, in work-group-uniform control flow
    (`lowlevel-expand-mma` puts barriers around it)."""

    name = "lowlevel.mma"
    kind = prop_def(StringAttr)
    a = var_operand_def()
    b = var_operand_def()
    c = var_operand_def(f32)
    d = var_result_def(f32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$kind `a` `(` $a `:` type($a) `)` `b` `(` $b `:` type($b) `)` `c` `(` $c `)` attr-dict `->` type($d)"
    )

    def __init__(self, kind: str, a: Sequence[SSAValue], b: Sequence[SSAValue], c: Sequence[SSAValue]):
        super().__init__(operands=[a, b, c], properties={"kind": StringAttr(kind)}, result_types=[[f32] * len(c)])

    def verify_(self) -> None:
        if self.kind.data not in MMA_KINDS:
            raise VerifyException(f"mma kind must be one of {sorted(MMA_KINDS)}")
        kind = MMA_KINDS[self.kind.data]
        m, n, _ = kind.shape
        if (len(self.a), len(self.b), len(self.c), len(self.d)) != (kind.a, kind.b, m * n // 32, m * n // 32):
            raise VerifyException(
                f"a {self.kind.data} mma takes {kind.a} A, {kind.b} B and {m * n // 32} C registers per lane"
            )
        if any(v.type != kind.register for v in [*self.a, *self.b]):
            raise VerifyException(f"a {self.kind.data} mma's A and B registers are {kind.register}")


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """One warp-level `ldmatrix`: the warp loads `count` (1, 2 or 4) matrices of 8 rows
    of 16 bytes from local memory into registers, one register a matrix per lane (PTX
    ISA, "ldmatrix"). Lane l < 8 * count gives the start of row l mod 8 of matrix l / 8,
    `source[indices]` (16 bytes contiguous along `source`'s last axis, 16-byte aligned;
    the other lanes' indices are not read). Lane l's register q holds, of matrix q:

    - without `trans`: the 4 bytes at byte 4 (l mod 4) of row l / 4: one f32, or two
      16-bit elements, the lower address in the low half;
    - with `trans` (16-bit elements only): the elements at column l / 4 of rows
      2 (l mod 4) and 2 (l mod 4) + 1, the first in the low half.

    So non-transposed it gives a lane of an m16n8 fragment its element (g, t) of an
    8-row block of A stored k-contiguous (`lowlevel.MmaOp`'s layout), transposed its
    pair (2t, 2t + 1) along k of B stored n-contiguous. Registers are f32 for an f32
    source (the bits as stored) and i32 for a 16-bit one. Every lane of every warp runs
    it, in work-group-uniform control flow (`lowlevel-expand-mma` puts barriers around
    it)."""

    name = "lowlevel.ldmatrix"
    source = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    trans = opt_prop_def(UnitAttr)
    d = var_result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "(`trans` $trans^)? $source `[` $indices `]` attr-dict `:` type($source) `->` type($d)"
    )

    def __init__(self, source: SSAValue, indices: Sequence[SSAValue], count: int, trans: bool = False):
        assert isinstance(source.type, MemRefType)
        register = f32 if source.type.element_type == f32 else i32
        super().__init__(
            operands=[source, indices],
            properties={"trans": UnitAttr()} if trans else {},
            result_types=[[register] * count],
        )

    @property
    def element_bytes(self) -> int:
        return 4 if self.source.type.element_type == f32 else 2  # type: ignore[attr-defined]

    def verify_(self) -> None:
        t = self.source.type
        assert isinstance(t, MemRefType)
        if memory_space(t) != "lcl":
            raise VerifyException("ldmatrix reads local memory")
        if t.element_type not in (f32, f16, bf16):
            raise VerifyException(f"ldmatrix reads f32, f16 or bf16 elements, not {t.element_type}")
        if len(self.indices) != t.get_num_dims():
            raise VerifyException("ldmatrix takes one index per axis of its source")
        if len(self.d) not in (1, 2, 4):
            raise VerifyException("ldmatrix loads 1, 2 or 4 matrices")
        register = f32 if t.element_type == f32 else i32
        if any(r.type != register for r in self.d):
            raise VerifyException(f"ldmatrix of {t.element_type} gives {register} registers")
        if self.trans is not None and t.element_type == f32:
            raise VerifyException("a transposed ldmatrix takes 16-bit elements")
        if t.get_shape()[-1] * self.element_bytes % 16:
            raise VerifyException("ldmatrix rows start 16-byte aligned: the last axis must hold a multiple of 16 bytes")


@irdl_op_definition
class AccumulateOp(IRDLOperation):
    """Combine `values` (one per output) of the point `point` into `outputs`.

    `combine_ops` and `out_view` are those of the `mdh.compute` it comes from: the
    point's results are combined with whatever else reaches the same output element.
    """

    name = "lowlevel.accumulate"
    values = var_operand_def()
    outputs = var_operand_def(MemRefType)
    point = var_operand_def(IndexType)
    combine_ops = prop_def(ArrayAttr)
    out_view = prop_def(ArrayAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "$values `into` $outputs `at` `[` $point `]` `combine` $combine_ops `view` $out_view"
        " attr-dict `:` `(` type($values) `)` `->` type($outputs)"
    )

    def __init__(
        self,
        values: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        point: Sequence[SSAValue],
        combine_ops: ArrayAttr,
        out_view: ArrayAttr,
    ):
        super().__init__(
            operands=[values, outputs, point],
            properties={"combine_ops": combine_ops, "out_view": out_view},
        )


@irdl_op_definition
class CopyOp(IRDLOperation):
    """Copy the box `base + [0, extents)` of `source` into `dest`.

    Box coordinates are in the buffer's logical axis order; `source_perm` / `dest_perm`
    give each memref's axis order (memref axis i holds logical axis perm[i]). Work-item
    `worker` of `workers` copies every `workers`-th element. Box elements outside the
    source are filled by `boundary` ("none": clamped into the source; only discarded
    points read them).

    A staged copy does one half of that through `stage`, the worker's private array of
    its elements (one per turn, or one vector per turn with `lanes`): `half = "load"`
    reads them from `source` into `stage`, `half = "store"` writes them from `stage` into
    `dest` (`lowlevel-prefetch` puts the two halves of a copy in different places).
    """

    name = "lowlevel.copy"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    base = var_operand_def(IndexType)
    worker = operand_def(IndexType)
    stage = opt_operand_def(MemRefType)
    extents = prop_def(DenseArrayBase.constr(I64))
    source_perm = prop_def(DenseArrayBase.constr(I64))
    dest_perm = prop_def(DenseArrayBase.constr(I64))
    boundary = prop_def(StringAttr)
    workers = prop_def(IntegerAttr[I64])
    half = opt_prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$source `[` $base `]` `->` $dest (`staged` $half `in` $stage^ `:` type($stage))?"
        " `extents` $extents `perms` $source_perm `->`"
        " $dest_perm `boundary` $boundary `by` $worker `of` $workers attr-dict"
        " `:` type($source) `->` type($dest)"
    )

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        base: Sequence[SSAValue],
        extents: Sequence[int],
        source_perm: Sequence[int],
        dest_perm: Sequence[int],
        boundary: str,
        worker: SSAValue,
        workers: int,
        half: str | None = None,
        stage: SSAValue | None = None,
    ):
        super().__init__(
            operands=[source, dest, base, worker, [] if stage is None else [stage]],
            properties={
                "extents": i64_array(extents),
                "source_perm": i64_array(source_perm),
                "dest_perm": i64_array(dest_perm),
                "boundary": StringAttr(boundary),
                "workers": IntegerAttr(workers, 64),
                **({} if half is None else {"half": StringAttr(half)}),
            },
        )

    def lanes(self) -> int:
        """Elements moved at once along the innermost axis (`LANES_ATTR`, else 1)."""
        lanes = self.attributes.get(LANES_ATTR)
        return lanes.value.data if isinstance(lanes, IntegerAttr) else 1

    def inside(self) -> bool:
        """Whether the box lies inside the source wherever the copy runs (`INSIDE_ATTR`)."""
        return INSIDE_ATTR in self.attributes

    def inside_axes(self) -> set[int]:
        """The logical axes along which the box lies inside the source wherever the copy
        runs (`INSIDE_ATTR`, `INSIDE_AXES_ATTR`)."""
        if self.inside():
            return set(range(len(self.base)))
        axes = self.attributes.get(INSIDE_AXES_ATTR)
        return set(axes.get_values()) if isinstance(axes, DenseArrayBase) else set()

    def source_extents(self) -> list[int]:
        """The logical extents of the source's data (`SOURCE_EXTENTS_ATTR`, else its shape)."""
        known = self.attributes.get(SOURCE_EXTENTS_ATTR)
        if isinstance(known, DenseArrayBase):
            return list(known.get_values())
        shape = self.source.type.get_shape()  # type: ignore[attr-defined]
        perm = self.source_perm.get_values()
        return [shape[perm.index(a)] for a in range(len(perm))]

    def units(self) -> list[int]:
        """The box in moved units: the innermost extent counts vectors of `lanes()` (a
        rank-0 box is one element)."""
        extents = list(self.extents.get_values())
        return extents[:-1] + [extents[-1] // self.lanes()] if extents else []

    def turns(self) -> int:
        """Units one worker moves (at most)."""
        return -(-math.prod(self.units()) // self.workers.value.data)

    def staged(self, half: str, stage: SSAValue, base: Sequence[SSAValue], worker: SSAValue) -> CopyOp:
        """This copy's `half` ("load" or "store") through `stage`, from `base` by `worker`."""
        copy = CopyOp(self.source, self.dest, base, self.extents.get_values(), self.source_perm.get_values(),
                      self.dest_perm.get_values(), self.boundary.data, worker, self.workers.value.data,
                      half, stage)  # fmt: skip
        copy.attributes.update(self.attributes)
        return copy

    def verify_(self) -> None:
        if (self.stage is None) != (self.half is None):
            raise VerifyException("a staged copy names both its half and its stage")
        if self.half is not None and self.half.data not in ("load", "store"):
            raise VerifyException(f'half must be "load" or "store", got "{self.half.data}"')


@irdl_op_definition
class ViewOp(IRDLOperation):
    """`source`'s storage seen with another element type and shape (the same bytes).

    `mdh-vectorize` allocates an accumulator with vector elements and gives the scalar
    code (fill, flush) this scalar view of it.
    """

    name = "lowlevel.view"
    source = operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue, result_type: MemRefType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if memory_space(src) != memory_space(dst) or memref_bytes(src) != memref_bytes(dst):
            raise VerifyException("a view keeps the memory space and the size in bytes")


@irdl_op_definition
class SlotOp(IRDLOperation):
    """Slot `index` of `source` along its leading axis: `memref<n x S>` seen as `memref<S>`.

    `lowlevel-prefetch` allocates a multi-buffered local tile as n slots and gives
    step s of the tile loop slot s mod n.
    """

    name = "lowlevel.slot"
    source = operand_def(MemRefType)
    index = operand_def(IndexType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "$source `[` $index `]` attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue, index: SSAValue):
        t = source.type
        assert isinstance(t, MemRefType)
        slot = MemRefType(t.element_type, t.get_shape()[1:], memory_space=t.memory_space)
        super().__init__(operands=[source, index], result_types=[slot])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if (
            src.get_shape()[1:] != dst.get_shape()
            or src.element_type != dst.element_type
            or memory_space(src) != memory_space(dst)
        ):
            raise VerifyException(
                "a slot drops the leading axis and keeps element type and memory space"
            )


def memref_bytes(t: MemRefType) -> int:
    """The size in bytes of an array of type `t`."""
    elem = t.element_type
    lanes = elem.get_shape()[0] if isinstance(elem, VectorType) else 1
    scalar = elem.element_type if isinstance(elem, VectorType) else elem
    width = scalar.bitwidth if hasattr(scalar, "bitwidth") else scalar.width.data  # type: ignore
    count = 1
    for n in t.get_shape():
        count *= n
    return count * lanes * width // 8


def bit_width(t: Attribute) -> int:
    """The bits of a scalar type as the OpenCL code holds it (index is a 32-bit `int`)."""
    if isinstance(t, IndexType):
        return 32
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


def mask_type(t: VectorType) -> VectorType:
    """The OpenCL mask of a comparison of `t`'s lanes: integers of the lanes' width."""
    return VectorType(IntegerType(bit_width(t.element_type)), t.get_shape())


@irdl_op_definition
class MaskCompareOp(IRDLOperation):
    """`arith.cmpf` or `arith.cmpi` (by the operands' element type) lane by lane, as an
    OpenCL mask (`mask_type`): -1 in the lanes where `predicate` holds, else 0."""

    name = "lowlevel.mask_compare"
    T: ClassVar = VarConstraint("T", base(VectorType))
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `to` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        assert isinstance(lhs.type, VectorType)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[mask_type(lhs.type)],
            properties={"predicate": StringAttr(predicate)},
        )

    def verify_(self) -> None:
        t = self.lhs.type
        assert isinstance(t, VectorType)
        if self.result.type != mask_type(t):
            raise VerifyException(f"the result of comparing {t} is {mask_type(t)}")
        floats = not isinstance(t.element_type, IntegerType | IndexType)
        names = arith.CMPF_COMPARISON_OPERATIONS if floats else arith.CMPI_COMPARISON_OPERATIONS
        if self.predicate.data not in names:
            raise VerifyException(f'unknown predicate "{self.predicate.data}" for {t}')


@irdl_op_definition
class MaskSelectOp(IRDLOperation):
    """`arith.select` lane by lane: `true_value` in the lanes where `mask` (of
    `mask_type`) is -1, else `false_value`."""

    name = "lowlevel.mask_select"
    T: ClassVar = VarConstraint("T", base(VectorType))
    mask = operand_def(VectorType)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$mask `,` $true_value `,` $false_value attr-dict `:` type($mask) `,` type($result)"
    )

    def __init__(self, mask: SSAValue, true_value: SSAValue, false_value: SSAValue):
        super().__init__(operands=[mask, true_value, false_value], result_types=[true_value.type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, VectorType)
        if self.mask.type != mask_type(t):
            raise VerifyException(f"the mask selecting {t} is {mask_type(t)}")


@irdl_op_definition
class ConvertOp(IRDLOperation):
    """The arith casts lane by lane: each lane converted as a number to the result's
    element type (integers read as unsigned with `unsigned`)."""

    name = "lowlevel.convert"
    input = operand_def(VectorType)
    result = result_def(VectorType)
    unsigned = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = "(`unsigned` $unsigned^)? $input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, result_type: VectorType, unsigned: bool = False):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={"unsigned": UnitAttr()} if unsigned else {},
        )

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, VectorType) and isinstance(dst, VectorType)
        if src.get_shape() != dst.get_shape():
            raise VerifyException("a conversion keeps the number of lanes")
        if IntegerType(1) in (src.element_type, dst.element_type):
            raise VerifyException("lanes of i1 have no OpenCL type (use a mask)")


@irdl_op_definition
class FillOp(IRDLOperation):
    """Store `value` into every element of `dest`."""

    name = "lowlevel.fill"
    dest = operand_def(MemRefType)
    value = operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$dest `with` $value attr-dict `:` type($dest) `,` type($value)"

    def __init__(self, dest: SSAValue, value: SSAValue):
        super().__init__(operands=[dest, value])


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """Work-group barrier with a local-memory fence, and a global-memory one if `global`."""

    name = "lowlevel.barrier"
    global_memory = opt_prop_def(UnitAttr, prop_name="global")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "(`global` $global^)? attr-dict"

    def __init__(self, global_memory: bool = False):
        super().__init__(properties={"global": UnitAttr()} if global_memory else {})


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """One asynchronous move of `bytes` (4, 8 or 16) from global `source[source_indices]`
    to local `dest[dest_indices]`, both addresses aligned to `bytes` (PTX `cp.async`,
    compute capability 8.0 and later); it completes by the work-item's next
    `async_wait`."""

    name = "lowlevel.cp_async"
    source = operand_def(MemRefType)
    source_indices = var_operand_def(IndexType)
    dest = operand_def(MemRefType)
    dest_indices = var_operand_def(IndexType)
    bytes = prop_def(IntegerAttr[I64])
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$source `[` $source_indices `]` `->` $dest `[` $dest_indices `]` `bytes` $bytes attr-dict"
        " `:` type($source) `->` type($dest)"
    )

    def __init__(self, source: SSAValue, source_indices: Sequence[SSAValue], dest: SSAValue,
                 dest_indices: Sequence[SSAValue], size: int):  # fmt: skip
        super().__init__(
            operands=[source, source_indices, dest, dest_indices], properties={"bytes": IntegerAttr(size, 64)}
        )

    def verify_(self) -> None:
        if (memory_space(self.source.type), memory_space(self.dest.type)) != ("glb", "lcl"):
            raise VerifyException("cp_async copies from global to local memory")
        if self.bytes.value.data not in (4, 8, 16):
            raise VerifyException("cp_async moves 4, 8 or 16 bytes")
        for mem, indices in ((self.source, self.source_indices), (self.dest, self.dest_indices)):
            if len(indices) != mem.type.get_num_dims():  # type: ignore[attr-defined]
                raise VerifyException("cp_async takes one index per axis of each memref")


@irdl_op_definition
class AsyncCommitOp(IRDLOperation):
    """Close the work-item's group of the asynchronous copies (`cp_async`) issued since
    the last one (PTX `cp.async.commit_group`; a group may be empty)."""

    name = "lowlevel.async_commit"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """Wait until the work-item's asynchronous copies (`cp_async`) are complete but
    those of its `pending` most recent groups (`async_commit`): PTX
    `cp.async.wait_group pending`, `cp.async.wait_all` (every copy, committed or not)
    for 0. A work-group barrier after it makes them visible to the work-group."""

    name = "lowlevel.async_wait"
    pending = opt_prop_def(IntegerAttr[I64])
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "(`pending` $pending^)? attr-dict"

    def __init__(self, pending: int = 0):
        super().__init__(properties={"pending": IntegerAttr(pending, 64)} if pending else {})

    @property
    def groups_pending(self) -> int:
        return 0 if self.pending is None else self.pending.value.data

    def verify_(self) -> None:
        if self.groups_pending < 0:
            raise VerifyException("async_wait leaves a number of groups pending, not a negative one")


@irdl_op_definition
class FenceOp(IRDLOperation):
    """A global-memory fence for every work-group: the work-item's accesses before it are
    ordered, for every work-group, before those after it (printed as PTX's `membar.gl` on
    NVIDIA's OpenCL, `mem_fence(CLK_GLOBAL_MEM_FENCE)` elsewhere)."""

    name = "lowlevel.fence"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "attr-dict"


@irdl_op_definition
class AtomicIncOp(IRDLOperation):
    """`atomic_inc(&memref[indices])`: add one to a 32-bit integer of global memory,
    atomically; the result is its value before."""

    name = "lowlevel.atomic_inc"
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def(I32)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$memref `[` $indices `]` attr-dict `:` type($memref)"

    def __init__(self, memref: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[memref, indices], result_types=[i32])


class _IdOp(IRDLOperation):
    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$dim attr-dict"

    def __init__(self, dim: int):
        super().__init__(properties={"dim": IntegerAttr(dim, 64)}, result_types=[IndexType()])


@irdl_op_definition
class GroupIdOp(_IdOp):
    """`get_group_id(dim)`."""

    name = "lowlevel.group_id"


@irdl_op_definition
class LocalIdOp(_IdOp):
    """`get_local_id(dim)`."""

    name = "lowlevel.local_id"


@irdl_op_definition
class KernelOp(IRDLOperation):
    """An OpenCL kernel: buffer arguments, no results."""

    name = "lowlevel.kernel"
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(self, name: str, arg_types: Sequence[Attribute], body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=arg_types))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(arg_types, []),
            },
            regions=[body],
        )

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name, inputs, _, region, extra, _, _ = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type")
        )
        op = cls(name, inputs, region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            reserved_attr_names=("sym_name", "function_type"),
        )

    def written(self) -> set[SSAValue]:
        """The buffers the kernel stores to (`memref.store`, `vector.store`,
        `lowlevel.atomic_inc`)."""
        found: set[SSAValue] = set()
        for op in self.walk():
            if isinstance(op, memref.StoreOp | AtomicIncOp):
                found.add(op.memref)
            elif isinstance(op, vector.StoreOp):
                found.add(op.base)
        return found


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Enqueue `kernel` on `args` with an NDRange of `global_size` / `local_size`."""

    name = "lowlevel.launch"
    kernel = prop_def(SymbolRefAttr)
    global_size = prop_def(DenseArrayBase.constr(I64))
    local_size = prop_def(DenseArrayBase.constr(I64))
    args = var_operand_def(MemRefType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$kernel `(` $args `)` `global` $global_size `local` $local_size attr-dict"
        " `:` type($args)"
    )

    def __init__(
        self,
        kernel: str,
        args: Sequence[SSAValue],
        global_size: Sequence[int],
        local_size: Sequence[int],
    ):
        super().__init__(
            operands=[args],
            properties={
                "kernel": SymbolRefAttr(kernel),
                "global_size": i64_array(global_size),
                "local_size": i64_array(local_size),
            },
        )

    def verify_(self) -> None:
        glb, lcl = self.global_size.get_values(), self.local_size.get_values()
        if len(glb) != 3 or len(lcl) != 3 or any(g % l for g, l in zip(glb, lcl)):
            raise VerifyException("global and local sizes: 3 entries, global a multiple of local")


LowLevel = Dialect(
    "lowlevel",
    [
        ParForOp,
        TileForOp,
        ViewLoadOp,
        LoadWidenedOp,
        RoundTF32Op,
        MmaOp,
        LdMatrixOp,
        CpAsyncOp,
        AsyncCommitOp,
        AsyncWaitOp,
        AccumulateOp,
        CopyOp,
        ViewOp,
        SlotOp,
        MaskCompareOp,
        MaskSelectOp,
        ConvertOp,
        FillOp,
        BarrierOp,
        FenceOp,
        AtomicIncOp,
        GroupIdOp,
        LocalIdOp,
        KernelOp,
        LaunchOp,
    ],
)
