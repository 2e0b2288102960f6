"""`mdh-mma`: compute private tiles of a sum of products on tensor-core fragments.

With `mma` = "tf32", "f16" or "bf16", warp-level fragments (`mdh_ir.schedule.mma` says
how the work goes to warps) compute the private tiles of a sum of products.

It runs after `mdh-place-combine`, on a kernel whose configuration has `mma` other than
"none", and replaces the private-tile loops of the innermost local tile (the reads of
the local copies of A and B and the multiply-adds into each work-item's accumulator) by
the warps' fragments:

    %c = memref.alloca : memref<Ti x Tj x FM x FN x 4 x f32, "prv">   accumulator fragments
    lowlevel.fill %c with 0.0                     where the accumulator is filled
    scf.for s_i, s_j, s_k, q {                    step blocks, k tiles, k fragment steps
      A fragment fm: view_load %a_lcl at (row, k), a lane's four registers per the PTX
        layout: rows r0 + fm*16 + g (+8), columns k0 + t (+4)
      B fragment fn: view_load %b_lcl at (k0 + t (+4), col0 + fn*8 + g)
      %d:4 = lowlevel.mma "tf32" a(...) b(...) c(%c[s_i, s_j, fm, fn, 0..3])
    }

with, for a lane l of the work-group's linear local id (32 consecutive ids a warp),
g = l / 4 and t = l mod 4 (`lowlevel.MmaOp` documents the layout). "tf32" reads f32
elements rounded to TF32 by the copies into the local copies (`round = "tf32"`, set by
`mdh-promote-memory` for an op of precision "tf32"). "f16" and "bf16" (m16n8k16) read the
16-bit elements as stored (`view_load` without widening) at columns k0 + 2t (+8) and
k0 + 2t + 1 (+8) (B: rows), and pack each pair into an i32 register, the lower k in
the low 16 bits (`arith.bitcast` to i16, `extui`, `shli`, `ori`). A fragment's rows
and columns beyond the local tile read inside the local copy (`limits`, as
`mdh-promote-memory`'s reads) and are discarded by the flush; k beyond the local tile
(a padded k loop) reads 0 (the bits of +0 for 16-bit elements), so that it adds nothing.

Where a local copy has two axes, the fragment's rows (A: i, B: j) and k, and rows of
a multiple of 16 bytes (`Matrices`), and the private tiles along k fill the local tile
(no fragment step reaches past the copy, whose rows `ldmatrix` cannot clamp per
element), the warp loads its fragments with
`lowlevel.ldmatrix` instead: with k along the copy's last axis one x4 load per A
fragment (matrices: rows 0-7 and 8-15 at the first half of k, then at the second) and
per two B fragments (the first's two halves of k, then the second's); with the rows
along it (16-bit kinds only) the same by `trans` loads. Lane l gives row l mod 8 of
matrix l / 8, a row beyond the local tile clamped into the copy like the element
reads; in a padded k loop each register keeps only its elements inside the local tile
(`k_mask`: a `select` for TF32, an `andi` with the mask of its valid 16-bit halves),
in the partial local tile only: the whole ones compute in a branch of their own
without masks (`whole_tiles`).

    %a:4 = lowlevel.ldmatrix %a_lcl[r0 + fm*16 + 8 (q mod 2) + l mod 8, k0 + K/2 (q / 2)]
    %b:4 = lowlevel.ldmatrix trans %b_lcl[k0 + K/2 (q mod 2) + l mod 8, c0 + 8 (q / 2)]

An op with outer dimensions (`MmaForm.outer`: a batch, a convolution's pixels and
filter taps; num_wi 1 along them) computes its fragments at every point of them in the
work-group's local tile: the accumulator fragments get an axis per private-tile step
and element of each kept outer dimension, the points of the pw outer dimensions are
summed into the same fragments (a point of a padded local tile beyond its end skipped
by an `scf.if`), and the fragment loads read A and B at the point's values:

    scf.for s_i, s_j, pw outer points, s_k, q {
      fragments of the inputs that read no kept outer dimension
      scf.for kept outer points (s_d, e_d) {
        fragments of the others; mmas into %c[s_d, e_d, ..., s_i, s_j, fm, fn]
      }
    }

The fragments take the place of the work-items' accumulators: a lane holds other
points than its work-item's private tiles, so each flush that `mdh-place-combine` wrote
after the accumulator's scope (loops over the work-item's private points, pt and el
per kept dimension, around what a point's value goes through: the store to the
output, the combine with earlier flushes, the epilogue, a work-group's partial result)
runs over the lane's fragment elements instead. The loops of the kept outer dimensions
stay; those of i and j become the step blocks and, unrolled, the elements of the
lane's fragments, each at its row and column (where i or j is ragged, their loops were
padded, and the flush's own guard discards the points beyond the local tile):

    scf.for s_i, s_j {                   fragment fm, fn, register v (unrolled):
      row = i0 + s_i * block_i + row0 + fm*16 + g + 8 (v / 2)
      col = j0 + s_j * block_j + col0 + fn*8 + 2t + v mod 2
      the flush at (row, col), reading %c[..., s_i, s_j, fm, fn, v]
    }

No local memory and no barrier: each lane writes its own elements (two adjacent
columns of a row by four lanes, 32 bytes of a row of f32 per quarter warp), the two as
one store, also under a padded tile's guards where both hold (`pair_guarded`).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, MemRefType, ModuleOp, VectorType, f32, i1, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mdh_ir.affine import linear_results
from mdh_ir.dialects.lowlevel import (
    LOCAL_SIZE_ATTR,
    PRV,
    FillOp,
    KernelOp,
    LdMatrixOp,
    MMA_KINDS,
    LocalIdOp,
    MmaKind,
    MmaOp,
    TileForOp,
    ViewLoadOp,
    memory_space,
)
from mdh_ir.passes.assign_asm import tile_chain
from mdh_ir.passes.carried import carried
from mdh_ir.passes.emit import Emitter, Value
from mdh_ir.passes.expand import eval_expr
from mdh_ir.passes.kernel_stage import rewritten_by
from mdh_ir.passes.promote_memory import ReadLimits
from mdh_ir.schedule.mma import WARP, MmaPlan
from mdh_ir.schedule.tiling import TilePlan


Ks = list[list[SSAValue]]
"""A lane's k values per half of a fragment's k (one, or two per 16-bit register)."""
Masks = list[SSAValue | None]
"""Per half of k, what keeps its elements inside a padded local tile (`Fragments.k_mask`)."""


@dataclass
class Lane:
    """A work-item's place in its warp: the warp's index in the work-group, the lane
    (its id in the warp) and the lane's group id g = lane / 4 and thread id
    t = lane mod 4."""

    warp: SSAValue
    lane: SSAValue
    g: SSAValue
    t: SSAValue

    @staticmethod
    def of(kernel: KernelOp, e: Emitter) -> "Lane":
        """From the linear local id (OpenCL dimension 0 fastest, as warps are formed)."""
        sizes = kernel.attributes[LOCAL_SIZE_ATTR]
        assert isinstance(sizes, DenseArrayBase)
        terms, stride = [], 1
        for o, n in enumerate(sizes.get_values()):
            if n > 1:
                terms.append((stride, e.emit(LocalIdOp(o))))
            stride *= n
        linear = e.linear(terms)
        lane = e.rem(linear, WARP)
        return Lane(e.div(linear, WARP), lane, e.div(lane, 4), e.rem(lane, 4))


def fragment_k(e: Emitter, kind: MmaKind, t: SSAValue, half: int, element: int) -> SSAValue:
    """The k (A's column, B's row) of `element` of a lane's register in the fragment's
    `half` along k (`lowlevel.MmaOp`): per_register * t + K/2 * half + element."""
    return e.add(e.mul(t, kind.per_register), kind.shape[2] // 2 * half + element)


def packed(e: Emitter, lo: SSAValue, hi: SSAValue) -> SSAValue:
    """Two 16-bit elements in one i32 register, `lo` in the low 16 bits."""
    i16 = IntegerType(16)
    lo, hi = (e.emit(arith.ExtUIOp(e.emit(arith.BitcastOp(v, i16)), i32)) for v in (lo, hi))
    return e.emit(arith.OrIOp(lo, e.emit(arith.ShLIOp(hi, e.const(16, i32)))))


@dataclass(frozen=True)
class Matrices:
    """How `ldmatrix` loads an input's fragments from its local copy: `trans` False
    where the copy stores the fragment's rows (A: i, B: j) along its first axis and k
    contiguous (a matrix row is 16 bytes along k), True where it stores k along its
    first axis and the rows contiguous (16-bit elements: a matrix row is 16 bytes of 8
    fragment rows)."""

    trans: bool

    @staticmethod
    def of(plan: TilePlan, b: int, load: ViewLoadOp, row: int, k: int, kind: MmaKind) -> "Matrices | None":
        """For the reads of input b by `load` (rows along dimension `row`, k along `k`),
        or None where its local copy's layout does not allow it: the copy's last axis
        is not k alone (coefficient 1, k on no other axis) nor, for 16-bit kinds, the
        rows alone, or its rows are not a multiple of 16 bytes."""
        t = load.source.type
        assert isinstance(t, MemRefType)
        forms = linear_results(plan.op.input_maps[b][0])
        assert forms is not None, "MmaForm takes linear maps"
        axes = [forms[a].coeffs for a in plan.cfg.buf_layout[0][b]]

        def alone(d: int) -> bool:
            return axes[-1] == tuple(int(x == d) for x in range(plan.rank)) and not any(a[d] for a in axes[:-1])

        if t.get_shape()[-1] * (4 if kind.per_register == 1 else 2) % 16:
            return None
        if alone(k):
            return Matrices(False)
        return Matrices(True) if kind.per_register == 2 and alone(row) else None

    def offsets(self, e: Emitter, lane: Lane, rows_per: int, ks_per: int, k_half: int) -> tuple[SSAValue, SSAValue]:
        """The row and k a lane adds to its fragment's origin for the address it gives:
        lane l gives row l mod 8 of matrix q = l / 8, which starts at row
        8 (q / rows_per mod 2) and k k_half (q / ks_per mod 2) of the fragment (A: matrices
        (rows, k) in the order of its registers; B: two fragments of 8 columns, each
        by its two halves of k)."""
        q, r = e.div(lane.lane, 8), e.rem(lane.lane, 8)
        row = e.mul(e.rem(e.div(q, rows_per), 2), 8)
        k = e.mul(e.rem(e.div(q, ks_per), 2), k_half)
        return (row, e.add(k, r)) if self.trans else (e.add(row, r), k)


def masked(e: Emitter, value: SSAValue, mask: SSAValue | None) -> SSAValue:
    """`value` with the elements that `mask` (`Fragments.k_mask`) drops 0."""
    if mask is None:
        return value
    if mask.type == i1:
        return e.select(mask, value, e.scalar(0.0, value.type))
    return e.emit(arith.AndIOp(value, mask))


def loop(e: Emitter, trips: int) -> tuple[Value, Emitter]:
    """A constant loop of `trips` (none for one)."""
    return (0, e) if trips == 1 else e.for_(0, trips)


class Fragments:
    """The mma form of one kernel (module docstring)."""

    def __init__(self, kernel: KernelOp, whole_tiles: bool = True):
        self.plan: TilePlan = carried(kernel, kernel.function_type.inputs.data)
        self.whole_tiles = whole_tiles
        mma = MmaPlan.of(self.plan)
        assert isinstance(mma, MmaPlan), f"rule mma: {mma}"
        self.mma, self.form = mma, mma.form
        chain = tile_chain(kernel, "lt")
        self.local = {lp.dim.value.data: lp for lp in chain}
        body = chain[-1].body.block
        self.nest = next(op for op in body.ops if isinstance(op, TileForOp) and op.layer.data == "pt")
        self.reads = {}
        for load in self.nest.walk():
            if isinstance(load, ViewLoadOp):
                self.reads[0 if self.form.i in load.map.data.used_dims() else 1] = load
        self.kind = MMA_KINDS[self.plan.cfg.mma]
        (self.acc,) = {
            op.memref for op in self.nest.walk() if isinstance(op, memref.StoreOp) and memory_space(op.memref.type) == "prv"
        }
        self.fill = next(op for op in kernel.walk() if isinstance(op, FillOp) and op.dest == self.acc)
        self.limits = ReadLimits(self.plan, self.local, body)
        top = Emitter.at_start(kernel.body.block)
        self.trips = [self.plan.max_trips("pt", d) for d in (self.form.i, self.form.j)]
        m = self.mma
        per_point = [x for d in self.form.kept for x in (self.plan.max_trips("pt", d), self.plan.cfg.pt_size[d])]
        shape = [*per_point, *self.trips, m.frags_m, m.frags_n, m.shape[0] * m.shape[1] // WARP]
        self.c = top.emit(memref.AllocaOp.get(f32, shape=shape, memory_space=PRV))
        self.lane = Lane.of(kernel, top)
        self.row0 = top.mul(top.div(self.lane.warp, m.warps_n), m.warp_rows)
        self.col0 = top.mul(top.rem(self.lane.warp, m.warps_n), m.warp_cols)
        self.matrices: dict[int, tuple[Matrices, SSAValue, SSAValue]] = {}
        self.masking = True  # whether `k_mask` masks a padded k (`compute_tiles`)
        k_half = m.shape[2] // 2
        cfg, k = self.plan.cfg, self.form.k
        whole = cfg.lt_size[k] % cfg.pt_size[k] == 0  # no fragment step reads past the copy
        for b, row, (rows_per, ks_per) in ((0, self.form.i, (1, 2)), (1, self.form.j, (2, 1))):
            how = Matrices.of(self.plan, b, self.reads[b], row, self.form.k, self.kind)
            if how is not None and whole:
                self.matrices[b] = (how, *how.offsets(top, self.lane, rows_per, ks_per, k_half))

    def run(self) -> None:
        after_fill = Emitter(InsertPoint.after(self.fill))
        after_fill.op(FillOp(self.c, after_fill.scalar(0.0, f32)))
        self.compute_tiles(Emitter.before(self.nest))
        self.nest.detach()
        self.nest.erase()
        flushes = dict.fromkeys(flush_nest(use.operation) for use in self.acc.uses if use.operation is not self.fill)
        for flush in flushes:
            self.flush(flush)
        alloca = self.acc.owner
        self.fill.detach()
        self.fill.erase()
        alloca.detach()  # type: ignore[union-attr]
        alloca.erase()  # type: ignore[union-attr]

    def read(self, e: Emitter, b: int, at: dict[int, SSAValue]) -> SSAValue:
        """Input b's local copy at the dimensions' values `at`, as the mma's kind takes
        it: f32 as stored (rounded to TF32 by the copies), 16-bit elements as
        stored; 0 at a k beyond the local tile (a padded k loop)."""
        old = self.reads[b]
        dims = [at[d] if d in at else e.const(0) for d in range(self.plan.rank)]
        limits = self.limits.of("lcl", old.map, dims)
        value = e.emit(ViewLoadOp(old.source, dims, old.syms, old.map, "none", limits=limits, widen=False))
        return masked(e, value, self.k_mask(e, [at[self.form.k]]))

    def k_mask(self, e: Emitter, ks: list[SSAValue]) -> SSAValue | None:
        """What keeps the elements at k `ks` (one element, or the two 16-bit elements of
        an i32 register) that lie inside the local tile, for `masked`: whether the one
        does, or the register's bits of those that do; None where k is not padded."""
        k = self.form.k
        if not self.plan.padded(k) or not self.masking:
            return None
        lt = self.local[k]
        end = e.add(lt.tile_start, lt.tile_size)
        inside = [e.cmp("slt", x, end) for x in ks]
        if len(ks) == 1:
            return inside[0]
        halves = [e.select(c, e.const(bits, i32), e.const(0, i32)) for c, bits in zip(inside, (0xFFFF, -0x10000))]
        return e.emit(arith.OrIOp(*halves))

    def points(self, e: Emitter, kept: bool) -> tuple[dict[int, tuple[Value, Value, SSAValue]], Emitter | None]:
        """Loops over the work-group's points of the kept (or pw) outer dimensions: per
        dimension its private-tile step, element and value (num_wi 1: the local tile's
        start + step * pt_size + element), and the emitter inside them, where a padded
        pw dimension's point lies in its local tile (None where it never does)."""
        points: dict[int, tuple[Value, Value, SSAValue]] = {}
        inner: Emitter | None = e
        for d in self.form.outer:
            if (d in self.form.kept) != kept:
                continue
            pt = self.plan.cfg.pt_size[d]
            s, e = loop(e, self.plan.max_trips("pt", d))
            x, e = loop(e, pt)
            lt = self.local[d]
            points[d] = (s, x, e.linear([(1, lt.tile_start), (pt, s), (1, x)]))
            if not kept and self.plan.padded(d):
                e = e.if_(e.cmp("slt", points[d][2], e.add(lt.tile_start, lt.tile_size)))  # type: ignore[assignment]
                if e is None:
                    return points, None
        return points, e

    def ldmatrix(
        self, e: Emitter, b: int, row: int, origin: SSAValue, k0: SSAValue, count: int, fixed: dict[int, SSAValue]
    ) -> list[SSAValue]:
        """`count` registers of input b by `ldmatrix` (`Matrices`): the fragment(s)
        whose rows (along dimension `row`) start at `origin`, k at `k0`; a lane's row
        beyond the local tile reads inside the copy (its `limits`; for a transposed
        copy the last 8 rows that start at a multiple of 8 from the tile's start, so
        that the address stays 16-byte aligned and the tile's own rows in place), a k
        beyond it reads the copy's stale elements (dropped by `masked`)."""
        old = self.reads[b]
        how, d_row, d_k = self.matrices[b]
        at = {**fixed, row: e.add(origin, d_row), self.form.k: e.add(k0, d_k)}
        dims = [at[d] if d in at else e.const(0) for d in range(self.plan.rank)]
        limits = self.limits.of("lcl", old.map, dims)
        if limits and limits[row] is not dims[row]:
            # transposed: a lane's address holds 8 consecutive rows, from a multiple
            # of 8 past the tile's start; clamped to the last such start in the tile
            last = e.sub(limits[row], (self.plan.cfg.lt_size[row] - 1) % 8) if how.trans else limits[row]
            dims[row] = e.min(dims[row], last)
        index = [e.value(eval_expr(e, r, dims, old.syms)) for r in old.map.data.results]
        return list(e.op(LdMatrixOp(old.source, index, count, how.trans)).results)

    def register(self, e: Emitter, b: int, at: dict[int, SSAValue], ks: list[SSAValue]) -> SSAValue:
        """One A or B register: input b's elements at `at` and the k values `ks` (one,
        or two packed)."""
        values = [self.read(e, b, {**at, self.form.k: k}) for k in ks]
        return values[0] if len(values) == 1 else packed(e, *values)

    def compute_tiles(self, e: Emitter) -> None:
        """`compute`; where k's local tiles are padded and their private tiles fill them,
        twice: without masks where the local tile is whole (every k step reads inside
        the sum), with them only in the partial one (the masks' compares, selects and
        ands at every step: H100, f16 2048 x 2048 x 2000 0.0632 ms, 0.0528 without,
        2048^3 0.0540)."""
        cfg, k = self.plan.cfg, self.form.k
        if not self.whole_tiles or not self.plan.padded(k) or cfg.lt_size[k] % cfg.pt_size[k]:
            self.compute(e)
            return
        whole = e.cmp("eq", self.local[k].tile_size, cfg.lt_size[k])
        self.masking = False
        self.compute(e.if_(whole))  # type: ignore[arg-type]
        self.masking = True
        self.compute(e.if_(e.emit(arith.XOrIOp(whole, e.const(1, i1)))))  # type: ignore[arg-type]

    def compute(self, e: Emitter) -> None:
        """The fragment loop nest in place of the private-tile loops: the step blocks,
        the points of the pw outer dimensions, the k steps, then the points of the kept
        outer dimensions innermost, so that an input that reads none of them (a
        convolution's filter along q) loads its fragments once for all of them (NVIDIA's
        compiler merged the repeated loads of the other order itself: the same time)."""
        plan, form, m = self.plan, self.form, self.mma
        cfg, lane = plan.cfg, self.lane
        s_i, e = loop(e, self.trips[0])
        s_j, e = loop(e, self.trips[1])
        summed, inner = self.points(e, kept=False)
        if inner is None:
            return
        e = inner
        s_k, e = loop(e, plan.max_trips("pt", form.k))
        q, e = loop(e, cfg.pt_size[form.k] // m.shape[2])
        k0 = e.linear([(1, self.local[form.k].tile_start), (cfg.pt_size[form.k], s_k), (m.shape[2], q)])
        per = self.kind.per_register
        kt = [[e.add(k0, fragment_k(e, self.kind, lane.t, v, x)) for x in range(per)] for v in range(2)]
        masks = [self.k_mask(e, kt[v]) for v in range(2)] if self.matrices else [None, None]
        starts = self.warp_origin(e, s_i, s_j)
        load = (self.a_registers, self.b_registers)
        fixed = {d: value for d, (_, _, value) in summed.items()}
        shared = [not self.form.reads[b].intersection(self.form.kept) for b in range(2)]
        regs = {b: load[b](e, starts[b], k0, kt, masks, fixed) for b in range(2) if shared[b]}
        kept, e = self.points(e, kept=True)
        fixed.update({d: value for d, (_, _, value) in kept.items()})
        regs.update({b: load[b](e, starts[b], k0, kt, masks, fixed) for b in range(2) if not shared[b]})
        for fm in range(m.frags_m):
            for fn in range(m.frags_n):
                at = [*(x for s, el, _ in kept.values() for x in (s, el)), s_i, s_j, fm, fn]
                acc = [e.load(self.c, [*at, v]) for v in range(4)]
                mma = e.op(MmaOp(cfg.mma, regs[0][fm], regs[1][fn], acc))
                for v, d in enumerate(mma.results):
                    e.store(d, self.c, [*at, v])

    def warp_origin(self, e: Emitter, s_i: Value, s_j: Value) -> list[SSAValue]:
        """The row and column where the warp's tile starts in step block (s_i, s_j): the
        local tile's start, the step's block, the warp's place in it."""
        form, block = self.form, self.mma.block
        return [
            e.linear([(1, self.local[d].tile_start), (block[x], step), (1, origin)])
            for x, (d, step, origin) in enumerate(((form.i, s_i, self.row0), (form.j, s_j, self.col0)))
        ]

    def a_registers(
        self, e: Emitter, rows: SSAValue, k0: SSAValue, kt: Ks, masks: Masks, fixed: dict[int, SSAValue]
    ) -> list[list[SSAValue]]:
        """Per A fragment of the warp tile whose rows start at `rows`, k at `k0`, the
        lane's four registers (k values `kt` per half of k, `masks` per half where k is
        padded, the outer dimensions at `fixed`)."""
        m, form, lane = self.mma, self.form, self.lane
        a: list[list[SSAValue]] = []
        for fm in range(m.frags_m):
            if 0 in self.matrices:
                regs = self.ldmatrix(e, 0, form.i, e.add(rows, fm * m.shape[0]), k0, 4, fixed)
                a.append([masked(e, reg, masks[v // 2]) for v, reg in enumerate(regs)])
                continue
            r = [e.add(e.add(rows, lane.g), fm * m.shape[0] + 8 * h) for h in range(2)]
            a.append([self.register(e, 0, {**fixed, form.i: r[h]}, kt[v]) for v in range(2) for h in range(2)])
        return a

    def b_registers(
        self, e: Emitter, cols: SSAValue, k0: SSAValue, kt: Ks, masks: Masks, fixed: dict[int, SSAValue]
    ) -> list[list[SSAValue]]:
        """Per B fragment of the warp tile whose columns start at `cols`, the lane's two
        registers (`a_registers`)."""
        m, form, lane = self.mma, self.form, self.lane
        b: list[list[SSAValue]] = []
        for fn in range(m.frags_n):
            if 1 in self.matrices:
                if fn % 2 == 0:
                    count = 4 if fn + 1 < m.frags_n else 2
                    regs = self.ldmatrix(e, 1, form.j, e.add(cols, fn * m.shape[1]), k0, count, fixed)
                    regs = [masked(e, reg, masks[v % 2]) for v, reg in enumerate(regs)]
                    b.extend(regs[x : x + 2] for x in range(0, len(regs), 2))
                continue
            c = e.add(e.add(cols, lane.g), fn * m.shape[1])
            b.append([self.register(e, 1, {**fixed, form.j: c}, kt[v]) for v in range(2)])
        return b

    def flush(self, nest: TileForOp) -> None:
        """Flush `nest` (the accumulator's loops, then what a point's value goes
        through) over the lane's fragment elements instead of the work-item's private
        points (module docstring): the loops of the kept outer dimensions stay; those of
        i and j become the step blocks and the fragments' elements, each element's row
        and column the values the flush sees (where i or j is ragged, its loops were
        padded, and the flush discards the points beyond the local tile itself)."""
        form, m, lane = self.form, self.mma, self.lane
        chain = [nest]
        while isinstance(inner := chain[-1].body.block.first_op, TileForOp) and inner is chain[-1].body.block.last_op:
            chain.append(inner)
        e = Emitter.before(nest)
        mapping: dict[SSAValue, SSAValue] = {}
        points: dict[tuple[str, int], SSAValue] = {}
        for lp in chain:
            d = lp.dim.value.data
            if d in (form.i, form.j):
                points[(lp.layer.data, d)] = lp.body.block.args[1]
                continue
            args = [mapping.get(x, x) for x in (lp.start, lp.size, lp.part)]
            kept = TileForOp(
                lp.layer.data, d, args[0], args[1], lp.tile.value.data, lp.parts.value.data, args[2],
                lp.max_trips.value.data, padded=lp.padded is not None,
            )  # fmt: skip
            e.op(kept)
            mapping.update(zip(lp.body.block.args, kept.body.block.args))
            e = Emitter.at_start(kept.body.block)
        s_i, e = loop(e, self.trips[0])
        s_j, e = loop(e, self.trips[1])
        starts = self.warp_origin(e, s_i, s_j)
        cols = e.add(starts[1], e.mul(lane.t, 2))
        axes = {lp: x for x, lp in enumerate(self.plan.acc_loops)}
        for fm in range(m.frags_m):
            for fn in range(m.frags_n):
                for h in range(2):
                    row = e.add(starts[0], e.add(lane.g, fm * m.shape[0] + 8 * h))
                    stores: list[memref.StoreOp] = []
                    guarded: list[scf.IfOp] = []
                    for v in (2 * h, 2 * h + 1):
                        col = e.add(cols, fn * m.shape[1] + v % 2)
                        values = {**mapping, points[("el", form.i)]: row, points[("el", form.j)]: col}
                        element = [e.value(x) for x in (s_i, s_j, fm, fn, v)]
                        clones = [e.op(op.clone(values)) for op in chain[-1].body.block.ops]
                        for load in [x for op in clones for x in op.walk() if isinstance(x, memref.LoadOp)]:
                            if load.memref == self.acc:
                                steps = [load.indices[axes[(layer, d)]] for d in form.kept for layer in ("pt", "el")]
                                Rewriter.replace_op(load, memref.LoadOp.get(self.c, [*steps, *element]))
                        stores += [op for op in clones if isinstance(op, memref.StoreOp)]
                        guarded += [op for op in clones if isinstance(op, scf.IfOp)]
                    if len(stores) == 2:
                        self.pair(*stores, col)
                    elif not stores and len(guarded) == 2:
                        self.pair_guarded(*guarded, col)
        nest.detach()
        nest.erase()

    def pair(self, first: memref.StoreOp, second: memref.StoreOp, column: SSAValue) -> None:
        """The stores of a lane's two fragment elements of adjacent columns (registers
        v and v + 1), where each stores its element as it is at the same indices but the
        last, the column: as one store of two lanes (`lowlevel-align-vectors` then finds
        it aligned: a row of quarter-warp's stores fills 32 bytes in one access, not
        two)."""
        loads = self.pairable(first, second, column)
        if loads is None:
            return
        self.paired(Emitter.before(second), loads[0], first)
        for op in (first, second, *loads):
            if not op.results or not op.results[0].uses:
                op.detach()
                op.erase()

    def pair_guarded(self, first: scf.IfOp, second: scf.IfOp, column: SSAValue) -> None:
        """`pair` for the stores of a padded tile's flush, each of one element under its
        own guard (an `scf.if` holding only the element's load and store): one store of
        both where both guards hold, each element alone where only its guard does (a
        partial tile's lanes stored element by element took 18% longer, H100, f16 2000 x
        2048 x 2048: 0.0645 -> 0.0551 ms paired; 2048^3 0.0542)."""
        bodies = [list(x.true_region.block.ops) for x in (first, second)]
        if any(x.false_region.blocks or len(ops) != 3 for x, ops in zip((first, second), bodies)):
            return
        stores = [ops[1] for ops in bodies]
        if not all(isinstance(x, memref.StoreOp) for x in stores):
            return
        loads = self.pairable(*stores, column)  # type: ignore[arg-type]
        if loads is None or any(load is not ops[0] for load, ops in zip(loads, bodies)):
            return
        held = [first.cond, second.cond]
        e = Emitter(InsertPoint.after(second))
        both = e.if_(e.and_(*held))
        assert both is not None
        self.paired(both, loads[0], stores[0])  # type: ignore[arg-type]
        for guard, cond, other in ((first, held[0], held[1]), (second, held[1], held[0])):
            alone = e.and_(cond, e.emit(arith.XOrIOp(other, e.const(1, i1))))
            guard.detach()
            e.op(guard)
            guard.operands = [alone]

    def pairable(
        self, first: memref.StoreOp, second: memref.StoreOp, column: SSAValue
    ) -> list[memref.LoadOp] | None:
        """The accumulator loads whose values `first` and `second` store, where they
        store them as they are at adjacent columns (`second` at `column`) of the same
        row; None elsewhere."""
        loads = [x.value.owner for x in (first, second)]
        if not all(isinstance(x, memref.LoadOp) and x.memref == self.c for x in loads):
            return None
        if first.memref != second.memref or second.indices[-1] != column:
            return None
        if list(first.indices[:-1]) != list(second.indices[:-1]):
            return None
        return loads  # type: ignore[return-value]

    def paired(self, e: Emitter, load: memref.LoadOp, store: memref.StoreOp) -> None:
        """One store of the two accumulator elements from `load`'s on, where `store`
        stores the first."""
        pair = e.emit(vector.LoadOp(self.c, load.indices, VectorType(f32, [2])))
        e.op(vector.StoreOp(pair, store.memref, store.indices))


def flush_nest(load: Operation) -> TileForOp:
    """The outermost of the private-tile loops (pt, el) around an accumulator's load."""
    nest = load.parent_op()
    while isinstance(outer := nest.parent_op(), TileForOp) and outer.layer.data in ("pt", "el"):
        nest = outer
    assert isinstance(nest, TileForOp), "the accumulator is read in its private-tile loops"
    return nest


def uses_mma(kernel: KernelOp) -> bool:
    """Whether `kernel` computes an op's points (it has tile loops; not a combine or scan
    kernel) under a configuration with `mma`."""
    if not any(isinstance(op, TileForOp) for op in kernel.walk()):
        return False
    return carried(kernel, kernel.function_type.inputs.data).cfg.mma != "none"


@dataclass(frozen=True)
class MDHMma(ModulePass):
    name = "mdh-mma"

    whole_tiles: bool = True
    """Whether whole local tiles along a padded k compute in a branch of their own,
    without masks (`Fragments.compute_tiles`); off for emulated fragments
    (`lowlevel-expand-mma`, whose barriers in each mma PoCL 3.1 miscompiles inside the
    two branches: wrong sums, where Oclgrind runs the same program right)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in rewritten_by(self.name, op):
            if uses_mma(kernel):
                Fragments(kernel, self.whole_tiles).run()
