"""Static facts of a configured computation, shared by the constraint check and the passes.

For dimension d of size N with num_wg G, num_wi W, lt_size L and pt_size P:

- layer "lt": [0, N) is cut into ceil(N/L) local tiles; tile t goes to work-group
  t mod G, which visits its tiles in increasing order (at most ceil(ceil(N/L)/G) steps);
- layer "pt": a local tile (L elements, fewer for the last) is cut into private tiles of
  P elements; private tile u goes to work-item u mod W (at most ceil(ceil(L/P)/W) steps);
- layer "el": the elements of a private tile, in order (at most P).

Where some tile of d is partial (N not a multiple of L, L not a multiple of P, or the
private tiles of a local tile not a multiple of W), the private-tile loop of d is
*padded* (`padded`): every work-item runs `max_trips("pt", d)` whole private tiles in
every local tile, so the trip counts of the private and element loops are constants
(unrolled, accumulators indexed by constants: registers) in every work-group, not only
in those whose tiles are whole. A point of the padding (beyond its local tile) reads
inside memory (clamped reads) and what it computes is discarded.

The loop nest of a work-item is the "lt" loops in `loop_order[0]`, then the "pt" loops
in `loop_order[1]`, then the "el" loops in the same order. For computations with `pw`
dimensions, a work-item accumulates its results in an accumulator that lives across the
*scope*: the loops from `scope_start` on (chosen by `combine_layer`); after each run of
the scope the accumulator is flushed (combined across work-items, then into the output).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from mdh_ir.affine import Linear, linear_results
from mdh_ir.schedule.combine import meaning
from mdh_ir.schedule.config import Config
from mdh_ir.dialects.mdh import Combine, ComputeOp

Loop = tuple[str, int]
"""A loop of the work-item's nest: (layer, dimension)."""

COPY_LANES = 4
"""Elements a cooperative copy into local memory moves at once when its innermost extent
allows (`mdh-promote-memory`); into a swizzled buffer, a 16-byte chunk's worth where
the extent and the source's rows allow (`TilePlan.copy_lanes`)."""


def element_bytes(t) -> int:
    """Bytes of an element of type `t` (f16 and bf16: 2)."""
    return (t.width.data if isinstance(t, IntegerType) else t.bitwidth) // 8


CHUNK_BYTES = 16
"""The unit a swizzled local buffer permutes within its rows (`lcl_swizzle`): the 16
bytes an `ldmatrix` row or a widest copy moves."""


def swizzle_chunks(row_bytes: int) -> int | None:
    """The 16-byte chunks of a local row that `lcl_swizzle` permutes, or None where
    it leaves rows of `row_bytes` as they are: only rows of a power of two of chunks, at
    least two, are permuted (`lowlevel-swizzle-local` gives the XOR)."""
    chunks = row_bytes // CHUNK_BYTES
    if row_bytes % CHUNK_BYTES or chunks < 2 or chunks & (chunks - 1):
        return None
    return chunks


FULL_UNROLL = 64
"""The longest constant loop touching private arrays that `lowlevel-expand` unrolls fully
(so the arrays stay in registers); the defaults plan vector pieces within it."""


def ceildiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Box:
    """The region of an input buffer a tile reads: per buffer axis, its extent."""

    extents: tuple[int, ...]
    forms: tuple[tuple[Linear, ...], ...]
    """Per access, per axis, the linear index form."""

    @property
    def size(self) -> int:
        return prod(self.extents)

    def shape(self, perm) -> list[int]:
        """The extents in buffer axis order `perm` (a `buf_layout` entry)."""
        return [self.extents[p] for p in perm]


