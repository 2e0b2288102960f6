"""A reasonable configuration from sizes and device limits alone (no measurement).

- Kept (cc/ps) dimensions are cut into tiles of num_wi * pt_size elements, one tile per
  work-group. With enough outputs to fill the device, work-items go to the kept
  dimensions, innermost first (adjacent work-items touch adjacent elements); otherwise
  they go to the innermost pw dimension, whose partial results are combined in local
  memory, and pw dimensions are also split across work-groups until the device is busy.
- GPU: 256 work-items per work-group, pt_size 1; computations whose register tiles pay
  (`_register_tiles_pay`: matrix products, convolutions, contractions) get a GEMM-like
  register-tiled shape instead (`_gpu_register_tiles`), its rows on a dimension only the
  other input indexes (`_register_rows`), a side shorter than the work-group's grown
  across the kept dimensions of the same side (`_side_tiles`; H100, ms, before -> after:
  contraction ccsdt 0.647 -> 0.156, 16^6 x 32 0.322 -> 0.065; ResNet-50 3x3 at n = 32
  over 56^2, 28^2, 14^2, 7^2: 0.570, 0.495, 0.490, 0.491 -> 0.424, 0.294, 0.292, 0.429),
  its side and the split of the reduction across work-groups filling the device
  (`_side_and_split`), where it satisfies every rule (else the side of 64, else the
  sides not grown, else each with the outer reduction dimensions in steps of one:
  `_outer_steps`); with fewer outputs than 64 a compute unit, only past `SHARED_WORK`
  products (`SECTOR_WORK` where `_sector_columns` applies), on sides of 64 with the
  reduction split in up to 64 parts until a wave is filled (`_few_outputs_split`; H200,
  matmul 29 x 257 x 2910: 0.145 -> 0.018 ms); else, with two kept dimensions of at least
  64 and an input element read for several outputs (`_reads_shared`), 4 x 2 outputs per work-item with the
  weights in local memory (`_gpu_output_tiles`). With a reduction, when the innermost
  kept dimension takes all work-items, each computes 4 outputs along the next kept
  dimension if 4 divides it and an input does not depend on it (each weight read serves
  4 outputs: measured on H100, matmul 16 x 1000 x 2048 0.049 -> 0.030 ms; the reduction
  outside, 28.9 -> 25.5 us), and where that dimension has at most 16 elements, every
  work-group takes all of them with the weights in local memory (`_skinny_rows`); if 4
  does not divide it, the innermost dimension is a reduction and there are fewer outputs
  than 256 per compute unit (one per work-item would leave compute units idle),
  `SHARERS` (16) work-items share each output's reduction along the innermost dimension
  (consecutive elements, combined in local memory) and the kept dimensions get the rest
  (H100, mcc 7 x 7 x 512: 0.544 -> 0.065 ms; with the same split, matmul 16 x 1000 x
  2048 took 0.060 ms instead of 0.031). Otherwise, with many outputs but fewer kept
  work-groups than 4 per compute unit, the reduction is shared inside smaller work-
  groups instead of split across work-groups (`_filled`); a work-item's own reduction
  along the innermost axis is read as vectors of 4 (H100, sum over k = 16 of 1024 x 1024
  x 16, where 4 x 2 outputs a work-item reused nothing and the reduction was split in
  two: 0.088 -> 0.027 ms; torch.compile's kernel 0.026). With few outputs whose
  reduction reads an input across its rows (matmul 1 x 1000 x 2048's B), a work-group
  takes the outputs of one 32-byte sector of each row and 128 work-items share the
  reduction (`_sector_columns`; H100: 18.2 -> 8.1 us, tuned 7.9). A pw dimension shared
  by work-items is one local tile whose elements go to the work-items in turn (H100,
  reduce_sum 1024 x 1024 x 16: 59 us with local tiles of num_wi elements, 29 us with
  one). Without kept dimensions (dot), work- groups of the most work-items, at most one
  per compute unit: fewer partial results for the second kernel (H100, dot 2^24: 61 ->
  58 us).
- CPU (PoCL): one work-item per work-group computing a register tile of about 4 x 16
  elements (divisors of the sizes preferred; more rows, up to 12 accumulator vectors,
  where an input serves them all and they divide the rows: `_accumulator_rows`) on the
  two innermost kept dimensions,
  reductions outside the tile's element loops, and the widest vector width (16, 8 or
  4) the rule `vector-width` allows (where none fits a divisor, an inner side of 16,
  its last vector partial: `_vector_tile`); where the innermost pw dimension vectorizes wider
  than every kept one (matvec, dot), it becomes the innermost loop (each lane
  accumulates separately), cut into pieces of at most `FULL_UNROLL` vectors under a
  tile of 4 rows (`_unrolled_pieces`). With pw dimensions, a work-group computes one
  register tile, or, where an input read as vectors does not depend on the tile's
  outer dimension (matmul's B), about 64 tiles with that input packed in local memory
  (`_packed_panel`); an input not contiguous along the output's innermost dimension is
  packed transposed so that vectors run along it (`_transposed_inputs`, tensor
  contraction). Without pw dimensions, work-groups take larger tiles (about 64 per
  compute unit), grown along the innermost dimensions first. A register tile whose
  reduction completes inside it is flushed after each tile (`_tile_accumulator`).
- GPU with tensor cores, an op read as TF32 (`precision = "tf32"`) that is a sum of
  products: its private tiles on warp fragments (`mma = "tf32"`, `_gpu_mma_tiles`).
- An op with row statistics (the fused softmax) on a GPU: each row shared by the fewest
  work-items that read about `ROW_SHARE` of its elements in vectors, several rows a
  work-group (`_gpu_rows`).
- Otherwise no caching (inp_mem "glb"), private accumulators, identity layouts;
  OpenCL dimension 0 gets the innermost parallel dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from mdh_ir.affine import dim_of, linear_results
from mdh_ir.schedule.config import Config
from mdh_ir.schedule.constraints import local_bytes, mma_kind, vector_problem, violations
from mdh_ir.schedule.mma import SHAPES, WARP, MmaForm
from mdh_ir.device import DeviceInfo
from mdh_ir.dialects.mdh import ComputeOp
from mdh_ir.schedule.tiling import COPY_LANES, FULL_UNROLL, TilePlan, ceildiv

CPU_LANES = (16, 8, 4)
"""Vector widths the CPU default tries, widest first."""


def _ocl_dims(counts: list[int]) -> tuple[int, ...]:
    """OpenCL dim 0 for the innermost dimension with count > 1, 1 for the next, else 2."""
    dims = [2] * len(counts)
    parallel = [d for d in reversed(range(len(counts))) if counts[d] > 1]
    for o, d in enumerate(parallel[:2]):
        dims[d] = o
    return tuple(dims)


def _with_groups(cfg: Config, num_wg: Sequence[int]) -> Config:
    """`cfg` with `num_wg` work-groups, mapped onto OpenCL dimensions (`_ocl_dims`)."""
    return cfg.with_(num_wg=tuple(num_wg), ocl_dim=(_ocl_dims(list(num_wg)), cfg.ocl_dim[1]))


def _spread(total: int, dims: list[int], sizes: tuple[int, ...]) -> dict[int, int]:
    """Split `total` work-items over `dims`, innermost first, at most the size each."""
    counts = {}
    for d in reversed(dims):
        counts[d] = max(1, min(sizes[d], total))
        total //= counts[d]
    return counts


def default_config(op: ComputeOp, device: DeviceInfo) -> Config:
    """The default (on a CPU, the widest vectors of the legal candidates: with a small
    private budget, a register tile along one dimension may not fit where another's
    does); an op with row statistics keeps its rows in one work-group each (rule
    `rows`): on a GPU in the shape of `_gpu_rows`, on a CPU the candidate's with its
    vectors where the rule `vector-width` still allows them."""
    if op.stat_dims and device.kind == "gpu":
        rows = _gpu_rows(op, device)
        if not violations(op, rows, device):
            return rows
    if device.kind == "gpu":
        cfg = _gpu_config(op, device)
        cfg = _gpu_mma_tiles(op, device, cfg) or cfg
    else:
        kept, pw = _kinds(op)
        candidates = [_tile_accumulator(op, device, _cpu_config(op, device, d)) for d in [*reversed(kept), *pw[-1:]]]
        legal = [c for c in candidates if not violations(op, c, device)] or candidates
        cfg = max(legal, key=lambda cfg: cfg.vector_width)
    if not op.stat_dims:
        return cfg
    cfg = cfg.with_(num_wg=tuple(1 if d in op.stat_dims else g for d, g in enumerate(cfg.num_wg)))
    return cfg if vector_problem(TilePlan(op, cfg)) is None else cfg.with_(vector_width=1)


ROW_SHARE = 16
"""Elements of a row that each work-item of the GPU default of an op with row
statistics reads in each phase (`_gpu_rows`)."""


def _gpu_rows(op: ComputeOp, device: DeviceInfo, lanes: int = 4) -> Config:
    """An op with row statistics (the fused softmax) on a GPU: every phase reduces its
    rows in local memory before the next reads the result (`mdh-split-stats`), a tree
    of one barrier a level over the work-items sharing a row, and a work-group's
    work-items all wait at each phase's end. So a row is shared by the fewest work-items that read it in
    vectors of `lanes` (the row's innermost reduced dimension one local tile, its
    private tiles of one vector dealt to the work-items in turn: each read of a warp is
    consecutive), about `ROW_SHARE` elements each (at most 256 work-items: 4096 columns
    as before, 128 columns 8 instead of 32, 3 tree levels instead of 5); the rest of 256
    work-items take several rows (kept points, innermost first), fewer where the rows
    would not give every compute unit `ROWS_WGS_PER_CU` work-groups. Scalar reads of
    one element each where vectors are not allowed (rule `vector-width`)."""
    sizes, rank, reduced = op.sizes, op.rank, op.stat_dims
    d = reduced[-1]
    kept = [k for k in range(rank) if k not in reduced]
    width = min(256, device.max_wg_size)
    share = min(width, _floor_pow2(max(1, sizes[d] // ROW_SHARE)))
    groups = ROWS_WGS_PER_CU * device.compute_units
    rows = min(width // share, _floor_pow2(max(1, prod(sizes[k] for k in kept) // groups)))
    num_wi, pt, lt = [1] * rank, list(sizes), list(sizes)
    num_wi[d], pt[d] = share, min(lanes, sizes[d])
    for k, n in _spread(rows, kept, sizes).items():
        num_wi[k], pt[k], lt[k] = n, 1, n
    num_wg = [1 if k in reduced else ceildiv(sizes[k], lt[k]) for k in range(rank)]
    cfg = _uncached(op, num_wg, num_wi, lt, pt, range(rank))
    vectors = _widest_vectors(op, cfg, (lanes,), whole=True)
    return vectors if vectors.vector_width > 1 else cfg.with_(pt_size=tuple(1 if k == d else p for k, p in enumerate(pt)))


ROWS_WGS_PER_CU = 4
"""Work-groups per compute unit that `_gpu_rows` leaves at least (where the rows allow):
smaller work-groups wait for fewer work-items at each phase's barriers, and the others
on a compute unit run meanwhile. On an H100 (fused softmax, 8 shapes from 8192 x 128 to
1024 x 1024, warm caches) 4 instead of 1 took 0.92-0.95x the time on 6 and the same on
65536 x 32 and 4096 x 4096."""


def _floor_pow2(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def _tile_accumulator(op: ComputeOp, device: DeviceInfo, cfg: Config) -> Config:
    """`cfg` with its partial results flushed after each private tile (combine_layer
    "pt") where a work-item computes several and each one's results are final there
    (every reduction loop outside it has one step): the accumulator then holds one
    register tile instead of all the work-group's tiles (PoCL, tensor contraction,
    6144 -> 64 floats: 34.5 -> 29.5 ms, numpy 31.5; matmul 1024^3, 4096 -> 64 floats:
    15.4 -> 14.7 ms; in turns, 12 rounds)."""
    flushed = cfg.with_(combine_layer="pt")
    plan = TilePlan(op, flushed)
    if not plan.accumulates or plan.cross_wi or violations(op, flushed, device):
        return cfg
    smaller = prod(plan.acc_extents) < prod(TilePlan(op, cfg).acc_extents)
    final = all(plan.max_trips(*loop) == 1 for loop in plan.outer_pw_loops)
    return flushed if smaller and final else cfg


def _gpu_config(op: ComputeOp, device: DeviceInfo) -> Config:
    sizes, rank = op.sizes, op.rank
    kept, pw = _kinds(op)
    outputs = prod(sizes[d] for d in kept)
    many = outputs >= 64 * device.compute_units or not pw
    shapes: list[Config | None] = []
    rows = _register_rows(op, kept) if len(kept) >= 2 else None
    if (many or not _shared_reductions_pay(op)) and rows is not None and _register_tiles_pay(op, device, rows):
        pair = [rows, kept[-1]]
        side, split = _side_and_split(op, device, pair, pw) if many else _few_outputs_split(op, device, pair, pw)
        tries = dict.fromkeys(((side, True), (64, True), (side, False)))
        shapes = [_gpu_register_tiles(op, device, pair, pw, s, split, extend) for s, extend in tries]
        if len(pw) > 1:
            shapes += [_outer_steps(op, shape) for shape in shapes]
    if len(kept) >= 2 and pw and min(sizes[d] for d in kept[-2:]) >= 64 and _reads_shared(op):
        tiled = _gpu_output_tiles(op, device, kept[-2:], pw)
        shapes += [_local_weights(op, tiled, kept[-2]), tiled]
    elif not pw:
        shapes += [_gpu_scan_chunks(op, device), _gpu_transposed_tiles(op, device), _gpu_vectors(op, device)]
    elif not kept:
        shapes += [_gpu_vectors(op, device)]
    elif not many:
        shapes += [_sector_columns(op, device, kept[-1], pw[-1])]
    for shaped in shapes:
        if shaped is not None and not violations(op, shaped, device):
            return shaped
    num_wi, pt = [1] * rank, [1] * rank
    width = min(256, device.max_wg_size) if kept else device.max_wg_size
    for d, n in _spread(width, kept if many else pw[-1:], sizes).items():
        num_wi[d] = n
    wide = pw and many and len(kept) >= 2 and num_wi[kept[-1]] == width
    reused = wide and any(kept[-2] not in dims for dims in _input_dims(op))
    if reused and sizes[kept[-2]] % 4 == 0:
        pt[kept[-2]] = 4
        if sizes[kept[-2]] <= SKINNY:
            shaped = _skinny_rows(op, device, num_wi, pt, kept[-2:], pw)
            if not violations(op, shaped, device):
                return shaped
        return _assemble(op, device, num_wi, pt, (*pw, *kept))
    elif wide and pw[-1] == rank - 1 and outputs < width * device.compute_units:
        num_wi = _shared_reduction(sizes, kept, pw[-1], width)
    elif pw and many:
        num_wi = _filled(sizes, kept, pw[-1], num_wi, device)
        return _widest_vectors(op, _assemble(op, device, num_wi, pt, tuple(range(rank)), busy=0), (4,))
    busy = None if kept else device.compute_units
    return _assemble(op, device, num_wi, pt, tuple(range(rank)), busy=busy)


MMA_TILES = ((128, 128, 16, 8), (64, 128, 8, 16), (128, 64, 16, 8), (32, 128, 4, 32), (16, 64, 2, 16))
"""The work-group tiles of the GPU default on tensor cores without asynchronous copies,
largest first: rows, columns, and the work-items along each (8 x 8 or 8 x 16 outputs
each, so 16 x 8 work-items are 4 warps of 64 x 64 outputs, 8 x 16 are 4 warps of
32 x 64); 32 x 128 (4 warps of 32 x 32) where the rows are fewer than `FEW_ROWS` and its
work-groups need no split (`_unsplit`: a convolution's batch of 32); 16 x 64 (one warp)
at any rows where no larger tile keeps the compute units busy, its sum split over
several work-groups a compute unit (`_split`, `ONE_WARP_BUSY`). H100, from flushed
caches, the FP32 path -> 16 x 64 tiles (ms): f16 2924 x 76 x 2643 (rows of 2643
halves: no `cp.async`) 0.1030 -> 0.0472, 256 x 1000 x 2047 0.0652 -> 0.0248, bf16
265 x 96 x 4458 0.0726 -> 0.0185, TF32 500^3 0.0262 -> 0.0148, 1315 x 424 x 201 0.0252
-> 0.0127, 64 x 1000 x 8192 0.0869 -> 0.0339; 57 of 59 such defaults faster, slower:
TF32 2302 x 71 x 2296 0.0694 -> 0.0853 and 74 x 1003 x 430 0.0196 -> 0.0203 (columns
that fill one and a ninth tiles of 64). TF32 ResNet-50 convolutions at batch 32, 16 x 64 tiles ->
32 x 128 (both two pixels a work-group where they give `PAIRED_BUSY` work-groups a
compute unit, k tiles of `LONG_K_TILE`): 1 x 1 stride 2 256 to 512 0.1293 -> 0.0911,
512 to 128 0.0622 -> 0.0524, 256 to 128 0.1168 -> 0.1048, 3 x 3 conv3 stride 2 0.1306 ->
0.1145, conv4 0.1216 -> 0.1091 (unpaired: 196 paired work-groups would be too few),
conv3 0.1213 -> 0.1173; slower: 32 x 27 x 27 x 192 x 1 x 1 x 512 0.0924 -> 0.0983 (192
columns in two tiles of 128). H100, TF32, 128 x 128 against the former 128 x 256
(8 warps of 64 x 64, 233 registers): 4096^3 1.156 -> 1.096 ms, 3000^3 0.656 -> 0.567,
2000^3 0.156 -> 0.147. H100, from flushed caches, the former 32 x 128 (or 32 x 64)
tiles of 4 warps for 32-63 rows -> 16 x 64 (ms): TF32 32 x 1000 x 2048 (FP32 path
before) 0.0272 -> 0.0138, 32 x 4096 x 4096 0.0405 -> 0.0346, 48 x 4096 x 4096 0.0534 ->
0.0415, 63 x 4096 x 1024 0.0258 -> 0.0192, 33 x 4096 x 4096 0.0522 -> 0.0407, 48 x 1000 x
2048 0.0253 -> 0.0154; f16 48 x 2047 x 2047 (unaligned rows) 0.0321 -> 0.0223;
ResNet-50 convolutions at batch 32: 3 x 3 conv2 0.1520 -> 0.1235, conv4 0.1455 ->
0.1215, conv3 stride 2 0.1535 -> 0.1298, 1 x 1 conv3 256 to 128 0.1364 -> 0.1160,
128 to 512 0.0748 -> 0.0662; slower: 3 x 3 conv3 0.1296 -> 0.1310, conv5 0.1516 ->
0.1569."""
FEW_ROWS = 64
"""The GPU default takes a tile of `ASYNC_MMA_TILES` with fewer rows than this only where
the rows are fewer than twice the tile's (a convolution's batch of 32), and `MMA_TILES`'
32 x 128 likewise, unsplit (H200, TF32, 128 x 4096 x 4096 in 128 work-groups of
32 x 128: 0.170 ms, 0.115 on the FP32 path). H100, same runs, FP32 path
-> tiles of 16 rows (asynchronous copies): f16 matmul 16 x 1000 x 2048 (16 x 64, the sum
split 8 ways) 0.0161 -> 0.0110 ms, bf16 0.0174 -> 0.0110; 20 x 1000 x 2048 0.0216 ->
0.0114, 16 x 4096 x 4096 0.0536 -> 0.0175, 24 x 4096 x 4096 0.0668 -> 0.0220, 16 x 8192
x 1024 0.0259 -> 0.0140; ResNet-50 3 x 3 convolutions at batch 16: conv3 0.2213 ->
0.0284, conv2 0.1742 -> 0.0359."""
ASYNC_MMA_TILES = (
    (128, 128, 8, 16), (64, 128, 8, 16), (128, 64, 16, 8), (64, 64, 8, 8), (32, 128, 4, 32), (32, 64, 4, 16),
    (16, 128, 2, 32), (16, 64, 2, 16),
)
"""The work-group tiles of the GPU default on tensor cores where asynchronous copies
fill the local tiles (`_async_copies`), largest first: 4 warps of 64 x 64 outputs (two
work-groups a compute unit, 219 registers) where they give `WIDE_BUSY` work-groups a
compute unit, else 4 (or 2) warps of 32 x 64 (or 64 x 32), several work-groups a
compute unit, each up to `MMA_STAGES - 1` local tiles ahead; 32 x 128 (4 warps of 32 x 32)
or 32 x 64 where the rows are fewer than 64 (a convolution's batch of 32), 16 x 128 or
16 x 64 where they are fewer than 32 (`FEW_ROWS`)."""
MMA_STAGES = 4
"""The most `stages` of the GPU default on `ASYNC_MMA_TILES` (as many as local memory
holds), one less for an op with outer dimensions (a convolution, a batch): up to three
local tiles in flight (f16 64 x 128 tiles of 16 along k on an H100, 2 -> 4 stages:
1000^3 0.0378 -> 0.0309 ms). H100, f16, ResNet-50 at batch 32 in 32 x 128 tiles of 32
along k, one output pixel a work-group, 4 -> 3 stages: 3 x 3 conv3 0.0530 -> 0.0493 ms
(4 bytes spilled with 4), conv3 stride 2 0.0539 -> 0.0503, conv4 0.0462 -> 0.0465, 1 x 1
conv3 256 to 128 0.0654 -> 0.0559, 512 to 128 0.0453 -> 0.0261; matmul 1000^3 in
64 x 128 tiles 0.0198 -> 0.0202 (kept at 4)."""
ASYNC_SMALLEST_BUSY = 1 / 8
"""The share of compute units the tiles of `FEW_BUSY_TILES` must keep busy (the
others: `MMA_BUSY`). H100, f16, 64 x 64 tiles against the FP32 path: 36-128
work-groups of it were 1.7-4.2x faster (384^3 to 768^3, 64 and 128 x 4096 x 4096);
fewer were faster at 256^3 and 64^3 (0.60x and 0.63x the time) and slower at
256 x 256 x 8192 (1.22x: 16 work-groups through a reduction of 8192, where the FP32
path splits it)."""
FEW_BUSY_TILES = ((64, 64, 8, 8), (32, 128, 4, 32))
"""The tiles of `ASYNC_MMA_TILES` held to `ASYNC_SMALLEST_BUSY` (the others to
`MMA_BUSY`, or `WIDE_BUSY`; 32 x 64 too, which would take 256^3 from the FP32 path)."""
WIDE_BUSY = 3 / 2
"""The work-groups a compute unit that the GPU default's 128 x 128 tiles on
asynchronous copies must give. H100, f16, against 64 x 128 tiles: 4096^3 0.552 ->
0.466 ms, 3000^3 0.306 -> 0.290, 2560^3 0.160 -> 0.149, 2000^3 0.103 -> 0.075 (256
work-groups), 8192 x 8192 x 1024 0.582 -> 0.510, 4096 x 1024 x 4096 0.147 -> 0.124;
slower with fewer: 1536^3 0.045 -> 0.048 (144), 1000^3 0.023 -> 0.030 (64)."""
MMA_SHORTEST_SUM = 16
"""The fewest products an output sums for the GPU default to compute it on fragments:
one k step of the 16-bit shapes. With the current pipeline fragments pay at every
longer sum measured (H100, same runs, FP32 path -> fragments): f16 batched products
32 x 512 x 512 x K, K = 16 / 32 / 64: 0.0185 -> 0.0168, 0.0279 -> 0.0174, 0.0439 ->
0.0194 ms; 64 x 128 x 128 x 64 0.0105 -> 0.0057; 16 x 127 x 500 x 63 0.0117 ->
0.0107; matmul 4096 x 4096 x 64 0.0802 -> 0.0330, 1024 x 1024 x 64 0.0104 -> 0.0056;
TF32 32 x 512 x 512 x K, K = 16 / 64 / 128: 0.0188 -> 0.0176, 0.0378 -> 0.0251, 0.0628
-> 0.0330; matmul 2048 x 2048 x 128 0.0320 -> 0.0174, 1000 x 1000 x 200 0.0194 ->
0.0138; one loss, TF32 16 x 127 x 500 x 63 0.0108 -> 0.0116 (the former thresholds,
128 products for 16-bit kinds and 256 for TF32, were measured with fragments exchanged
through local memory)."""
ASYNC_K_TILE = 32
"""The local tile along k of the GPU default on `ASYNC_MMA_TILES` (where the sum is that
long), in as many of `MMA_STAGES` slots as local memory holds, its rows unpadded and
swizzled (`lcl_swizzle`; 128 x 128 x 32 f16 tiles in three slots fill the 48 KB
exactly). H100, f16 4096^3, hand-written kernels of 128 x 128 tiles (4 warps of
64 x 64): k 16 in 4 slots padded by 8, 8-byte copies 0.486 ms, swizzled with 16-byte
copies 0.437, k 32 in 3 swizzled slots 0.386-0.394; generated, the former default's 16 x
4 padded slots 0.466, these 0.385. ResNet-50 3 x 3 convolutions at batch 32 in 32 x 128 tiles, k 32 against
16 in 4 slots (padded): conv3 0.078 -> 0.062 ms, conv4 0.071 -> 0.056, conv5 0.094 ->
0.078."""
SHORT_TILE_ROWS = min(t[0] for t in ASYNC_MMA_TILES)
"""The rows of the GPU default's smallest tiles on tensor cores."""
FEW_ROWS_K_TILE = 64
"""The local tile along k of the GPU default's tiles of 16 rows on asynchronous copies,
where the sum has that many products for each of the tile's `stages` slots and they
fit local memory (16 x 64 tiles: 40 KB in 4 slots; 16 x 128 tiles stay at
`ASYNC_K_TILE`): a step of 16 rows is short, and half as many steps wait and
synchronize half as often. H100, f16, against k tiles of 32, every shape of 16 to 31
rows that takes 16 x 64 tiles among rows 16 / 20 / 24 / 31, columns 256-4096, sums of
512 / 2048 / 8192: 0.90-0.96x the time, 12 of 12 faster (16 x 1000 x 2048 0.0111 ->
0.0106 ms, 16 x 1000 x 8192 0.0185 -> 0.0167, 24 x 500 x 8192 0.0221 -> 0.0199, 20 x
2048 x 512 0.0113 -> 0.0107; bf16 16 x 1000 x 2048 0.0109 -> 0.0103). 16 x 128 tiles
in 2 slots of 64 instead of 4 of 32 were 0.97-1.09x (not taken); ResNet-50 convolutions
at batch 16, 16 x 128 tiles in 2 slots of 64: conv3 3 x 3 0.0286 -> 0.0246 ms, conv4
0.0464 -> 0.0367 (not taken: the restarts of their k loop at each filter tap, not the
tile's rows, make that difference; see `mdh_bench/RESULTS.md`)."""
MMA_BUSY = 3 / 4
"""The share of compute units that the work-groups of the GPU default's tile on tensor
cores must at least keep busy (`_gpu_mma_tiles`)."""


def _gpu_mma_tiles(op: ComputeOp, device: DeviceInfo, cfg: Config) -> Config | None:
    """For an op whose form is a sum of products (`MmaForm`) and whose inputs tensor
    cores read (`mma_kind`: precision "tf32", or f16 / bf16 inputs), on a device with
    tensor cores: `cfg` computing its private tiles on warp fragments (`mma`), in the
    largest legal work-group tile of `MMA_TILES` (`ASYNC_MMA_TILES` where asynchronous
    copies fill the local tiles) within the sizes whose work-groups keep `MMA_BUSY` of
    the compute units busy (`ASYNC_SMALLEST_BUSY` for `FEW_BUSY_TILES`, `WIDE_BUSY`
    work-groups a compute unit for the widest and for `_unsplit` tiles; larger tiles
    read each input fewer times, but leave compute units idle),
    counting a work-group per point of the kept outer dimensions (`MmaForm.outer`: a
    batch, a convolution's pixels, one point a work-group); where the tiles of
    asynchronous copies find none, among `MMA_TILES` (`_mma_tiles_of`); None where
    neither does, for the FP32 path. f16 on an H100, same runs, from flushed caches, these
    tiles 4 stages deep against the former 128 x 256 (or 64 x 128, or FP32 path) one
    tile ahead: 4096^3 0.898 -> 0.698 ms, 3000^3 0.527 -> 0.335, 2000^3 0.154 -> 0.121,
    1536^3 0.107 -> 0.058, 1000^3 0.051 -> 0.030, 768^3 0.071 -> 0.017, 512^3 0.023 ->
    0.012, 128 x 4096 x 4096 0.165 -> 0.060, 8192 x 8192 x 1024 1.528 -> 0.914. H100, from
    flushed caches: TF32 128 x 4096 x 4096 (64 work-groups at most) 0.215 ms on tensor
    cores against 0.121 ms on the FP32 path; 1000^3 (128 of 64 x 128) 0.070 against
    0.075 ms. Private tiles of 8 x 8 x K (or 8 x 16, 16 x 8), k in local tiles of 16,
    both inputs in local memory, the next local tile loaded during this one, rows padded
    by 8 (`lcl_pad`: a warp's fragment loads read 4 rows at 8 columns each, which a row
    length of 8 more than a multiple of 32 spreads over the 32 banks; unpadded 2.4x
    slower). cuBLAS / ours in the same precision (probe, warm caches), this rule's pick
    and, in brackets, the former 128 x 64 tiles (TF32) or the FP32 path (f16): TF32
    4096^3 0.26 (0.19), 3000^3 0.31 (0.29), 2000^3 0.31 (0.23), 1000^3 0.64 (0.57),
    1025^3 0.59 (0.58); f16 4096^3 0.14 (0.05), 2000^3 0.18 (0.07), 1000^3 0.42 (0.23),
    1025^3 0.64 (0.28)."""
    kind = mma_kind(op, device)
    if kind == "none":
        return None
    form = MmaForm.of(op)
    assert not isinstance(form, str)
    total = prod(op.sizes[d] for d in _kinds(op)[1])
    if total < MMA_SHORTEST_SUM:
        return None
    pipelined = _async_copies(op, device, kind)
    chosen = _mma_tiles_of(op, device, cfg, form, kind, total, pipelined)
    if chosen is None and pipelined:
        chosen = _mma_tiles_of(op, device, cfg, form, kind, total, False)
    return chosen


def _mma_tiles_of(
    op: ComputeOp, device: DeviceInfo, cfg: Config, form: MmaForm, kind: str, total: int, pipelined: bool
) -> Config | None:
    """`_gpu_mma_tiles`' choice among `ASYNC_MMA_TILES` (`pipelined`) or `MMA_TILES`;
    None where none keeps the compute units busy. Where the tiles of asynchronous
    copies find none, those without take over: their 16 x 64 tiles of one warp split
    the sum further (`ONE_WARP_SPLITS`). H200, from flushed caches, FP32 path -> 16 x 64
    tiles (ms): f16 165 x 68 x 4856 0.0657 -> 0.0185, 32 x 1000 x 2048 0.0301 -> 0.0132,
    64 x 1000 x 2048 0.0329 -> 0.0155, 33 x 708 x 2148 0.0312 -> 0.0143, 256^3 0.0142 ->
    0.0089 (bf16 0.0148 -> 0.0090): every default this changed among 1331 sizes."""
    rows, cols = op.sizes[form.i], op.sizes[form.j]
    points = prod(op.sizes[d] for d in form.kept)
    tiles = [
        (t, ceildiv(rows, t[0]) * ceildiv(cols, t[1]) * points)
        for t in (ASYNC_MMA_TILES if pipelined else MMA_TILES)
        if t[0] <= rows and t[1] <= cols and (t[0] >= FEW_ROWS or rows < 2 * t[0] or _one_warp(t, pipelined))
    ]
    chosen, busy = None, 0.0
    for tile, groups in tiles:
        least = MMA_BUSY
        if pipelined and tile in FEW_BUSY_TILES:
            least = ASYNC_SMALLEST_BUSY
        elif pipelined and tile == ASYNC_MMA_TILES[0] or _unsplit(tile, pipelined):
            least = WIDE_BUSY
        enough = groups >= least * device.compute_units
        fragments = _mma_tile(op, device, cfg, form, kind, tile, pipelined) if enough else None
        if fragments is not None and not violations(op, fragments, device):
            chosen, busy = _paired(op, device, fragments, form, groups, total), groups / _split_busy(tile, pipelined)
            break
    if busy < device.compute_units:
        return _split(op, device, cfg, form, kind, tiles, total, pipelined) or chosen
    return chosen


SPLIT_INPUT_SHARE = 16
"""How many input elements per partial result a work-group of a sum the GPU default on
tensor cores splits (`_split`) must at least read: 128 x 128 tiles sum at least 1024
products each (as the former rule had it for every tile), 64 x 128 683, 32 x 128 410,
16 x 64 205. H100, same runs: f16 16 x 1000 x 2048 in 16 x 64 tiles split 8 ways (256
products each) 0.0110 ms, 4 ways 0.0134 (FP32 path 0.0161); f16 128 x 4096 x 4096 in
128 x 128 tiles 4 ways (1024) 0.0412, 8 ways 0.0465; TF32 1000^3 in 64 x 128 tiles
unsplit 0.0365, 2 ways (500) 0.0493; 1024^3 unsplit 0.0340, in 128 x 128 tiles 2 ways
(512) 0.0481. Against the former 1024 products for every tile: f16 40 x 1000 x 2048
(FP32 path before) 0.0245 -> 0.0123, 48 x 2048 x 2048 0.0156 -> 0.0146 (TF32 0.0274
-> 0.0206), TF32 32 x 4096 x 4096 0.0562 -> 0.0429; f16 32 x 4096 x 4096 (8 ways
instead of 4) 0.0204 -> 0.0218."""
MOST_SPLITS = 8
"""The most work-groups the GPU default on tensor cores splits a sum over (`ONE_WARP_SPLITS`
for work-groups of one warp without asynchronous copies)."""
ONE_WARP_BUSY = 4
"""The work-groups a compute unit that the GPU default's split of a sum in work-groups of
one warp without asynchronous copies (TF32's 16 x 64 tiles: the next local tile loaded
through registers) gives at least, where each still sums `ONE_WARP_SUM` products: one
such work-group cannot hide its loads' latency alone. H100, from flushed caches, TF32
in 16 x 64 tiles with k in local tiles of 16, split 8 / 16 / 32 ways (ms; the FP32
path's default first): 16 x 1000 x 2048 0.0175: 0.0179 / **0.0150** / 0.0173;
16 x 4096 x 4096 0.0497: 0.0368 / **0.0342** / 0.0458; 24 x 4096 x 4096 0.0616:
**0.0395** / 0.0528 / 0.0692; 16 x 8192 x 1024 0.0294: **0.0206** / 0.0268 / 0.0344;
20 x 1000 x 2048 0.0257: 0.0176 / **0.0151** / 0.0186; 16 x 1000 x 8192 0.0712: 0.0507 /
0.0324 / **0.0281** (in bold this rule's choice)."""
ONE_WARP_SUM = 128
"""The fewest products a work-group of one warp sums where the GPU default splits its
sum (`ONE_WARP_BUSY`)."""
LONG_K_TILE = 32
"""The local tile along k of the GPU default's tiles without asynchronous copies whose
work-items accumulate at most `LONG_K_OUTPUTS` outputs each, where the sum is that long
(else 16): half as many steps, each loading twice as much through registers. H100,
from flushed caches, TF32 in 16 x 64 tiles of one warp, k tiles of 16 -> 32 (255
registers, no spills): 16 x 1000 x 2048 (16 ways) 0.0150 -> 0.0133 ms, 24 x 4096 x 4096
(8 ways) 0.0396 -> 0.0338, 16 x 4096 x 4096 0.0342 -> 0.0338, 16 x 8192 x 1024 0.0204 ->
0.0204; loading two tiles ahead (`prefetch = 2`) changed none of them by more than 3%.
TF32 in 64 x 128 tiles of 4 warps: 1000^3 0.0465 -> 0.0323, 1025^3 0.0762 -> 0.0733;
16-bit rows without `cp.async` in 64 x 128 (or 64 x 64) tiles: f16 72 x 1762 x 5399
0.0829 -> 0.0662, 855 x 134 x 3187 0.0464 -> 0.0408, 256 x 2047 x 2047 0.0620 -> 0.0506,
batched 16 x 127 x 500 x 63 0.0087 -> 0.0079; slower: bf16 55 x 84 x 345 x 244 0.0271
-> 0.0332 (236 registers against 160), f16 1025^3 0.0538 -> 0.0545. 128 x 128 tiles
spill (TF32 2000^3 0.1349 -> 0.1533, 232 bytes)."""
LONG_K_OUTPUTS = 64
"""The most outputs a work-item accumulates where the GPU default's tiles without
asynchronous copies take k in local tiles of `LONG_K_TILE` (a warp's 32 x 64 outputs,
or 16 x 64 in two points of a convolution)."""
ONE_WARP_SPLITS = 32
"""The most work-groups the GPU default splits the sum of work-groups of one warp over
(`ONE_WARP_BUSY`)."""


def _split(
    op: ComputeOp, device: DeviceInfo, cfg: Config, form: MmaForm, kind: str, tiles, total: int, pipelined: bool
) -> Config | None:
    """Where the GPU default's tile on tensor cores leaves compute units idle (fewer
    than `WIDE_BUSY` work-groups a compute unit, or none kept `MMA_BUSY` of them busy):
    the sum of `total` products split over as few work-groups as give `WIDE_BUSY` a
    compute unit (in a tile whose work-groups do not already), at most `MOST_SPLITS`,
    each reading `SPLIT_INPUT_SHARE` input elements per partial result (tiles of one
    warp without asynchronous copies, `pipelined` False: `ONE_WARP_BUSY` a compute
    unit, at most `ONE_WARP_SPLITS`, each summing `ONE_WARP_SUM` products), in the
    largest of `tiles` (tile, work-groups) whose work-groups then keep `MMA_BUSY` of the
    compute units busy; None where none does.
    H100, 128 x 4096 x 4096: f16 (64 x 64 tiles, 128 work-groups) 0.058 -> 0.046 ms in
    128 x 128 tiles split 4 ways; TF32 (FP32 path) 0.115 -> 0.076; ResNet-50's 3 x 3
    conv5 at batch 32 (196 work-groups of 32 x 128) 0.0755 -> 0.0709 split 2 ways.

    The last of a split's work-groups to finish combines their partial results
    (`wg_combine = "last"`), where the device's fences order memory across
    work-groups, instead of a second kernel, whose launch costs more than the combine.
    H100, same runs, a kernel and its combine kernel -> one kernel (ms): f16 16 x 1000 x
    2048 split 8 ways 0.0106 -> 0.0083, bf16 0.0106 -> 0.0084, f16 128 x 4096 x 4096 4
    ways 0.0417 -> 0.0364, bf16 0.0413 -> 0.0367, TF32 0.0763 -> 0.0718, f16 32 x 4096 x
    4096 8 ways 0.0216 -> 0.0188, 64 x 2048 x 2048 4 ways 0.0143 -> 0.0111, ResNet-50's
    3 x 3 conv5 at batch 32 2 ways: f16 0.0632 -> 0.0535, bf16 0.0634 -> 0.0538, TF32
    0.1628 -> 0.1519. Not for the FP32 paths' splits (`_assemble`, `_side_and_split`),
    where a work-item's share of the combine is larger (up to 256 work-items each taking
    16 points of 8 partial results) and its registers fewer: of the 23 split FP32
    defaults of the GPU sweeps 15 were faster (matmul 500^3 4 ways 0.0238 -> 0.0201, the
    ResNet-50 1 x 1 convolutions at batch 1 up to 0.0190 -> 0.0135) and 8 slower: 3 x 3
    conv4 at batch 1 0.0343 -> 0.0392 (178 -> 128 registers), conv4 1 x 1 1024 to 256
    0.0160 -> 0.0197 (its combine alone 8.5 us); 17 or 33 ways (the FP32 path of f16 8 x
    4096 x 4096, TF32 16 x 1000 x 2048) 0.0476 -> 0.0523 and 0.0151 -> 0.0156."""
    for tile, groups in tiles:
        one_warp = _one_warp(tile, pipelined)
        busy = _split_busy(tile, pipelined) * device.compute_units
        if groups >= busy or _unsplit(tile, pipelined):
            continue
        splits = 2
        while groups * splits < busy and splits < (ONE_WARP_SPLITS if one_warp else MOST_SPLITS):
            splits *= 2
        while splits > 1 and not (
            ceildiv(total, splits) >= ONE_WARP_SUM if one_warp else _split_pays(tile, ceildiv(total, splits))
        ):
            splits //= 2
        if splits == 1 or groups * splits < MMA_BUSY * device.compute_units:
            continue
        fragments = _mma_tile(op, device, cfg, form, kind, tile, pipelined)
        split = _with_groups(fragments, _at(fragments.num_wg, form.k, splits))
        last = split.with_(wg_combine="last")
        if device.fences_across_groups and not violations(op, last, device):
            return last
        if not violations(op, split, device):
            return split
    return None


def _split_busy(tile: tuple[int, ...], pipelined: bool) -> float:
    """The work-groups a compute unit below which the GPU default splits the sum of
    `tile` (`_split`): `ONE_WARP_BUSY` for a work-group of one warp without
    asynchronous copies (not `pipelined`), else `WIDE_BUSY`."""
    return ONE_WARP_BUSY if _one_warp(tile, pipelined) else WIDE_BUSY


def _one_warp(tile: tuple[int, ...], pipelined: bool) -> bool:
    """Whether the work-groups of `tile` (rows, columns, work-items along each) are one
    warp without asynchronous copies (not `pipelined`)."""
    return not pipelined and tile[2] * tile[3] == WARP


def _unsplit(tile: tuple[int, ...], pipelined: bool) -> bool:
    """Whether the GPU default takes `tile` only where its work-groups alone give
    `WIDE_BUSY` a compute unit, never splitting its sum: a tile of fewer than
    `FEW_ROWS` rows and several warps without asynchronous copies (`MMA_TILES`' 32 x 128)."""
    return not pipelined and tile[0] < FEW_ROWS and not _one_warp(tile, pipelined)


def _split_pays(tile: tuple[int, ...], part: int) -> bool:
    """Whether a work-group of `tile` (rows, columns) summing `part` products reads
    `SPLIT_INPUT_SHARE` input elements per partial result it writes."""
    rows, cols = tile[:2]
    return part * (rows + cols) >= SPLIT_INPUT_SHARE * rows * cols


PAIRED_BUSY = 2.5
"""The work-groups a compute unit that the GPU default's work-groups must still give
when they take two points of a kept outer dimension each (`_paired`)."""


def _paired(op: ComputeOp, device: DeviceInfo, cfg: Config, form: MmaForm, groups: int, total: int) -> Config:
    """`cfg` (of `groups` work-groups, each output a sum of `total` products) with two
    points a work-group of the last kept outer dimension that some input does not read
    (a convolution's q: both points read the same filter tile, which halves its copies
    per output; not a batch), as many of `cfg`'s stages deep as local memory holds (the
    local tiles of A double), where the work-groups still give `PAIRED_BUSY` a compute
    unit and it is legal. H100, f16,
    ResNet-50 convolutions at batch 32, single -> paired (2 stages): 3 x 3 conv2 0.076
    -> 0.068 ms, conv3 0.062 -> 0.049, conv3 stride 2 0.063 -> 0.054; 1 x 1 conv3 128 to
    512 0.056 -> 0.047, conv4 256 to 1024 0.044 -> 0.037, conv5 512 to 2048 0.042 ->
    0.040; with fewer work-groups slower: conv4 0.057 -> 0.066 (196 paired work-groups
    on 132 compute units), conv5 0.078 -> 0.113; conv2 1 x 1 64 to 256 0.070 -> 0.073,
    the one miss. Paired in k tiles of 32, 2 -> 3 stages (36 KB): 3 x 3 conv3 0.0583 ->
    0.0449 ms (single, 3 stages: 0.0479), conv2 0.0517 -> 0.0506."""
    kept = [d for d in form.kept if op.sizes[d] > 1 and not all(d in dims for dims in form.reads)]
    if not kept:
        return cfg
    d = kept[-1]
    if groups * ceildiv(op.sizes[d], 2) / op.sizes[d] < PAIRED_BUSY * device.compute_units:
        return cfg
    paired = _with_groups(
        cfg.with_(lt_size=_at(cfg.lt_size, d, 2), pt_size=_at(cfg.pt_size, d, 2)),
        _at(cfg.num_wg, d, ceildiv(op.sizes[d], 2)),
    )
    paired = _deepest(op, device, paired)
    if violations(op, paired, device):
        return cfg
    fewer = _fewer_warps(op, paired, form, total)
    return fewer if fewer is not None and not violations(op, fewer, device) else paired


PAIRED_WARPS_SUM = 512
"""The fewest products an output sums for the GPU default's paired work-groups of 4
warps to compute with 2 (`_fewer_warps`)."""
WARP_ACCUMULATORS = 128
"""The most outputs a work-item of the GPU default on fragments accumulates (a warp tile of
64 x 64)."""


def _fewer_warps(op: ComputeOp, cfg: Config, form: MmaForm, total: int) -> Config | None:
    """A paired work-group of 4 warps on asynchronous copies (`_paired`, `cfg`) with
    2 instead, each warp twice the rows (32 x 64 outputs a point instead of 32 x 32: 8
    fragment loads for 32 mmas instead of 6 for 16, where local memory's bandwidth
    limits the loop), for a sum (`total`) of at least `PAIRED_WARPS_SUM` products and at most
    `WARP_ACCUMULATORS` outputs a work-item; None elsewhere. H100, f16, 4 -> 2 warps
    of the 32 x 128 x 2-point tiles, convolutions n x p x p x k x r x r x c: 3 x 3
    (sums of 576-2304) 0.81-1.01x the time, 11 of 12 faster (ResNet-50 conv3 at batch
    32 0.0457 -> 0.0399 ms, stride 2 0.0504 -> 0.0465, 48 x 28 x 28 x 256 x 3 x 3 x
    128 0.1715 -> 0.1394, 48 x 28 x 28 x 128 x 3 x 3 x 256 0.1563 -> 0.1586); 1 x 1
    (sums of 64-256) 0.69-1.08x, 8 of 11 slower (32 x 56 x 56 x 128 x 1 x 1 x 64
    0.0285 -> 0.0305)."""
    pw = _kinds(op)[1]
    if cfg.prefetch != 3 or prod(cfg.num_wi) != 4 * WARP or cfg.num_wi[form.i] % 2 or total < PAIRED_WARPS_SUM:
        return None
    if 2 * prod(n for d, n in enumerate(cfg.pt_size) if d not in pw) > WARP_ACCUMULATORS:
        return None
    num_wi = _at(cfg.num_wi, form.i, cfg.num_wi[form.i] // 2)
    pt = _at(cfg.pt_size, form.i, 2 * cfg.pt_size[form.i])
    return cfg.with_(num_wi=num_wi, pt_size=pt, ocl_dim=(cfg.ocl_dim[0], _ocl_dims(list(num_wi))))


def _at(values: tuple[int, ...], d: int, value: int) -> tuple[int, ...]:
    """`values` with entry d `value`."""
    return (*values[:d], value, *values[d + 1 :])


def _mma_tile(
    op: ComputeOp, device: DeviceInfo, cfg: Config, form: MmaForm, kind: str, tile: tuple[int, ...], pipelined: bool
) -> Config:
    """`cfg` on fragments of `kind` in work-group tiles of `tile` (rows, columns, and
    the work-items along each; `_gpu_mma_tiles`).

    `pipelined` (16-bit kinds, on a device with `cp.async` and inputs whose rows it can
    move, `_async_copies`): the local copies in the inputs' own layouts
    (no copy transposes; `ldmatrix` loads A as it is, B transposed), k in local tiles
    of `ASYNC_K_TILE` with rows swizzled instead of padded (`lcl_swizzle`), filled by
    asynchronous copies up to `MMA_STAGES - 1` local tiles ahead, as deep as local
    memory holds (`prefetch = 3`, `stages`; one ahead, in 128 x 256 tiles): H100, from flushed
    caches, in turns: f16 4096^3 1.122 -> 0.895 ms, 2000^3 0.180 -> 0.153, 1000^3
    0.057 -> 0.051 (bf16 4096^3 1.121 -> 0.898); elsewhere (1025^3: unaligned rows,
    whose copies could not move by `cp.async`: 0.067 -> 0.111) `cfg`'s layouts, k first,
    loaded by transposed `ldmatrix`, the next tile through registers (`prefetch = 1`).

    TF32 (no transposed `ldmatrix`, copies that round): an input stored with k along
    its last axis (matmul's A) keeps that layout in local memory, which `ldmatrix`
    reads, the next tile through registers (H100: TF32 4096^3 1.249 -> 1.172 ms, 2000^3
    0.195 -> 0.188, 1000^3 0.062 -> 0.057, 1025^3 0.086 -> 0.085; B copied with k last
    too 1.3-1.5x slower: its copy transposes; in 128 x 128 tiles two local slots
    through registers, `prefetch = 2`, 1.086 -> 1.054 ms at 4096^3, equal at 2000^3:
    not taken)."""
    rows, cols, wi_rows, wi_cols = tile
    num_wi, pt, lt = [1] * op.rank, [1] * op.rank, [1] * op.rank
    for d, wi, side in ((form.i, wi_rows, rows), (form.j, wi_cols, cols)):
        num_wi[d], pt[d], lt[d] = wi, side // wi, side
    pt[form.k], lt[form.k] = SHAPES[kind][2], 16
    pw = _kinds(op)[1]
    num_wg = [1 if d in pw else ceildiv(n, lt[d]) for d, n in enumerate(op.sizes)]
    order = (*(d for d in range(op.rank) if d not in pw), *(d for d in pw if d != form.k), form.k)
    inputs = len(op.inputs)
    layouts, prefetch, stages, pad, swizzle = list(cfg.buf_layout[0]), 1, 2, 8, 0
    if pipelined:
        layouts = [tuple(range(len(v.type.get_shape()))) for v in op.inputs]  # type: ignore[attr-defined]
        prefetch, stages, pad, swizzle = 3, MMA_STAGES - 1 if form.outer else MMA_STAGES, 0, 1
        if op.sizes[form.k] >= ASYNC_K_TILE:
            lt[form.k] = ASYNC_K_TILE
    elif kind == "tf32":
        for b, maps in enumerate(op.input_maps):
            forms = linear_results(maps[0])
            if forms and [d for d, c in enumerate(forms[-1].coeffs) if c] == [form.k]:
                layouts[b] = tuple(range(len(forms)))
    if prefetch == 1 and rows * cols <= LONG_K_OUTPUTS * wi_rows * wi_cols and op.sizes[form.k] >= LONG_K_TILE:
        lt[form.k] = LONG_K_TILE
    tiled = cfg.with_(
        num_wg=tuple(num_wg), num_wi=tuple(num_wi), lt_size=tuple(lt), pt_size=tuple(pt),
        inp_mem=(("lcl",) * inputs, ("glb",) * inputs), res_mem=("prv",),
        ocl_dim=(_ocl_dims(num_wg), _ocl_dims(num_wi)), vector_width=1, combine_layer="end",
        prefetch=prefetch, lcl_pad=pad, lcl_swizzle=swizzle, mma=kind, stages=stages,
        buf_layout=(tuple(layouts), cfg.buf_layout[1]), loop_order=(order, cfg.loop_order[1]),
    )  # fmt: skip
    if prefetch == 3 and rows <= SHORT_TILE_ROWS and op.sizes[form.k] >= FEW_ROWS_K_TILE * stages:
        longer = tiled.with_(lt_size=_at(tiled.lt_size, form.k, FEW_ROWS_K_TILE))
        tiled = longer if _fits(op, device, longer) else tiled
    return _deepest(op, device, tiled)


def _fits(op: ComputeOp, device: DeviceInfo, cfg: Config) -> bool:
    """Whether `cfg`'s local tiles fit the device's local memory."""
    return local_bytes(TilePlan(op, cfg)) <= device.local_mem


def _deepest(op: ComputeOp, device: DeviceInfo, cfg: Config) -> Config:
    """`cfg` with the most of its `stages` (at least 2) whose local tiles fit the
    device's local memory."""
    while cfg.stages > 2 and not _fits(op, device, cfg):
        cfg = cfg.with_(stages=cfg.stages - 1)
    return cfg


def _async_copies(op: ComputeOp, device: DeviceInfo, kind: str) -> bool:
    """Whether the GPU default fills the local tiles of fragments of `kind` by
    asynchronous copies (`_mma_tile`): 16-bit kinds on a device with `cp.async`,
    inputs whose rows are a multiple of the copies' vectors (`COPY_LANES`). Rows of an
    even length could move by 4-byte copies (`TilePlan.copy_lanes`); measured against
    the tiles without (H200, ms), four times as many copies won up to 2x and lost up
    to 2x with no rule found between: f16 1022^3 0.0515 -> 0.0284, 33 x 4094 x 4098
    0.0650 -> 0.0327, 72 x 1762 x 5400 0.0584 -> 0.0387, but 5636 x 438 x 480 0.0347 ->
    0.0478 (its twin of rows of 440 0.0217), 696 x 192 x 718 0.0126 -> 0.0161, bf16
    159 x 430 x 2608 0.0253 -> 0.0489."""
    shapes = [v.type.get_shape() for v in op.inputs]  # type: ignore[attr-defined]
    return kind != "tf32" and device.async_copies and all(s[-1] % COPY_LANES == 0 for s in shapes)


def _skinny_rows(
    op: ComputeOp, device: DeviceInfo, num_wi: list[int], pt: list[int], pair: list[int], pw: list[int]
) -> Config:
    """All rows of the outer dimension of `pair` (at most 16, 4 a work-item) in every
    work-group, the rest of its work-items on the inner one, and the inputs that do not
    depend on the inner one in local memory with their reduced axes first, so a
    work-item reads its 4 rows' weights of one reduction step as one vector; the
    reduction's loop outside the rows (cuBLAS's shape for a few rows and a long
    reduction; H100, matmul 16 x 1000 x 2048: 25.5 -> 21.1 us in turns, and tuning from
    it found a configuration of this shape, 13.5 us, that 1091 evaluations from the old
    default had not)."""
    rows, cols = pair
    num_wi = list(num_wi)
    num_wi[rows] = op.sizes[rows] // pt[rows]
    num_wi[cols] //= num_wi[rows]
    outer = [d for d in range(op.rank) if d not in pw and d not in pair]
    cfg = _local_weights(op, _assemble(op, device, num_wi, pt, (*outer, *pw, *pair)), cols)
    layouts = [m if mem == "lcl" else own for m, own, mem in zip(_pw_major(op), cfg.buf_layout[0], cfg.inp_mem[0])]
    return cfg.with_(buf_layout=(tuple(layouts), cfg.buf_layout[1]))


def _filled(
    sizes: tuple[int, ...], kept: list[int], d: int, num_wi: list[int], device: DeviceInfo
) -> list[int]:
    """Work-items per dimension that fill the device without splitting a reduction
    across work-groups (its second kernel costs a launch: H100, bmatmul 16x10x500x64
    15.6 -> 10.7 us, the reductions over the outer dimension 35 -> 29 us): if there are
    fewer work-groups than `busy`, groups of `GROUP_MIN` kept work-items; then, while
    there are fewer work-items than `busy` groups of 256, twice as many of them (at most
    `SHARERS`) share reduction dimension `d`, each keeping at least `GROUP_MIN` of its
    elements."""
    if prod(ceildiv(sizes[k], num_wi[k]) for k in kept) >= _busy(device):
        return num_wi
    outputs = prod(sizes[k] for k in kept)
    most = min(SHARERS, sizes[d] // GROUP_MIN, device.max_wg_size // GROUP_MIN)
    share = 1
    while 2 * share <= most and share * outputs < _busy(device) * 256:
        share *= 2
    return _shared_reduction(sizes, kept, d, GROUP_MIN * share, share)


def _read_across(op: ComputeOp, d: int, r: int) -> bool:
    """Whether an input is contiguous along dimension `d` and also indexed by dimension
    `r` (matmul's B[k][j], for j and k)."""
    dims = [[dim_of(x) for x in maps[0].results] for maps in op.input_maps]
    return any(ds and ds[-1] == d and r in ds for ds in dims)


SECTOR = 8
"""Floats of a 32-byte memory sector, the unit a GPU reads."""


def _sector_columns(op: ComputeOp, device: DeviceInfo, d: int, r: int) -> Config | None:
    """With few outputs, whose reduction reads an input across its rows (`_read_across`;
    matmul 1 x 1000 x 2048): a work-group takes `SECTOR` consecutive outputs of `d`, 2
    work-items of 4 each (OpenCL dimension 0), and up to 128 work-items share the
    reduction `r`, so every row is read a sector at a time; the reduction is not split
    across work-groups (H100: 18.2 us with a work-group per output, each of its
    work-items reading 4 bytes of a sector; 8.1 us, tuned 7.9, in the runs of
    2026-11-23 03:41 and 03:55). None where that does not apply or `SECTOR` does not
    divide `d`."""
    if not _sectors(op, d, r):
        return None
    num_wi, pt = [1] * op.rank, [1] * op.rank
    num_wi[d], pt[d], num_wi[r] = 2, SECTOR // 2, min(128, op.sizes[r])
    cfg = _assemble(op, device, num_wi, pt, tuple(range(op.rank)), busy=0)
    wi_dims = tuple(0 if k == d else 1 if k == r else 2 for k in range(op.rank))
    return cfg.with_(ocl_dim=(cfg.ocl_dim[0], wi_dims))


def _sectors(op: ComputeOp, d: int, r: int) -> bool:
    """Whether `_sector_columns` applies to columns `d` and reduction `r`."""
    return _read_across(op, d, r) and op.sizes[d] % SECTOR == 0


SHARERS = 16
"""Work-items that share one output's reduction in the GPU default (see the docstring)."""
GROUP_MIN = 64
"""Fewest work-items of a GPU default work-group."""


def _shared_reduction(
    sizes: tuple[int, ...], kept: list[int], d: int, width: int, share: int = SHARERS
) -> list[int]:
    """Work-items per dimension: `share` on reduction dimension `d`, the rest of
    `width` on the kept dimensions, innermost first."""
    num_wi = [1] * len(sizes)
    num_wi[d] = min(share, sizes[d])
    for k, n in _spread(width // num_wi[d], kept, sizes).items():
        num_wi[k] = n
    return num_wi


def _gpu_vectors(op: ComputeOp, device: DeviceInfo, lanes: int = 4) -> Config | None:
    """Without pw dimensions, or without kept ones: 256 work-items, each taking `lanes`
    consecutive elements of the innermost dimension as one vector (more bytes in flight
    per load: measured on H100, bias_add 16x112x112x64 57% -> 64% of the copy
    bandwidth). Without kept dimensions (dot) the reduction is split over 4 work-groups
    per compute unit whose partial results the last one combines, in lanes (H100, dot
    2^24: 132 work-groups of 1024 scalar readers 58 us, this 51 us; a copy of the same
    bytes 45 us)."""
    sizes, rank = op.sizes, op.rank
    inner = rank - 1
    if sizes[inner] < lanes:
        return None
    narrowed = [*sizes[:inner], ceildiv(sizes[inner], lanes)]
    num_wi, pt = [1] * rank, [1] * rank
    for d, n in _spread(min(256, device.max_wg_size), list(range(rank)), narrowed).items():
        num_wi[d] = n
    pt[inner] = lanes
    whole = sizes[inner] % lanes == 0
    cfg = _widest_vectors(op, _assemble(op, device, num_wi, pt, tuple(range(rank))), (lanes,), whole=whole)
    return cfg if cfg.vector_width == lanes else None


def _gpu_scan_chunks(op: ComputeOp, device: DeviceInfo, items: int = 512, per_item: int = 8) -> Config | None:
    """With a `ps` innermost dimension: scan chunks of `items` work-items of `per_item`
    consecutive elements, read as vectors of 4 (H100, prefix_sum 2^24 with staged
    chunks, ms: 256 x 4 0.169, 256 x 8 0.147, 512 x 8 0.140, 512 x 16 0.170; 2^20:
    0.0243, 0.0238, 0.0237, 0.0240). None for any other computation."""
    sizes, rank = op.sizes, op.rank
    inner = rank - 1
    if op.combines[inner].kind != "ps" or sizes[inner] < 2 * items * per_item:
        return None
    num_wi, pt = [1] * rank, [1] * rank
    num_wi[inner], pt[inner] = min(items, device.max_wg_size), per_item
    return _widest_vectors(op, _assemble(op, device, num_wi, pt, tuple(range(rank))), (4,))


def _gpu_transposed_tiles(op: ComputeOp, device: DeviceInfo, side: int = 32) -> Config | None:
    """Without pw dimensions, when an input is contiguous along another dimension than
    the output (transpose): tiles of `side` x `side` on those two dimensions, that input
    cached in local memory with the output's dimension last, so global reads and writes
    are both coalesced (measured on H100: transpose 16x112x112x64 15% -> 66% of the copy
    bandwidth). None if no input is read across the output's order."""
    sizes, rank = op.sizes, op.rank
    out = dim_of(op.output_maps[0].results[-1])
    if out is None:
        return None
    for b, maps in enumerate(op.input_maps):
        dims = [dim_of(r) for r in maps[0].results]
        inner = dims[-1]
        if inner is None or inner == out or out not in dims or len(maps) > 1:
            continue
        if min(sizes[out], sizes[inner]) < side:
            continue
        num_wi, pt = [1] * rank, [1] * rank
        num_wi[out], num_wi[inner], pt[inner] = side, side // 4, 4
        cfg = _assemble(op, device, num_wi, pt, tuple(range(rank)))
        lcl = tuple("lcl" if i == b else m for i, m in enumerate(cfg.inp_mem[0]))
        layouts = list(cfg.buf_layout[0])
        layouts[b] = tuple(a for a in range(len(dims)) if dims[a] != out) + (dims.index(out),)
        wi_dims = tuple(0 if d == out else 1 if d == inner else 2 for d in range(rank))
        return cfg.with_(
            inp_mem=(lcl, cfg.inp_mem[1]),
            buf_layout=(tuple(layouts), cfg.buf_layout[1]),
            ocl_dim=(cfg.ocl_dim[0], wi_dims),
        )  # fmt: skip
    return None


SKINNY = 16
"""Most rows of a product that takes the few-rows shapes (`_skinny_rows`) instead of the
register tiles."""


def _register_tiles_pay(op: ComputeOp, device: DeviceInfo, rows: int) -> bool:
    """Whether the register tiles (`_gpu_register_tiles`, rows on `rows`) are the GPU
    default: a reduction and columns of at least 16 and more than `SKINNY` rows (or at
    least 256 work-groups of the other kept dimensions: contraction 16^6 x 32, 4.02 ->
    0.32 ms); with fewer rows, only for a reduction of at least 256 and more outputs than
    the shared reductions of the few-outputs shape take (H100, ResNet-50 1x1
    convolutions at n = 1 over 7x7 and 14x14 images, cuDNN / ours: 0.08-0.28 with one
    output a work-item, 0.36-1.26 with register tiles; the bar's bmatmul 16x10x500x64,
    reduction 64, 0.0072 ms with its shape, 0.0164 with register tiles; 3x3 over 7x7
    with shared reductions 2.5, with register tiles 0.53)."""
    sizes, (kept, pw) = op.sizes, _kinds(op)
    reduction = prod(sizes[d] for d in pw)
    if reduction < 16 or sizes[kept[-1]] < 16:
        return False
    others = prod(sizes[d] for d in kept[:-1] if d != rows)
    if sizes[rows] > SKINNY or others >= 256:
        return True
    return reduction >= 256 and prod(sizes[d] for d in kept) >= 256 * device.compute_units


def _register_rows(op: ComputeOp, kept: list[int]) -> int | None:
    """The register tile's rows: the largest kept dimension before the innermost (the
    inner one of equals) among those that no input indexes together with the innermost
    (matmul's i, a convolution's batch or image rows, not a batch that both inputs
    share), so that each input's tile serves the other's whole tile (H100, contraction
    16^6 x 32 with rows on a dimension of the innermost's input 2.48 ms, on one of the
    other input's 0.32; ResNet-50 conv5 3x3 at n = 32 over 7 x 7: rows on the 7 columns
    2.88 ms, on the batch 0.49). None where there is none: no input's tile would serve
    several of another's (a reduction of one input)."""
    cols = kept[-1]
    shared = set().union(*(dims for dims in _input_dims(op) if cols in dims))
    rows = [d for d in kept[:-1] if d not in shared]
    return max(rows, key=lambda d: (op.sizes[d], d)) if rows else None


SHARED_WORK = 1 << 21
"""Most products (outputs times reduction) for which a GPU default of fewer outputs than
64 a compute unit shares each output's reduction among work-items (`_filled`) instead of
taking the register tiles, split by `_few_outputs_split`, where those pay
(`_register_tiles_pay`): each output's work-items read a column of the other input a
sector an element, once for each row of outputs. `SECTOR_WORK` where the columns go a
sector at a time (`_sector_columns`). H200, ms (shared, register tiles split in 64):
matmul 48 x 33 x 700 (1.1M products) 0.0079, 0.0107; 64 x 33 x 700 (1.5M) 0.0086, 0.0107;
17 x 71 x 257 0.0063, 0.0094; 24 x 100 x 700 (1.7M) 0.0154, 0.0100; 100 x 33 x 700 (2.3M)
0.0102, 0.0108; 64 x 100 x 700 (4.5M) 0.0108, 0.0114; 48 x 150 x 700 (5M) 0.0374, 0.0110;
40 x 150 x 1000 0.0434, 0.0112; 29 x 257 x 2910 0.145, 0.0151; bmatmul 2 x 40 x 100 x 1000
0.0583, 0.0116; below 0.01 ms, the split's two kernels cost more than they save."""
SECTOR_WORK = 1 << 24
"""`SHARED_WORK` for products whose columns `_sector_columns` reads a sector at a time.
H200, ms (sectors, register tiles split in 64): matmul 100 x 16 x 700 0.0058, 0.0105; 33 x
200 x 400 0.0084, 0.0103; 127 x 16 x 2910 (5.9M) 0.0107, 0.0137; 64 x 64 x 2910 (11.9M)
0.0129, 0.0141; 20 x 64 x 3000 (3.8M, 160 work-groups) 0.0168, 0.0119; 29 x 256 x 2910
(21.6M) 0.0536, 0.0198; 60 x 120 x 5000 (36M) 0.0422, 0.0177."""


def _shared_reductions_pay(op: ComputeOp) -> bool:
    """Whether a GPU default of few outputs shares each output's reduction among
    work-items (`SHARED_WORK`, `SECTOR_WORK`) rather than take the register tiles."""
    kept, pw = _kinds(op)
    if not kept or not pw:
        return True
    work = prod(op.sizes[d] for d in kept + pw)
    return work < (SECTOR_WORK if _sectors(op, kept[-1], pw[-1]) else SHARED_WORK)


FEW_OUTPUTS_SPLITS = 64
"""Most parts of the reduction a work-group of `_few_outputs_split` takes."""
FEW_OUTPUTS_PART = 16
"""Fewest elements of a part of `_few_outputs_split`'s reduction (H200, matmul 40 x 150
x 1000 in register tiles of 64, ms: 8 parts of 125 elements 0.0164, 32 of 32 0.0112)."""


def _few_outputs_split(op: ComputeOp, device: DeviceInfo, pair: list[int], pw: list[int]) -> tuple[int, int]:
    """The register tiles' side and split where the outputs are few (`SHARED_WORK`):
    64, and the innermost reduction split until its work-groups fill a wave, in up to
    `FEW_OUTPUTS_SPLITS` parts of at least `FEW_OUTPUTS_PART` elements (H200, matmul 29 x
    257 x 2910, 10 work-groups, ms: split in 8 0.0398, 16 0.0241, 32 0.0173, 64 0.0151;
    60 x 120 x 5000 0.0671, 0.0380, 0.0240, 0.0177; sides of 128 slower: 16 parts 0.0284)."""
    groups = _tile_groups(op, pair, 64)
    return 64, reduction_parts(groups, op.sizes[pw[-1]], device, FEW_OUTPUTS_SPLITS, FEW_OUTPUTS_PART)


def _tile_groups(op: ComputeOp, pair: list[int], side: int) -> int:
    """Work-groups over the kept dimensions of the register tiles of `side` on `pair`."""
    tiles = _merged(_side_tiles(op, pair, side))
    return prod(ceildiv(op.sizes[d], tiles.get(d, 1)) for d in _kinds(op)[0])


def _side_and_split(op: ComputeOp, device: DeviceInfo, pair: list[int], pw: list[int]) -> tuple[int, int]:
    """The register tiles' work-group side and the split of the innermost reduction
    across work-groups. A wave is two work-groups a compute unit. 128 where its
    work-groups fill 0.8 of a wave; else 64 where they fill one, or half of one for a
    reduction shorter than 2048 (too short to pay for a split); else the reduction is
    split in up to 8 parts (each at least 64 long) until one wave is filled, with 128
    for a reduction of at least 2048 elements whose split work-groups fill half a wave,
    else 64. Measured on an H200
    (132 compute units) with padded tiles clamping their reads (ms; this rule's pick,
    the others): matmul 2000^3 128/1 0.387 (64/1 0.556, 128/2 0.431); 3000^3 128/1
    1.41 (64/1 1.68, 128/2 1.36); 1000^3 64/1 0.079 (64/2 0.093, 128/1 0.110, 128/4
    0.074); 500^3 64/4 0.026 (128/8 0.023); 128 x 4096 x 4096 128/8 0.116 (64/4 0.170);
    4096 x 4096 x 32 128/1 0.038 (64/1 0.046); ResNet-50 at n = 32: 1x1 256 to 128 over
    56 x 56, 784 work-groups of 128, 128/1 0.230 (64/1 0.328), 1x1 512 to 128 over 28 x
    28, 196 of 128, 64/1 0.131 (128/1 0.168), 3x3 over 14 x 14 64/1 0.293 (128/4 0.338),
    1x1 2048 to 512 over 7 x 7 128/8 0.145 (64/1 0.180); at n = 1, 3x3 stride 2 over 14
    x 14 64/4 0.094 (128/4 0.174)."""
    sizes = op.sizes
    count = {side: _tile_groups(op, pair, side) for side in (64, 128)}
    smaller, parts = side_and_split(count[128], count[64], prod(sizes[d] for d in pw), sizes[pw[-1]], device)
    return (64 if smaller else 128), parts


def side_and_split(larger: int, smaller: int, reduction: int, inner: int, device: DeviceInfo) -> tuple[bool, int]:
    """`_side_and_split`'s rule for work-groups of tiles of two sides, `larger` and
    `smaller` of them (with the larger and the smaller side), a reduction of `reduction`
    elements whose innermost dimension has `inner`: whether to take the smaller side,
    and the parts to split the innermost reduction into across work-groups."""
    wave = _wave(device)
    if filled(larger, device):
        return False, 1
    if smaller >= wave or (smaller >= wave / 2 and reduction < 2048):
        return True, 1
    if reduction >= 2048 and larger * reduction_parts(larger, inner, device) >= wave / 2:
        return False, reduction_parts(larger, inner, device)
    return True, reduction_parts(smaller, inner, device)


def _wave(device: DeviceInfo) -> int:
    """Work-groups that keep a GPU's compute units busy: two on each."""
    return 2 * device.compute_units


def filled(groups: int, device: DeviceInfo) -> bool:
    """Whether `groups` work-groups fill a wave (`_wave`), 0.8 of one counting: splitting
    a reduction to fill the rest cost more than it gained (matmul 2000^3 on an H200:
    256 work-groups of 128 x 128 for 264 0.387 ms, split in two 0.431 ms)."""
    return groups >= 0.8 * _wave(device)


def reduction_parts(groups: int, size: int, device: DeviceInfo, most: int = 8, shortest: int = 64) -> int:
    """The parts to split a reduction of `size` elements into across work-groups so that
    `groups` work-groups, each split as many times, fill a wave (`_wave`): doubling, up
    to `most` parts of at least `shortest` elements each; 1 where `groups` fill it
    already."""
    parts = 1
    while parts < most and groups * parts < _wave(device) and size // (2 * parts) >= shortest:
        parts *= 2
    return parts


def _gpu_register_tiles(
    op: ComputeOp, device: DeviceInfo, pair: list[int], pw: list[int], side: int = 128, split: int = 1,
    extend: bool = True,
) -> Config:
    """A GEMM-like shape: 16 x 16 work-items on `pair` (fewer on a dimension of fewer
    than 32 elements), each computing outputs in interleaved private tiles of 2
    (conflict-free local reads), work-group tiles of up to `side` x `side`, the innermost
    pw dimension split across `split` work-groups (their partial results combined by a
    second kernel), pw dimensions in local tiles of 8 with every input cached in local
    memory and the next tile's copies loaded during this one (`prefetch`; H100,
    matmul 4096^3: 4.35 -> 4.22 ms), vectors of 2 along the innermost dimension.
    Local tiles are stored with the pw axes outermost, so that the private tiles read
    consecutive elements (A's pairs of rows merge into one read), and rows padded by 4
    (`lcl_pad`) so that the work-items storing a column of A hit different banks
    (H100, matmul 4096^3 in one process: 4.26 ms as before; with these layouts 3.48,
    padded by 1, 4 or 8: 3.95, 3.22, 3.23 ms; 1 breaks the 16-byte alignment of the
    vector accesses)."""
    sizes, rank = op.sizes, op.rank
    num_wi, pt = [1] * rank, [1] * rank
    sides = _side_tiles(op, pair, side, extend)
    for d in pair:
        num_wi[d], pt[d] = max(1, min(16, sides[d][d] // 2)), min(2, sides[d][d])
        wanted = min(16, prod(sides[d].values()) // 2)
        for e, tile in list(sides[d].items())[1:]:
            num_wi[e] = max(1, min(tile, wanted // prod(num_wi[x] for x in sides[d])))
    tiles = _merged(sides)
    cfg = _assemble(op, device, num_wi, pt, tuple(pw + [d for d in range(rank) if d not in pw]))
    lt, num_wg = list(cfg.lt_size), list(cfg.num_wg)
    for d, tile in tiles.items():
        lt[d] = tile
        num_wg[d] = ceildiv(sizes[d], tile)
    for d in pw:
        lt[d], pt[d], num_wg[d] = min(8, sizes[d]), 1, 1
    if split > 1:
        num_wg[pw[-1]] = min(split, ceildiv(sizes[pw[-1]], lt[pw[-1]]))
    inputs = len(op.inputs)
    cfg = cfg.with_(
        lt_size=tuple(lt), pt_size=tuple(pt), num_wg=tuple(num_wg),
        inp_mem=(("lcl",) * inputs, ("glb",) * inputs),
        ocl_dim=(_ocl_dims(num_wg), _ocl_dims(num_wi)),
        buf_layout=(_pw_major(op), cfg.buf_layout[1]),
        prefetch=1,
        lcl_pad=4,
        wg_combine="kernel",
    )  # fmt: skip
    return _widest_vectors(op, cfg, (2,), whole=True)


def _outer_steps(op: ComputeOp, cfg: Config) -> Config:
    """`cfg` with the local tiles of the pw dimensions before the innermost of 1: the
    GPU default's register tiles where those with whole ones do not fit local memory (a
    5 x 5 filter's 25 x 8 reduction steps of 128 channels take 100 KB; H200, ResNet-like
    5 x 5 convolution of 512 to 320 channels over 7 x 7 at n = 16: 4.669 ms with one
    output a work-item, 0.4245 in these tiles, cuDNN 0.4305)."""
    pw = _kinds(op)[1]
    return cfg.with_(lt_size=tuple(1 if d in pw[:-1] else t for d, t in enumerate(cfg.lt_size)))


def _side_tiles(op: ComputeOp, pair: list[int], side: int, extend: bool = True) -> dict[int, dict[int, int]]:
    """Per dimension of `pair`, the local tile sizes of its side of the register tiles,
    `side` elements where the sizes allow: its own (the largest power of two up to `side`
    it holds) and, where that holds fewer, those of the kept dimensions on the same side
    (indexed by no input of the other side's dimension), innermost first (a
    contraction's e beside its 16 f, a convolution's image columns beside a batch of
    32): without them a side of 16 halves each input's reuse and doubles the
    work-groups, each of which reloads its tiles. Without `extend`, the pair's own only."""
    sizes, kept, dims = op.sizes, _kinds(op)[0], _input_dims(op)
    tiles: dict[int, dict[int, int]] = {}
    for d, other in zip(pair, reversed(pair)):
        foreign = set().union(*(used for used in dims if other in used))
        tiles[d] = {d: min(side, 1 << (sizes[d].bit_length() - 1))}
        room = side // tiles[d][d] if extend else 1
        for e in reversed(kept):
            if room >= 2 and e not in pair and e not in foreign:
                tiles[d][e] = min(sizes[e], room)
                room //= tiles[d][e]
    return tiles


def _merged(sides: dict[int, dict[int, int]]) -> dict[int, int]:
    """The local tile sizes of both sides of `_side_tiles`, by dimension."""
    return {d: tile for side in sides.values() for d, tile in side.items()}


def _gpu_output_tiles(op: ComputeOp, device: DeviceInfo, pair: list[int], pw: list[int]) -> Config:
    """Where the GEMM-like shape's local tiles do not fit (a stencil's halo) or the
    reduction is too short to stream (every pw dimension under 64): 4 x 64 work-items on
    `pair`, each computing 4 x 2 outputs (4 x 1 where the second dimension has fewer
    than 128 elements) with the pw dimensions outermost, so each weight read serves 8
    outputs (measured on H100: gaussian 4096^2 5x5 0.156 -> 0.074 ms, against one output
    per work-item). The caller tries it first with the weights in local memory
    (`_local_weights`; ResNet-50's first layer, n = 16: 0.74 -> 0.26 ms)."""
    num_wi, pt = [1] * op.rank, [1] * op.rank
    for d, wi, tile in zip(pair, (4, 64), (4, 2)):
        num_wi[d], pt[d] = wi, min(tile, op.sizes[d] // wi)
    return _assemble(op, device, num_wi, pt, tuple(pw + [d for d in range(op.rank) if d not in pw]))


def _local_weights(op: ComputeOp, cfg: Config, d: int) -> Config:
    """`cfg` with the inputs that do not depend on dimension `d` (the weights of
    `_gpu_output_tiles`) cached in local memory."""
    weights = tuple("glb" if d in dims else "lcl" for dims in _input_dims(op))
    return cfg.with_(inp_mem=(weights, cfg.inp_mem[1]))


def _cpu_config(op: ComputeOp, device: DeviceInfo, inner: int) -> Config:
    """One work-item per work-group; a register tile, `inner` the innermost loop; the
    tile packed in a panel where `_packed_panel` applies. Without a reduction, a tile
    read as vectors is one row: more rows reuse nothing and only add streams (PoCL,
    jacobi3d 256^3: 4 rows of 16, 18 ms; one row, 8.1; exp 6.1 and 5.7 ms), while a
    tile without vectors keeps its rows (transpose: 4 rows 10 ms, one row 19). Where
    no vector width applies because an input is not contiguous along `inner`, the
    output's innermost dimension, the transposed panel of `_transposed_panel` if there
    is one."""
    kept, pw = _kinds(op)
    order = [d for d in kept if d != inner] + ([inner] if inner in kept else [])
    if inner in pw:
        rows = _widest_vectors(op, _cpu_tile(op, device, order, inner, (4,)), CPU_LANES)
        return _unrolled_pieces(op, rows, inner)
    plain = _vector_tile(op, device, order, inner)
    if not pw and plain.vector_width > 1:
        plain = _vector_tile(op, device, order, inner, (16,))
    written = op.output_maps[0].results
    if plain.vector_width == 1 and written and inner == dim_of(written[-1]):
        transposed = _transposed_panel(op, device, order, inner)
        if transposed is not None:
            return transposed
    panel = _packed_panel(op, device, plain) if _panel_bytes(op, plain) >= PANEL_MIN_BYTES else None
    return plain if panel is None or violations(op, panel, device) else panel


def _transposed_panel(op: ComputeOp, device: DeviceInfo, order: list[int], inner: int) -> Config | None:
    """The inputs not contiguous along `inner` transposed into a packed panel
    (`_transposed_inputs`, `_packed_panel`), the tile's rows along a dimension they do
    not depend on, preferably one another input reads contiguously (tensor contraction
    on PoCL: 63.5 -> 37 ms; rows along A's second axis 66 ms); None where that gives no
    valid vectorized configuration."""
    along = set().union(*(used for used in _input_dims(op) if inner in used))
    rows = [d for d in order[:-1] if d not in along]
    if not rows:
        return None
    lasts = {dim_of(amap.results[-1]) for maps in op.input_maps for amap in maps if amap.results}
    row = max(rows, key=lambda d: (d in lasts, rows.index(d)))
    order = [d for d in order[:-1] if d != row] + [row, inner]
    transposed = _transposed_inputs(op, _cpu_tile(op, device, order, inner), inner)
    if transposed is None:
        return None
    panel = _packed_panel(op, device, _widest_vectors(op, transposed, CPU_LANES))
    if panel is None or panel.vector_width == 1 or violations(op, panel, device):
        return None
    return panel


def _unrolled_pieces(op: ComputeOp, cfg: Config, inner: int) -> Config:
    """`cfg`, whose innermost loop runs over reduction `inner`, with that loop cut into
    pieces of at most `FULL_UNROLL` vectors, so that it unrolls and the loads of the
    rows of the register tile are in flight together (measured on PoCL, matvec 4096^2:
    16 rows, whole 4096-element rows 3.6 ms; 4 rows in pieces of 1024 elements 2.5 ms,
    of 2048 (not unrolled) 4.1 ms; numpy 1.85)."""
    lanes, whole = cfg.vector_width, cfg.lt_size[inner]
    pieces = [t for t in range(lanes, FULL_UNROLL * lanes + 1, lanes) if whole % t == 0]
    if lanes == 1 or not pieces:
        return cfg
    pt = list(cfg.pt_size)
    pt[inner] = max(pieces)
    return cfg.with_(pt_size=tuple(pt))


def _cpu_tile(
    op: ComputeOp, device: DeviceInfo, order: list[int], inner: int, tiles: tuple[int, ...] = (16, 4),
    side: int | None = None,
) -> Config:
    """A register tile of `tiles` (innermost first) on the last kept dimensions of
    `order`, the pw dimensions outside it (except `inner`, innermost if it is one); its
    inner side `side` if given; where an input is read once for all its rows (a
    product's B) and `inner` is kept, its rows as many as the accumulator registers
    hold (`_accumulator_rows`)."""
    pw = _kinds(op)[1]
    pt = [1] * op.rank
    for i, (d, tile) in enumerate(zip(reversed(order), tiles)):
        if i == 0:
            pt[d] = side or _register_tile(op.sizes[d], tile)
        elif inner in pw or all(d in dims for dims in _input_dims(op)):
            pt[d] = _rows(op.sizes[d], tile)
        else:
            pt[d] = _accumulator_rows(op.sizes[d], pt[order[-1]], tile)
    loops = [d for d in pw if d != inner] + order + ([inner] if inner in pw else [])
    return _assemble(op, device, [1] * op.rank, pt, tuple(loops))


PANEL_TILES = 64
PANEL_MIN_BYTES = 16 << 10
"""Smallest panel packed for a plain register tile: a smaller one stays in the cache
without it (PoCL, bmatmul 16x10x500x64, 5 KB panels of 64 x 20 floats: packed 0.61 ms,
not packed 0.28, numpy 0.27, blocks of runs in turns; matmul 1024^3's 64 KB panels gain,
see `_packed_panel`; sizes in between not measured)."""


def _panel_bytes(op: ComputeOp, cfg: Config) -> int:
    """Bytes of the panel that a register tile's inner dimension reads across the whole
    reduction (float32 elements)."""
    kept, pw = _kinds(op)
    tiled = [d for d in cfg.loop_order[1] if d in kept and cfg.pt_size[d] > 1]
    return 4 * cfg.pt_size[tiled[-1]] * prod(op.sizes[d] for d in pw) if tiled else 0


def _packed_panel(op: ComputeOp, device: DeviceInfo, cfg: Config) -> Config | None:
    """With a reduction, `cfg` with the inputs read as vectors along the register
    tile's inner dimension but not depending on its outer one (matmul's B) copied once
    per work-group into local memory, and the work-group computing about `PANEL_TILES`
    register tiles (whole divisors, rounded up) one after another over the dimensions
    those inputs do not depend on (the tile's outer one first), as long as 4 work-groups
    per compute unit remain: every tile then reads one contiguous panel instead of rows
    a page apart (measured on PoCL: matmul 1024^3 24.6 -> 12.9 ms, numpy 13.7; 128
    tiles 14.0 ms; tensor contraction with 48 tiles 51 ms, 96 tiles 40).
    None where no input qualifies or a work-group would compute a single tile."""
    kept, pw = _kinds(op)
    tiled = [d for d in cfg.loop_order[1] if d in kept and cfg.pt_size[d] > 1]
    if not pw or len(tiled) < 2:
        return None
    outer, inner = tiled[-2:]
    dims = _input_dims(op)
    panels = [inner in used and outer not in used for used in dims]
    cached = tuple("lcl" if p else mem for p, mem in zip(panels, cfg.inp_mem[0]))
    shared = set().union(*(used for used, mem in zip(dims, cached) if mem == "lcl"))
    lt, num_wg, tiles = list(cfg.lt_size), list(cfg.num_wg), 1
    busy = _busy(device)
    for d in [outer, *(d for d in reversed(kept) if d != outer and d not in shared)]:
        count = ceildiv(op.sizes[d], cfg.pt_size[d])
        others = prod(num_wg[k] for k in kept if k != d)
        fits = [t for t in range(1, count + 1) if count % t == 0 and others * (count // t) >= busy]
        enough = [t for t in fits if t * tiles >= min(PANEL_TILES, count * tiles)]
        take = min(enough) if enough else max(fits, default=1)
        lt[d], tiles = min(op.sizes[d], take * cfg.pt_size[d]), tiles * take
        num_wg[d] = ceildiv(op.sizes[d], lt[d])
    if not any(panels) or tiles == 1:
        return None
    return _with_groups(cfg.with_(lt_size=tuple(lt), inp_mem=(cached, cfg.inp_mem[1])), num_wg)


def _transposed_inputs(op: ComputeOp, cfg: Config, d: int) -> Config | None:
    """`cfg` with the inputs that dimension `d` indexes along an axis other than their
    last cached in local memory with that axis last, so that vectors along `d` read
    them contiguously (tensor contraction abcdef-gdab-efgc: B's f axis). None where no
    input needs it or an input's index along `d` is not a single axis."""
    mem, layouts = list(cfg.inp_mem[0]), list(cfg.buf_layout[0])
    for b, maps in enumerate(op.input_maps):
        for amap in maps:
            forms = linear_results(amap)
            if forms is None:
                return None
            moving = [a for a, f in enumerate(forms) if f.coeffs[d]]
            if len(moving) > 1 or (moving and forms[moving[0]].coeffs[d] != 1):
                return None
            if moving and moving[0] != len(forms) - 1:
                mem[b] = "lcl"
                layouts[b] = tuple(a for a in range(len(forms)) if a != moving[0]) + (moving[0],)
    if "lcl" not in mem:
        return None
    return cfg.with_(inp_mem=(tuple(mem), cfg.inp_mem[1]), buf_layout=(tuple(layouts), cfg.buf_layout[1]))


def _pw_major(op: ComputeOp) -> tuple[tuple[int, ...], ...]:
    """Per input (linear maps), its axes with those indexed by a pw dimension first."""
    pw = [c.kind == "pw" for c in op.combines]
    layouts = []
    for maps in op.input_maps:
        forms = linear_results(maps[0])
        assert forms is not None, "a local tile needs linear index maps"
        reduced = [any(c and p for c, p in zip(f.coeffs, pw)) for f in forms]
        layouts.append(tuple(sorted(range(len(forms)), key=lambda a: not reduced[a])))
    return tuple(layouts)


def _reads_shared(op: ComputeOp) -> bool:
    """Whether some input element is read for several outputs: an input does not index
    every kept dimension (matmul's A and B), or indexes one through a sum with a pw
    dimension (a stencil's or a convolution's window). Without, output tiles reuse
    nothing (a sum over the innermost axis)."""
    kept = set(_kinds(op)[0])
    for maps in op.input_maps:
        if not kept <= set().union(*(m.used_dims() for m in maps)):
            return True
        for m in maps:
            forms = linear_results(m)
            if forms is None:
                return True
            for f in forms:
                dims = {d for d, c in enumerate(f.coeffs) if c}
                if dims & kept and dims - kept:
                    return True
    return False


def _input_dims(op: ComputeOp) -> list[set[int]]:
    """Per input, the dimensions its index maps use."""
    return [set().union(*(m.used_dims() for m in maps)) for maps in op.input_maps]


def _vector_tile(
    op: ComputeOp, device: DeviceInfo, order: list[int], inner: int, tiles: tuple[int, ...] = (16, 4)
) -> Config:
    """The register tile of `_cpu_tile` with the widest vectors (`CPU_LANES`); where
    none fits its inner side (no divisor of the size near the tile's is a multiple of
    4), with that side the largest multiple of 4 up to the tile's and the widest
    vectors that then fit, its last tile partial (the vector that ends beyond it split
    off to scalar code: `mdh-vectorize`). Measured on PoCL, matmul 1023^3: 33 columns,
    no vectors, 199 ms; 16 columns, vectors of 16, 14.8 ms (numpy 12.9; 1024^3, 12.0)."""
    wide = _widest_vectors(op, _cpu_tile(op, device, order, inner, tiles), CPU_LANES)
    n = op.sizes[order[-1]]
    if wide.vector_width > 1 or n < 4:
        return wide
    side = min(tiles[0], n - n % 4)
    vectors = _widest_vectors(op, _cpu_tile(op, device, order, inner, tiles, side), CPU_LANES)
    return vectors if vectors.vector_width > 1 else wide


def _widest_vectors(op: ComputeOp, cfg: Config, widths: tuple[int, ...], whole: bool = False) -> Config:
    """`cfg` with the first of `widths` the rule `vector-width` allows, else unchanged;
    with `whole`, only a width that leaves no vector partial (`TilePlan.partial_vectors`:
    the GPU defaults, where the split bodies of partial vectors are not measured)."""
    for w in widths:
        plan = TilePlan(op, cfg.with_(vector_width=w))
        if vector_problem(plan) is None and not (whole and plan.partial_vectors(cfg.loop_order[1][-1])):
            return cfg.with_(vector_width=w)
    return cfg


def _busy(device: DeviceInfo) -> int:
    """Work-groups that keep a device busy: 4 per compute unit."""
    return 4 * device.compute_units


def _kinds(op: ComputeOp) -> tuple[list[int], list[int]]:
    kinds = [c.kind for c in op.combines]
    return [d for d, k in enumerate(kinds) if k != "pw"], [d for d, k in enumerate(kinds) if k == "pw"]


def _assemble(
    op: ComputeOp, device: DeviceInfo, num_wi: list[int], pt: list[int], pt_order, busy: int | None = None
) -> Config:
    """Tile sizes and work-group counts around the chosen work-items and private tiles;
    the innermost pw dimension is split across work-groups until there are `busy` of
    them (by default 4 per compute unit; 0: not split), in local tiles of its work-items'
    private tiles (a pw dimension without work-items: one private tile of it all). Where
    all work-groups share the same outputs, no more than a work-group's work-items, the
    last one to finish combines their partial results (`wg_combine = "last"`, where the
    device allows it) instead of a second kernel (H100: dot 2^24 62 -> 55 us, 10^7 63
    -> 53 us; histogram 2^24, whose 256 kept work-groups each have outputs of their own,
    18.2 -> 19.8 ms, measured when one work-group combined every output element)."""
    sizes, rank = op.sizes, op.rank
    kept, pw = _kinds(op)
    busy = _busy(device) if busy is None else busy
    lt, num_wg = list(sizes), [1] * rank
    for d in kept:
        lt[d] = min(sizes[d], num_wi[d] * pt[d])
    if device.kind == "cpu" and not pw:
        _enlarge_tiles(lt, kept, sizes, 64 * device.compute_units)
    for d in kept:
        num_wg[d] = ceildiv(sizes[d], lt[d])
    for d in pw:
        lt[d] = sizes[d]
        pt[d] = pt[d] if num_wi[d] > 1 else sizes[d]
    kept_groups = prod(num_wg[d] for d in kept)
    wg_combine = "kernel"
    if pw and kept_groups < busy:
        d = pw[-1]
        groups = ceildiv(busy, kept_groups)
        lt[d] = num_wi[d] * pt[d] if num_wi[d] > 1 else ceildiv(sizes[d], groups)
        pt[d] = min(pt[d], lt[d])
        num_wg[d] = min(groups, ceildiv(sizes[d], lt[d]))
        shared = kept_groups == 1 and prod(sizes[k] for k in kept) <= prod(num_wi)
        if num_wg[d] > 1 and shared and device.fences_across_groups:
            wg_combine = "last"
    return _uncached(op, num_wg, num_wi, lt, pt, pt_order).with_(wg_combine=wg_combine)


def _uncached(op: ComputeOp, num_wg, num_wi, lt, pt, pt_order) -> Config:
    """The configuration of these tiles without caches: inputs read from global memory,
    private accumulators, identity layouts, OpenCL dimensions innermost first."""
    inputs = len(op.inputs)
    return Config(
        num_wg=tuple(num_wg),
        num_wi=tuple(num_wi),
        lt_size=tuple(lt),
        pt_size=tuple(pt),
        inp_mem=(("glb",) * inputs, ("glb",) * inputs),
        res_mem=("prv",) * len(op.outputs),
        ocl_dim=(_ocl_dims(num_wg), _ocl_dims(num_wi)),
        buf_layout=tuple(
            tuple(tuple(range(len(v.type.get_shape()))) for v in op.inputs)  # type: ignore
            for _ in range(2)
        ),  # type: ignore[arg-type]
        loop_order=(tuple(range(op.rank)), tuple(pt_order)),
    )


ACCUMULATORS = 12
"""Vector accumulators a CPU register tile keeps in registers: its rows times the
vectors of its inner side (`_accumulator_rows`)."""
MOST_ROWS = 6
"""Most rows `_accumulator_rows` aims at."""


def _accumulator_rows(n: int, side: int, most: int) -> int:
    """Rows of a register tile over n rows whose inner side is `side`: `_rows` of as
    many as keep `ACCUMULATORS` vectors of the side's widest `CPU_LANES`, at most
    `MOST_ROWS`, where those are more than `most` and divide n; else `_rows` of `most`
    (a side of 20 in float4, 5 vectors, keeps 5 rows of 10 instead of 2: fewer rows
    than the default's were not measured). PoCL, 2 processes x 2 alternations, ms:
    matmul 1023^3 (11 rows of 16 columns for 3) 13.0 -> 7.2, ResNet-50 1 x 1 128 to 512
    at n = 1 0.68 -> 0.34, tensor contraction 16^6 x 32 11.6 -> 7.3, 458 x 4830 x 336
    7.7 -> 5.4, 59 other changed defaults 0.74x the time (3 slower). A partial last
    tile of rows lost (127^3: 4 rows 0.068, 6 rows 0.094; 13 rows of 6 for 4: 1.07x the
    time), and so did rows that share no input (a sum over the outer dimension of 1024
    x 1024 x 16 in 8 rows: 1.52x)."""
    lanes = _widest_lanes(side)
    budget = min(MOST_ROWS, ACCUMULATORS // (side // lanes)) if lanes > 1 else 0
    if budget > most:
        rows = _rows(n, budget)
        if n % rows == 0:
            return rows
    return _rows(n, most)


def _widest_lanes(side: int) -> int:
    """The widest of `CPU_LANES` dividing `side`, else 1 (scalars)."""
    return next((w for w in CPU_LANES if side % w == 0), 1)


def _rows(n: int, most: int) -> int:
    """Rows of a register tile: the largest divisor of n up to `most`, unless that is
    less than `most - 1`: then a divisor below 2 `most` if there is one, else `most`
    rows, the last tile partial (its rows clamped). More rows than `most` multiply the
    accumulators beyond the registers (PoCL, bmatmul 16x10x500x64: 10 rows of 20, 50
    float4 accumulators, 0.39 ms; 2 rows 0.24 ms; numpy 0.30; blocks of runs in turns);
    fewer leave too few accumulators to hide the FMAs' latency (PoCL, matmul
    530x172x3824, tiles of 16 columns: 2 rows 12.3 ms, 5 rows 6.6; 458x4830x336: 2
    rows 16.6 ms, 4 rows, the last tile partial, 11.2; 602x398x230: 2 rows 3.1 ms, 7
    rows 1.1)."""
    rows = max(t for t in range(1, min(n, most) + 1) if n % t == 0)
    if rows >= most - 1 or n <= most:
        return rows
    more = [t for t in range(most + 1, 2 * most) if n % t == 0]
    return more[0] if more else most


def _register_tile(n: int, most: int) -> int:
    """The inner side of a register tile over n points: of `most`, the divisors of n
    between most / 2 and 2.5 most and those of most / 2, most / 4, ... down to 4, the
    one that covers n in the fewest vector operations (`_vector_ops`), the largest of
    equals; `most` if it divides n (n if smaller). Whole vectors of `CPU_LANES` beat a
    divisor that only narrower vectors fit (PoCL: matmul 3540x168x2010 in 28 columns of
    float4 38.5 ms, in 16 of float16, the last tile partial, 17.1; 530x172x3824 in 4
    columns 27.2, 16 12.3; 73x4824x1262 in 36 columns 21.0, 16 9.7), but not a tail of
    scalar code as long as the vectors (19x72x748: 36 columns of float4 0.089 ms, 16 of
    float16 0.139). Measured on PoCL: bmatmul 16x10x500x64 with 10 x 20 tiles 0.32 ms,
    with the powers of two 4 x 4 1.78 ms."""
    if n % most == 0 or n < 4:
        return min(n, most)
    most = min(n, most)
    near = [t for t in range(max(1, most // 2), int(2.5 * most) + 1) if n % t == 0]
    halves = [t for t in (most >> h for h in range(most.bit_length())) if t >= 4 and n % t == 0]
    return min([most, *near, *halves], key=lambda t: (_vector_ops(n, t), -t))


def _vector_ops(n: int, side: int) -> float:
    """Operations per row and reduction step that cover n points in tiles of `side`
    with the widest vectors of `CPU_LANES` dividing it (else scalars), in units of a
    vector's load and FMAs: one a whole vector; where the last tile is partial, one
    for each lane of the vector that crosses its end (`mdh-vectorize` runs it as
    scalars); and `TILE_OPS` a tile, the broadcast of its rows' input."""
    lanes = _widest_lanes(side)
    tail = n % side
    vectors = n // side * (side // lanes) + tail // lanes + (lanes if tail % lanes else 0)
    return vectors + TILE_OPS * ceildiv(n, side)


TILE_OPS = 4 / 5
"""A register tile's share of operations that do not grow with its columns (4 rows:
4 broadcasts, against 5 operations a vector of the row: its load and 4 FMAs)."""


def _enlarge_tiles(lt: list[int], kept: list[int], sizes, groups: int) -> None:
    """Grow the kept dimensions' tiles (in whole tiles, at most the dimension: merging
    every tile of a dimension whose last one is partial gives the dimension's size),
    innermost first, until about `groups` work-groups remain: a work-group then reads
    contiguous memory (measured on PoCL: bias_add 16x112x112x64 15.2 -> 3.8 ms against
    growing the outer ones first)."""
    total = prod(ceildiv(sizes[d], lt[d]) for d in kept)
    for d in reversed(kept):
        if total <= groups:
            return
        tiles = ceildiv(sizes[d], lt[d])
        merge = min(tiles, ceildiv(total, groups))
        lt[d] = min(sizes[d], lt[d] * merge)
        total = total // tiles * ceildiv(tiles, merge)


def complete_config(op: ComputeOp, device: DeviceInfo) -> Config:
    """The op's configuration, missing keys chosen to fit the given ones.

    Per dimension: a missing lt_size gives each work-group one local tile when num_wg is
    given; a missing pt_size, num_wi or num_wg is the default's, reduced to what the
    tile sizes allow; a missing ocl_dim follows the final counts; a missing vector_width
    is the widest the configuration allows if the default vectorizes at all.
    """
    given = Config.from_attr(op.config, op) if op.config is not None else {}
    base = default_config(op, device)
    if not given:
        return base
    fields: dict[str, list[int]] = {k: [] for k in ("num_wg", "num_wi", "lt_size", "pt_size")}
    for d, n in enumerate(op.sizes):
        pick = lambda key, value: given[key][d] if key in given else value  # noqa: E731
        wi = pick("num_wi", base.num_wi[d])
        lt = base.lt_size[d]
        if "num_wg" in given:
            lt = ceildiv(n, given["num_wg"][d])
        elif "num_wi" in given or "pt_size" in given:
            lt = wi * pick("pt_size", base.pt_size[d])
        lt = max(1, min(n, pick("lt_size", lt)))
        pt = max(1, min(lt, pick("pt_size", min(base.pt_size[d], max(1, lt // wi)))))
        fields["lt_size"].append(lt)
        fields["pt_size"].append(pt)
        fields["num_wi"].append(pick("num_wi", min(wi, ceildiv(lt, pt))))
        fields["num_wg"].append(pick("num_wg", min(base.num_wg[d], ceildiv(n, lt))))
    derived = {k: tuple(v) for k, v in fields.items()}
    derived["ocl_dim"] = (_ocl_dims(fields["num_wg"]), _ocl_dims(fields["num_wi"]))
    cfg = base.with_(**{**derived, **given})
    if "vector_width" in given:
        return cfg
    if base.vector_width == 1:
        return cfg.with_(vector_width=1)
    return _widest_vectors(op, cfg.with_(vector_width=1), (16, 8, 4, 2))
