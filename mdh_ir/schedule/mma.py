"""The warp-level tensor-core plan of a configuration with `mma` other than "none".

A warp-level `mma.sync` computes D = A B + C for one fragment: A of M x K, B of K x N,
C and D of M x N, spread over the 32 lanes of a warp (TF32: m16n8k8; f16 and bf16:
m16n8k16). It applies to an op that is a sum of products of two reads (`MmaForm`):
pw dimensions combined by addition, a scalar function that multiplies its two
arguments, input A read at rows i and k and input B at k and columns j, where k is a pw
dimension both read, i a kept dimension only A reads and j one only B reads (matmul,
matmul_t; bmatmul and convolutions, whose other dimensions are `outer`). The index maps
are linear, in any axis order; the fragments read A(i, k) and B(k, j) at the outer
dimensions' current point, so any of them may appear anywhere (a convolution's
x[n, p + r, q + s, c] with rows i = q and k = c).

How the work-group's work goes to warps (`mdh-mma`): the private tiles of all its
work-items at one step (s_i, s_j) of the private-tile loops form a block of
`num_wi[i] * pt_size[i]` rows by `num_wi[j] * pt_size[j]` columns (private tile u of a
local tile goes to work-item u mod num_wi: at step s, tiles s*num_wi .. s*num_wi +
num_wi - 1, contiguous). The work-group's warps (32 consecutive work-items of its
linear local id each) cut that block into `warps_m` x `warps_n` warp tiles of
`frags_m` x `frags_n` fragments of 16 x 8; k advances by K per fragment step over the
private tiles of k (`num_wi[k] = 1`: every warp takes all of k). The outer dimensions
have num_wi 1 too (every warp at the same point), and the fragments of a lane are kept
per point of the work-group's local tile along each kept outer dimension (a pw outer
dimension is summed into the same fragments). The warp grid is
chosen to need the fewest fragment loads per mma (`frags_m + frags_n` loads for
`frags_m * frags_n` mmas), ties to more rows per warp.

A lane holds other points than its work-item's private tiles, so the fragments take
the place of the work-items' accumulators: the accumulators' flush (which
`mdh-place-combine` wrote per private point) runs over the lane's fragment elements.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import func
from xdsl.traits import SymbolTable

from xdsl.ir import Operation

from mdh_ir.affine import linear_results
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.combine import builtin_meaning, meaning
from mdh_ir.schedule.tiling import TilePlan, ceildiv

WARP = 32
SHAPES = {"tf32": (16, 8, 8), "f16": (16, 8, 16), "bf16": (16, 8, 16)}
"""Per `mma` value generated, the fragment shape (M, N, K)."""


@dataclass(frozen=True)
class MmaForm:
    """Which dimension is which in a sum of products of two reads: input 0 (A) is read
    at rows i and k, input 1 (B) at k and columns j; every other dimension is `outer`
    (fixed while a fragment computes: a batch, a convolution's other pixels and filter
    taps), iterated around the fragments."""

    i: int
    j: int
    k: int
    outer: tuple[int, ...]
    kept: tuple[int, ...]
    """The outer dimensions that are kept (not pw): fragments per point of them."""
    reads: tuple[frozenset[int], frozenset[int]]
    """Per input, the dimensions its index map reads."""

    @staticmethod
    def of(op: ComputeOp, scope: Operation | None = None) -> MmaForm | str:
        """The form of `op` (its functions looked up from `scope`, by default the op),
        or why it has none. k is the pw dimension both inputs read that is the last axis
        of most of them (ties: the larger); i (j) the kept dimension that only A (B)
        reads that holds a fragment's 16 rows (8 columns; a local tile is no larger than
        its dimension) and whose size wastes the least of whole fragments, ties the
        larger, then the later."""
        scope = op if scope is None else scope
        pw = [d for d, c in enumerate(op.combines) if c.kind == "pw"]
        if not pw or any(meaning(scope, op.combines[d]) != "add" for d in pw):
            return "the op needs pw dimensions, all combined by addition"
        scalar = SymbolTable.lookup_symbol(scope, op.scalar_func)
        if not isinstance(scalar, func.FuncOp) or builtin_meaning(scalar) != "mul" or op.prologues:
            return "the scalar function is not one multiplication of its two inputs"
        if len(op.inputs) != 2 or any(len(maps) != 1 for maps in op.input_maps) or len(op.outputs) != 1:
            return "the op needs two inputs read once each and one output"
        forms = [linear_results(maps[0]) for maps in op.input_maps]
        if any(f is None for f in forms):
            return "the inputs' index maps must be linear"
        reads = tuple(frozenset(d for f in fs for d, c in enumerate(f.coeffs) if c) for fs in forms)  # type: ignore[union-attr]
        ks = [d for d in pw if d in reads[0] and d in reads[1]]
        if not ks:
            return "no pw dimension is read by both inputs"

        def last(d: int) -> int:
            return sum(fs[-1].coeffs == tuple(int(x == d) for x in range(op.rank)) for fs in forms)  # type: ignore[index]

        k = max(ks, key=lambda d: (last(d), op.sizes[d]))
        kept = [d for d in range(op.rank) if d not in pw]

        def best(only: int, other: int, m: int) -> int | None:
            own = [d for d in kept if d in reads[only] and d not in reads[other]]

            def waste(d: int) -> tuple[bool, float, int, int]:
                n = op.sizes[d]
                return n < m, ceildiv(n, m) * m / n, -n, -d

            return min(own, key=waste, default=None)

        i, j = best(0, 1, 16), best(1, 0, 8)
        if i is None or j is None:
            return "each input must read a kept dimension that the other does not"
        outer = tuple(d for d in range(op.rank) if d not in (i, j, k))
        return MmaForm(i, j, k, outer, tuple(d for d in outer if d in kept), reads)  # type: ignore[arg-type]

    def row_axis(self, op: ComputeOp, b: int, perm: tuple[int, ...]) -> int | None:
        """The axis of input b's local copy (its axes in order `perm`) along which the 8
        rows of a fragment load step: the first that reads the fragment dimension (i or
        k of A, k or j of B) its last axis does not read; None where none does."""
        forms = linear_results(op.input_maps[b][0])
        assert forms is not None, "MmaForm.of takes linear maps only"
        reads = [{d for d, c in enumerate(forms[a].coeffs) if c} for a in perm]
        rows = [d for d in ((self.i, self.k) if b == 0 else (self.k, self.j)) if d not in reads[-1]]
        return next((a for a, dims in enumerate(reads[:-1]) if rows and rows[0] in dims), None)


@dataclass(frozen=True)
class MmaPlan:
    """The warps' share of one step block (module docstring)."""

    form: MmaForm
    shape: tuple[int, int, int]
    block: tuple[int, int]
    """Rows and columns of a step block: num_wi * pt_size along i and j."""
    warps_m: int
    warps_n: int

    @property
    def warp_rows(self) -> int:
        return self.block[0] // self.warps_m

    @property
    def warp_cols(self) -> int:
        return self.block[1] // self.warps_n

    @property
    def frags_m(self) -> int:
        return self.warp_rows // self.shape[0]

    @property
    def frags_n(self) -> int:
        return self.warp_cols // self.shape[1]

    @staticmethod
    def of(plan: TilePlan) -> MmaPlan | str:
        """The plan of `plan`'s configuration (`cfg.mma` != "none"), or why it has none."""
        cfg = plan.cfg
        form = MmaForm.of(plan.op, plan.lookup_scope)
        if isinstance(form, str):
            return form
        if set(cfg.inp_mem[0]) != {"lcl"} or "prv" in cfg.inp_mem[1]:
            return "fragments are loaded from local memory: both inputs need inp_mem 'lcl' at lt and 'glb' at pt"
        if set(cfg.res_mem) != {"prv"} or cfg.combine_layer == "pt":
            return "the fragments take the place of private accumulators that live across the private tiles: res_mem 'prv', combine_layer 'end' or 'lt'"
        if cfg.vector_width != 1:
            return "vector_width must be 1 (a fragment is the vector)"
        m, n, kk = SHAPES[cfg.mma]
        if cfg.num_wi[form.k] != 1:
            return f"num_wi of pw dimension {form.k} must be 1: every warp takes the whole reduction"
        if spread := [d for d in form.outer if cfg.num_wi[d] != 1]:
            return (
                f"num_wi of dimension {spread[0]} must be 1: every warp takes the same point of the dimensions "
                f"besides {form.i}, {form.j}, {form.k}"
            )
        if cfg.pt_size[form.k] % kk:
            return f"pt_size {cfg.pt_size[form.k]} of dimension {form.k} is not a multiple of the fragment's K = {kk}"
        if plan.wg_size % WARP:
            return f"the work-group of {plan.wg_size} work-items is no whole number of warps of {WARP}"
        block = (cfg.num_wi[form.i] * cfg.pt_size[form.i], cfg.num_wi[form.j] * cfg.pt_size[form.j])
        warps = plan.wg_size // WARP
        grids = [
            (wm, warps // wm) for wm in range(1, warps + 1)
            if warps % wm == 0 and block[0] % (wm * m) == 0 and block[1] % (warps // wm * n) == 0
        ]  # fmt: skip
        if not grids:
            return (
                f"the step block of {block[0]} x {block[1]} (num_wi * pt_size along dimensions {form.i}, {form.j}) "
                f"does not split into {warps} warp tiles of whole {m} x {n} fragments"
            )

        def loads_per_mma(grid: tuple[int, int]) -> tuple[float, int]:
            fm, fn = block[0] // (grid[0] * m), block[1] // (grid[1] * n)
            return (fm + fn) / (fm * fn), grid[1]

        wm, wn = min(grids, key=loads_per_mma)
        return MmaPlan(form, (m, n, kk), block, wm, wn)

    def outer_points(self, plan: TilePlan) -> list[int]:
        """The kept outer dimensions: points of a work-group's local tile along each
        (all its private tiles: num_wi is 1)."""
        return [plan.max_trips("pt", d) * plan.cfg.pt_size[d] for d in self.form.kept]

    def fragments(self, plan: TilePlan) -> int:
        """Accumulator fragments a lane holds: one per fragment of each step block, at
        each point of the kept outer dimensions."""
        steps = prod(plan.max_trips("pt", d) for d in (self.form.i, self.form.j))
        return prod(self.outer_points(plan)) * steps * self.frags_m * self.frags_n