@dataclass(frozen=True)
class ScanShape:
    """How the lines of a scan (`mdh_ir.passes.scan`) go to work-groups: each takes one
    chunk of `rows` lines, with `items` work-items of `per_item` consecutive elements
    along each line; local ids run along the lines first (`items_fastest`, for lines
    contiguous in memory) or across them."""

    length: int
    lines: int
    items: int
    per_item: int
    rows: int
    items_fastest: bool

    @staticmethod
    def of(length: int, lines: int, tile: int, items: int, rows: int, items_fastest: bool) -> ScanShape:
        """Chunks of about `tile` elements shared by `items` work-items (fewer where a
        line is shorter), `rows` lines (at most all) a work-group."""
        tile = min(tile, length)
        per_item = ceildiv(tile, min(items, tile))
        return ScanShape(length, lines, ceildiv(tile, per_item), per_item, min(rows, lines), items_fastest)

    @property
    def chunk(self) -> int:
        return self.items * self.per_item

    @property
    def chunks(self) -> int:
        return ceildiv(self.length, self.chunk)

    @property
    def group_size(self) -> int:
        return self.items * self.rows

    @property
    def groups(self) -> int:
        return ceildiv(self.lines, self.rows) * self.chunks

    @property
    def staged(self) -> bool:
        """Whether the chunk kernels copy their chunk through local memory (work-items
        of several consecutive elements each, along lines contiguous in memory), so that
        global memory is read and written by consecutive work-items at consecutive
        elements."""
        return self.items > 1 and self.per_item > 1 and self.items_fastest

    @property
    def staged_length(self) -> int:
        """A line's chunk in local memory: one element of padding after every 32 (none
        in a chunk of at most 32)."""
        return self.chunk + self.chunk // 32 if self.chunk > 32 else self.chunk

    @property
    def local_elems(self) -> int:
        """Local memory of a chunk kernel, in elements of each scanned buffer: the
        staged chunks and the work-items' totals of each line."""
        staged = self.staged_length if self.staged else 0
        return self.rows * (staged + self.items) if self.items > 1 or staged else 0


class TilePlan:
    """Everything the lowering derives from (op, config) alone."""

    def __init__(self, op: ComputeOp, cfg: Config, scope: Operation | None = None):
        self.op = op
        self.cfg = cfg
        self.lookup_scope = op if scope is None else scope
        """Where the op's functions are looked up from (an op of their module)."""
        self.sizes = op.sizes
        self.rank = len(self.sizes)
        self.combines: list[Combine] = op.combines

    # --- dimensions ----------------------------------------------------------------

    def kind(self, d: int) -> str:
        return self.combines[d].kind

    @cached_property
    def pw_dims(self) -> list[int]:
        return [d for d in range(self.rank) if self.kind(d) == "pw"]

    @cached_property
    def kept_dims(self) -> list[int]:
        return [d for d in range(self.rank) if self.kind(d) != "pw"]

    def tile(self, layer: str, d: int) -> int:
        return {"lt": self.cfg.lt_size, "pt": self.cfg.pt_size}[layer][d] if layer != "el" else 1

    def max_trips(self, layer: str, d: int) -> int:
        n, cfg = self.sizes[d], self.cfg
        if layer == "lt":
            return ceildiv(ceildiv(n, cfg.lt_size[d]), cfg.num_wg[d])
        if layer == "pt":
            return ceildiv(ceildiv(cfg.lt_size[d], cfg.pt_size[d]), cfg.num_wi[d])
        return cfg.pt_size[d]

    def ragged(self, d: int) -> bool:
        """Whether some private tile of dimension d is partial or missing in some local
        tile: the trip counts of its private and element loops vary between tiles."""
        n, lt, pt, wi = self.sizes[d], self.cfg.lt_size[d], self.cfg.pt_size[d], self.cfg.num_wi[d]
        return bool(n % lt or lt % pt or ceildiv(lt, pt) % wi)

    def padded(self, d: int) -> bool:
        """Whether the private-tile loop of dimension d is padded (module docstring): it
        is ragged, and, for a pw dimension, its combine function has a known identity
        (an accumulator without one takes its first value as is, which a discarded
        point must not be)."""
        if not self.ragged(d):
            return False
        return self.kind(d) != "pw" or meaning(self.lookup_scope, self.combines[d]) is not None

    def partial_vectors(self, d: int) -> bool:
        """Whether some vector of `vector_width` lanes along dimension d (they step from
        a private tile's start) holds both points of its local tile and padding: the
        size or lt_size of d is not a multiple of the width (`mdh-vectorize` splits
        such a vector off to scalar code)."""
        lanes = self.cfg.vector_width
        return lanes > 1 and bool(self.sizes[d] % lanes or self.cfg.lt_size[d] % lanes)

    def padded_reach(self, d: int) -> int:
        """Elements from a local tile's start that its padded private tiles cover."""
        return self.cfg.num_wi[d] * self.max_trips("pt", d) * self.cfg.pt_size[d]

    # --- the work-item's loop nest -------------------------------------------------------

    @cached_property
    def nest(self) -> list[Loop]:
        lt, pt = self.cfg.loop_order
        return [("lt", d) for d in lt] + [("pt", d) for d in pt] + [("el", d) for d in pt]

    @cached_property
    def scope_start(self) -> int:
        """Index in `nest` of the outermost loop the accumulator lives across."""
        layer = self.cfg.combine_layer
        if layer == "lt":
            return self.rank
        ends = [
            i + 1
            for i, (lay, d) in enumerate(self.nest)
            if lay == ("lt" if layer == "end" else "pt") and self.kind(d) != "pw"
        ]
        return ends[-1] if ends else (0 if layer == "end" else self.rank)

    @cached_property
    def scope(self) -> list[Loop]:
        return self.nest[self.scope_start :]

    @cached_property
    def acc_loops(self) -> list[Loop]:
        """The kept-dimension loops inside the scope: one accumulator axis each."""
        return [lp for lp in self.scope if self.kind(lp[1]) != "pw"]

    @cached_property
    def acc_extents(self) -> list[int]:
        return [self.max_trips(*lp) for lp in self.acc_loops]

    @cached_property
    def outer_pw_loops(self) -> list[Loop]:
        """pw loops outside the scope: each flush is combined into earlier flushes."""
        return [lp for lp in self.nest[: self.scope_start] if self.kind(lp[1]) == "pw"]

    @property
    def accumulates(self) -> bool:
        return bool(self.pw_dims)

    @cached_property
    def cross_wi(self) -> bool:
        """Whether work-items' partial results are combined in local memory."""
        return any(self.cfg.num_wi[d] > 1 for d in self.pw_dims)

    @cached_property
    def kept_points(self) -> int:
        """Points of the kept dimensions: the elements of each output."""
        return prod(self.sizes[d] for d in self.kept_dims)

    @cached_property
    def pw_groups(self) -> int:
        """Number of work-group partial results per output element."""
        return prod(self.cfg.num_wg[d] for d in self.pw_dims)

    @cached_property
    def kept_groups(self) -> int:
        """Number of work-groups along the kept dimensions: sets of work-groups that
        share their output elements."""
        return prod(self.cfg.num_wg[d] for d in self.kept_dims)

    @cached_property
    def group_extents(self) -> list[int]:
        """Per kept dimension, the points of one kept work-group's local tiles, the excess
        of a partial tile counted."""
        return [self.max_trips("lt", d) * self.cfg.lt_size[d] for d in self.kept_dims]

    @cached_property
    def group_points(self) -> int:
        """Points of the kept dimensions in the local tiles of one kept work-group (the
        `group_extents`): the output elements whose partial results the last of its
        work-groups combines (`wg_combine` "last")."""
        return prod(self.group_extents)

    @cached_property
    def combine_lanes(self) -> int:
        """Work-items of the last work-group that share each output element's partial
        results (`wg_combine` "last"): the largest power of two that fits the work-group
        beside the other elements and leaves each at least one partial result."""
        fit = min(self.wg_size // self.group_points, self.pw_groups)
        return 1 << (fit.bit_length() - 1) if fit > 1 else 1

    @cached_property
    def wg_size(self) -> int:
        return prod(self.cfg.num_wi)

    @cached_property
    def pw_wis(self) -> int:
        return prod(self.cfg.num_wi[d] for d in self.pw_dims)

    def scan_shape(self, d: int) -> ScanShape:
        """The scan of `ps` dimension d: a chunk of a line is d's local tile, shared by
        its work-items along d; the work-items of the other kept dimensions take
        lines."""
        others = [k for k in self.kept_dims if k != d]
        lines = prod(self.sizes[k] for k in others)
        rows = prod(self.cfg.num_wi[k] for k in others)
        contiguous = self.op.output_maps[0].results[-1].position == d  # type: ignore[attr-defined]
        return ScanShape.of(self.sizes[d], lines, self.cfg.lt_size[d], self.cfg.num_wi[d], rows, contiguous)

    @cached_property
    def scan_temp_elems(self) -> int:
        """Elements of each output's scan temporaries: the chunks' totals of every `ps`
        dimension's lines, where a line has several chunks."""
        shapes = [self.scan_shape(d) for d in self.kept_dims if self.kind(d) == "ps"]
        return sum(s.lines * s.chunks for s in shapes if s.chunks > 1)

    # --- input boxes -------------------------------------------------------------------

    def tile_extents(self, layer: str) -> list[int]:
        return list(self.cfg.lt_size if layer == "lt" else self.cfg.pt_size)

    def box(self, b: int, layer: str) -> Box | None:
        """The region of input b read by one tile of `layer`; None if its accesses
        cannot share one box (different slopes)."""
        forms = [linear_results(m) for m in self.op.input_maps[b]]
        first = forms[0]
        if any(
            not f.same_slope(g) for access in forms for f, g in zip(access, first)  # type: ignore
        ):
            return None
        tile = self.tile_extents(layer)
        extents = []
        for axis in range(len(first)):  # type: ignore[arg-type]
            consts = [access[axis].const for access in forms]  # type: ignore[index]
            extents.append(first[axis].extent(tile) + max(consts) - min(consts))  # type: ignore
        return Box(tuple(extents), tuple(tuple(f) for f in forms))  # type: ignore[arg-type]

    def inside_axes(self, b: int) -> list[bool]:
        """Per axis of input b, whether every local tile's box stays inside the buffer
        along it: the tiles start at multiples of lt_size, and the box of the last one
        is a full tile's."""
        tile = self.tile_extents("lt")
        upper = [ceildiv(n, t) * t - 1 for n, t in zip(self.sizes, tile)]
        shape = self.op.inputs[b].type.get_shape()  # type: ignore[attr-defined]
        accesses = [linear_results(m) for m in self.op.input_maps[b]]
        return [
            all(0 <= lo and hi < n for lo, hi in [access[a].range_over([0] * self.rank, upper) for access in accesses])
            for a, n in enumerate(shape)
        ]

    def inside(self, b: int) -> bool:
        """Whether every local tile's box of input b lies inside the buffer."""
        return all(self.inside_axes(b))

    def local_shape(self, b: int) -> list[int]:
        """The shape of input b's local buffer: its local box in `buf_layout` axis order,
        rows (the innermost axis) `lcl_pad` elements longer where it has several axes."""
        shape = self.box(b, "lt").shape(self.cfg.buf_layout[0][b])  # type: ignore[union-attr]
        if len(shape) > 1:
            shape[-1] += self.cfg.lcl_pad
        return shape

    def swizzled(self, b: int) -> bool:
        """Whether input b's local buffer has its rows' chunks permuted (`lcl_swizzle`,
        rows of a power of two of 16-byte chunks, at least two, and several axes)."""
        shape = self.local_shape(b)
        if not self.cfg.lcl_swizzle or len(shape) < 2:
            return False
        return swizzle_chunks(shape[-1] * element_bytes(self.op.input_element_types[b])) is not None

    def copy_lanes(self, b: int, aligned: bool = False) -> int:
        """Elements input b's local copy moves at once along its innermost axis: into a
        swizzled buffer a 16-byte chunk's worth where its rows and the source's are
        multiples of it (16-byte `cp.async`; H100, f16 4096^3 in 128 x 128 x 32 tiles,
        3 slots: 0.537 -> 0.388 ms); with `aligned`, the widest of `COPY_LANES`, half
        of it, ... that divides both rows (vectors aligned to their size,
        `mdh-promote-memory`); else `COPY_LANES` where its rows are a multiple; else 1."""
        shape = self.box(b, "lt").shape(self.cfg.buf_layout[0][b])  # type: ignore[union-attr]
        if not shape:
            return 1
        row = shape[-1]
        chunk = CHUNK_BYTES // element_bytes(self.op.input_element_types[b])
        source = self.op.inputs[b].type.get_shape()[-1]  # type: ignore[attr-defined]
        if self.swizzled(b) and row % chunk == 0 and source % chunk == 0:
            return chunk
        widest = max(n for n in (COPY_LANES, COPY_LANES // 2, 1) if row % n == 0 and source % n == 0)
        if aligned and widest > 1:
            return widest
        return COPY_LANES if row % COPY_LANES == 0 else 1

    def cached(self, layer: str) -> list[int]:
        """Input buffers cached at `layer` ("lt": in local, "pt": in private memory)."""
        mem = self.cfg.inp_mem[0 if layer == "lt" else 1]
        return [b for b, m in enumerate(mem) if m != "glb"]
