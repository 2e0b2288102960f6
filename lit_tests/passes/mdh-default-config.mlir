// RUN: mdh-opt %s -p 'mdh-default-config{device=cpu}' | filecheck %s --check-prefix=CPU
// RUN: mdh-opt %s -p mdh-default-config | filecheck %s --check-prefix=CPU
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu}' | filecheck %s --check-prefix=GPU
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu}' | mdh-opt -p 'mdh-default-config{device=cpu}' | filecheck %s --check-prefix=GPU
// RUN: not mdh-opt %s -p 'mdh-default-config{device=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// mdh-default-config completes every configuration (mdh_ir/schedule/default_config.py):
// - for cpu, one work-item per work-group, a register tile of up to 4 x 16 elements on two kept
//   dimensions (the one allowing the widest vectors innermost), pw loops outside the tile's
//   element loops, the widest valid vector width; with pw dimensions one work-group per
//   tile (matmul: 2 x 20 on i, j: the inner size a divisor near 16, vectors of 4 along j,
//   the rows a divisor up to 4; k in 2 tiles of 8, 10 work-groups); when the innermost pw dimension
//   allows wider vectors than any kept one, it is the innermost loop, vectorized (matvec,
//   dot: 16 lanes along k), cut into pieces of at most 64 vectors under a tile of 4 rows
//   (matvec: 4 rows of 64); with a reduction, an input read as vectors that does not depend on
//   the tile's outer dimension is packed into local memory when its panel over the whole
//   reduction has at least 16 KB, and a work-group computes about 64 tiles along the dimensions
//   it does not depend on, keeping 8 work-groups (@panel: 512 x 16 floats, 32 tiles of 8 x 16
//   along i, B in local memory: rows up to 12 accumulator vectors where they divide the rows;
//   matmul's 16 x 20 floats stay in the cache); where an input is not contiguous along the output's
//   innermost dimension, it is packed transposed (@contraction: B's f axis last, vectors of 16
//   along f, rows along b, which A reads contiguously); a work-item computing several tiles,
//   each over the whole reduction, flushes its results after each tile (combine_layer "pt":
//   @panel, @contraction); without pw dimensions, a tile read
//   as vectors is one row (@copy: 1 x 16), one without vectors keeps its rows;
// - for gpu, up to 256 work-items per work-group, pt_size 1; with few outputs the work-items go
//   to the innermost pw dimension (matvec, matmul), else to the kept dimensions (jacobi1d);
//   a pw dimension shared by work-items is one local tile, its elements dealt out in turn
//   (matvec: lt_size 64, pt_size 1);
// - for both, when the kept dimensions give fewer work-groups than busy = 4 x compute units
//   (cpu class: 2 units, so 8; gpu class: 132 units, so 528), the innermost pw dimension is
//   split across ceil(busy / kept work-groups) work-groups too: on cpu in local tiles of
//   ceil(size / groups) elements (matmul: 1 kept work-group, so k is split in 8 tiles of 2;
//   dot: k in 8 tiles of 512), on gpu in local tiles of num_wi elements, at most one work-group per
//   tile (matvec and matmul: one tile, so not split); matvec on cpu
//   already has 32 kept work-groups, so k is not split; on gpu, without kept dimensions (dot),
//   work-groups have 256 work-items that each read 4 elements as one vector (dot: 4 tiles
//   of 1024), and with many outputs (at least 64 per compute unit) the reduction is not
//   split, as its second kernel would cost a launch: work-groups shrink to 64 kept
//   work-items and up to 16 work-items share the reduction (@reduce_outer);
// - for both, no caching, private accumulators, identity layouts, OpenCL dimension 0
//   for the innermost dimension with more than one part, 1 for the next one, 2 otherwise;
// - an op with a (partial) configuration keeps its keys, so a second run changes nothing
//   (the fourth RUN line) and the given keys of @partial and @partial_wg survive; the
//   missing ones are chosen to fit them (mdh_ir.schedule.default_config.complete_config).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s0 = arith.addf %l, %c : f32
  %s1 = arith.addf %s0, %r : f32
  func.return %s1 : f32
}

// CPU-LABEL: func.func @matvec(
// CPU:      mdh.compute "matvec"
// CPU-SAME: config = #mdh.config<num_wg = [32, 1], num_wi = [1, 1], lt_size = [4, 64], pt_size = [4, 64],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// CPU-SAME: combine_layer = "end", vector_width = 16, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @matvec(
// GPU:      mdh.compute "matvec"
// GPU-SAME: config = #mdh.config<num_wg = [128, 1], num_wi = [1, 64], lt_size = [1, 64], pt_size = [1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32]}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// CPU-LABEL: func.func @matmul(
// CPU:      mdh.compute "matmul"
// CPU-SAME: config = #mdh.config<num_wg = [2, 1, 4], num_wi = [1, 1, 1], lt_size = [5, 20, 4], pt_size = [5, 20, 4],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 2, 0], [2, 2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0, 1]], {{\[\[}}0, 1], [0, 1]]], loop_order = {{\[\[}}0, 1, 2], [2, 0, 1]],
// CPU-SAME: combine_layer = "end", vector_width = 4, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @matmul(
// GPU:      mdh.compute "matmul"
// GPU-SAME: config = #mdh.config<num_wg = [10, 20, 1], num_wi = [1, 1, 16], lt_size = [1, 1, 16], pt_size = [1, 1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0, 2], [2, 2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0, 1]], {{\[\[}}0, 1], [0, 1]]], loop_order = {{\[\[}}0, 1, 2], [0, 1, 2]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32]}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}

// CPU-LABEL: func.func @jacobi1d(
// CPU:      mdh.compute "jacobi1d"
// CPU-SAME: boundary = ["clamp"]}
// CPU-SAME: config = #mdh.config<num_wg = [3], num_wi = [1], lt_size = [16], pt_size = [16],
// CPU-SAME: inp_mem = {{\[\[}}"glb"], ["glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0], [2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0]], {{\[\[}}0]]], loop_order = {{\[\[}}0], [0]],
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @jacobi1d(
// GPU:      mdh.compute "jacobi1d"
// GPU-SAME: boundary = ["clamp"]}
// GPU-SAME: config = #mdh.config<num_wg = [1], num_wi = [37], lt_size = [37], pt_size = [1],
// GPU-SAME: inp_mem = {{\[\[}}"glb"], ["glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}2], [0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0]], {{\[\[}}0]]], loop_order = {{\[\[}}0], [0]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32]}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}

// dot: no kept dimension (one work-group), so k is split: on cpu into 8 tiles of 512,
// one per work-group, each vectorized by 16 (lanes accumulate separately); on gpu into
// 4 local tiles of 1024 elements (fewer than 528), 256 work-items reading a float4
// each. Its one output is no more than a
// work-group's work-items, so the last work-group to finish combines the partial results
// (wg_combine "last": both device classes, PoCL and NVIDIA, order memory across work-groups).
// CPU-LABEL: func.func @dot(
// CPU:      mdh.compute "dot"
// CPU-SAME: config = #mdh.config<num_wg = [8], num_wi = [1], lt_size = [512], pt_size = [512],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0], [2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0], [0]], {{\[\[}}0], [0]]], loop_order = {{\[\[}}0], [0]],
// CPU-SAME: combine_layer = "end", vector_width = 16, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "last", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @dot(
// GPU:      mdh.compute "dot"
// GPU-SAME: config = #mdh.config<num_wg = [4], num_wi = [256], lt_size = [1024], pt_size = [4],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0], [0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0], [0]], {{\[\[}}0], [0]]], loop_order = {{\[\[}}0], [0]],
// GPU-SAME: combine_layer = "end", vector_width = 4, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "last", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @dot(%x: memref<4096xf32>, %y: memref<4096xf32>) -> memref<f32> {
  %r = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", @add]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [4096], out_types = [f32]}
    (%x, %y) : (memref<4096xf32>, memref<4096xf32>) -> memref<f32>
  func.return %r : memref<f32>
}

// A reduction over the outer dimension with 16384 outputs: on gpu, 256 work-items on the
// kept dimensions would give 64 work-groups (fewer than 528); instead of splitting i across
// work-groups, groups of 64 kept work-items (4 x 16 on j, k: 256 groups) and 4 work-items
// sharing i (at most 16, each keeping at least 64 of its 256 elements), one local tile of
// 256 elements dealt out in turn; on cpu, one tile of 4 x 16 outputs per work-group.
// CPU-LABEL: func.func @reduce_outer(
// CPU:      mdh.compute "reduce_outer"
// CPU-SAME: config = #mdh.config<num_wg = [1, 256, 1], num_wi = [1, 1, 1], lt_size = [256, 4, 16], pt_size = [256, 4, 16],
// GPU-LABEL: func.func @reduce_outer(
// GPU:      mdh.compute "reduce_outer"
// GPU-SAME: config = #mdh.config<num_wg = [1, 256, 1], num_wi = [4, 4, 16], lt_size = [256, 4, 16], pt_size = [1, 1, 1],
// GPU-SAME: ocl_dim = {{\[\[}}2, 0, 2], [2, 1, 0]],
func.func @reduce_outer(%x: memref<256x1024x16xf32>) -> memref<1024x16xf32> {
  %r = mdh.compute "reduce_outer"
    {inp_view = [[affine_map<(i, j, k) -> (i, j, k)>]],
     md_hom = {scalar_func = @id, combine_ops = [["pw", @add], "cc", "cc"]},
     out_view = [[affine_map<(i, j, k) -> (j, k)>]]}
    {inp_types = [f32], mda_size = [256, 1024, 16], out_types = [f32]}
    (%x) : (memref<256x1024x16xf32>) -> memref<1024x16xf32>
  func.return %r : memref<1024x16xf32>
}

// The given num_wi, inp_mem and loop_order stay (in the key order of the complete
// configuration); the other keys are chosen to fit them: a local tile holds num_wi private
// tiles of the default's pt_size, cut to the dimension's size, and the private tile shrinks
// to lt_size / num_wi where that is smaller (cpu: lt_size [4 x 4, min(64, 2 x 64)] =
// [16, 64], pt_size [4, 32]; gpu: lt_size [4 x 1, 2 x 1], pt_size [1, 1]); num_wg is the
// default's, at most the number of local tiles (cpu: [min(32, 8), 1]; gpu: [min(128, 32),
// 1]); ocl_dim follows these counts (work-items: k on OpenCL dimension 0, i on 1), not the
// default's counts; the remaining keys are the default's.
// CPU-LABEL: func.func @partial(
// CPU:      mdh.compute "partial"
// CPU-SAME: config = #mdh.config<num_wg = [8, 1], num_wi = [4, 2], lt_size = [16, 64], pt_size = [4, 32],
// CPU-SAME: inp_mem = {{\[\[}}"lcl", "glb"], ["glb", "prv"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [1, 0]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}1, 0], [1, 0]],
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @partial(
// GPU:      mdh.compute "partial"
// GPU-SAME: config = #mdh.config<num_wg = [32, 1], num_wi = [4, 2], lt_size = [4, 2], pt_size = [1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"lcl", "glb"], ["glb", "prv"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [1, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}1, 0], [1, 0]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @partial(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "partial"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<loop_order = [[1, 0], [1, 0]], num_wi = [4, 2],
                          inp_mem = [["lcl", "glb"], ["glb", "prv"]]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// Only num_wg given: each work-group gets one local tile (lt_size [128 / 4, 64 / 2]); the
// default's pt_size and num_wi are cut to fit the tile (cpu: pt_size [4, min(64, 32)],
// k innermost and vectorized by 16;
// gpu: num_wi [1, min(64, 32)]); ocl_dim follows the counts (k's 2 work-groups on OpenCL
// dimension 0, i's 4 on 1).
// CPU-LABEL: func.func @partial_wg(
// CPU:      mdh.compute "partial_wg"
// CPU-SAME: config = #mdh.config<num_wg = [4, 2], num_wi = [1, 1], lt_size = [32, 32], pt_size = [4, 32],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0], [2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// CPU-SAME: combine_layer = "end", vector_width = 16, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
// GPU-LABEL: func.func @partial_wg(
// GPU:      mdh.compute "partial_wg"
// GPU-SAME: config = #mdh.config<num_wg = [4, 2], num_wi = [1, 32], lt_size = [32, 32], pt_size = [1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0], [2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @partial_wg(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "partial_wg"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 2]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}

// Without pw dimensions on gpu: an input read across the output's order (transpose) is
// cached in local memory in 32 x 32 tiles with the output's dimension last (buf_layout
// [1, 0]), work-items along the output's contiguous dimension on OpenCL dimension 0;
// otherwise (copy) each work-item takes 4 consecutive elements as one vector.
// GPU-LABEL: func.func @transpose(
// GPU:      mdh.compute "transpose"
// GPU-SAME: config = #mdh.config<num_wg = [2, 3], num_wi = [32, 8], lt_size = [32, 32], pt_size = [1, 4],
// GPU-SAME: inp_mem = {{\[\[}}"lcl"], ["glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0], [0, 1]],
// GPU-SAME: buf_layout = {{\[\[\[}}1, 0]], {{\[\[}}0, 1]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @transpose(%x: memref<64x96xf32>) -> memref<96x64xf32> {
  %y = mdh.compute "transpose"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (j, i)>]]}
    {inp_types = [f32], mda_size = [64, 96], out_types = [f32]}
    (%x) : (memref<64x96xf32>) -> memref<96x64xf32>
  func.return %y : memref<96x64xf32>
}

// CPU-LABEL: func.func @copy(
// CPU:      mdh.compute "copy"
// CPU-SAME: config = #mdh.config<num_wg = [64, 2], num_wi = [1, 1], lt_size = [1, 48], pt_size = [1, 16],
// CPU-SAME: vector_width = 16,
// GPU-LABEL: func.func @copy(
// GPU:      mdh.compute "copy"
// GPU-SAME: config = #mdh.config<num_wg = [7, 1], num_wi = [10, 24], lt_size = [10, 96], pt_size = [1, 4],
// GPU-SAME: inp_mem = {{\[\[}}"glb"], ["glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [1, 0]],
// GPU-SAME: combine_layer = "end", vector_width = 4, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @copy(%x: memref<64x96xf32>) -> memref<64x96xf32> {
  %y = mdh.compute "copy"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [f32], mda_size = [64, 96], out_types = [f32]}
    (%x) : (memref<64x96xf32>) -> memref<64x96xf32>
  func.return %y : memref<64x96xf32>
}

// On gpu, with few outputs whose reduction reads an input across its rows (B[k][j], one
// row of A): a work-group takes 8 consecutive outputs along j (a 32-byte sector of B's
// rows), 2 work-items of 4 on OpenCL dimension 0, and 128 work-items share k; k is not
// split across work-groups (@matmul, whose 20 columns 8 does not divide, keeps the rule
// above).
// GPU-LABEL: func.func @row(
// GPU:      mdh.compute "matmul"
// GPU-SAME: config = #mdh.config<num_wg = [1, 8, 1], num_wi = [1, 2, 128], lt_size = [1, 8, 256], pt_size = [1, 4, 1],
// GPU-SAME: ocl_dim = {{\[\[}}2, 0, 2], [2, 0, 1]],
// GPU-SAME: wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @row(%A: memref<1x256xf32>, %B: memref<256x64xf32>) -> memref<1x64xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [1, 64, 256], out_types = [f32]}
    (%A, %B) : (memref<1x256xf32>, memref<256x64xf32>) -> memref<1x64xf32>
  func.return %C : memref<1x64xf32>
}

// On gpu, with a reduction, an innermost kept dimension of at least 64 and at least 32
// points of the others: the GEMM-like shape, 16 x 16 work-items computing private tiles
// of 2 x 2 vectors of 2 in local tiles of 128 x 128 x 8 or 64 x 64 x 8, every input cached
// in local memory with the reduction's axis outermost (A's tile stored k-major) and rows
// padded by 4 (lcl_pad), and the next local tile's copies loaded during this one
// (prefetch = 1). 256^3 has too few work-groups for one wave of two a compute unit even
// with tiles of 64 (16): its reduction (256, shorter than 2048) is split in 4 parts of 64
// across work-groups.
// GPU-LABEL: func.func @gemm(
// GPU:      mdh.compute "gemm"
// GPU-SAME: config = #mdh.config<num_wg = [4, 4, 4], num_wi = [16, 16, 1], lt_size = [64, 64, 8], pt_size = [2, 2, 1],
// GPU-SAME: inp_mem = {{\[\[}}"lcl", "lcl"], ["glb", "glb"]],
// GPU-SAME: buf_layout = {{\[\[\[}}1, 0], [0, 1]], [[0, 1], [0, 1]]],
// GPU-SAME: vector_width = 2, unroll = 1, prefetch = 1, lcl_pad = 4, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @gemm(%A: memref<256x256xf32>, %B: memref<256x256xf32>) -> memref<256x256xf32> {
  %C = mdh.compute "gemm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [256, 256, 256], out_types = [f32]}
    (%A, %B) : (memref<256x256xf32>, memref<256x256xf32>) -> memref<256x256xf32>
  func.return %C : memref<256x256xf32>
}

// With a reduction and two kept dimensions of at least 64 on gpu: the GEMM-like shape
// caches every input in local memory; where the reduction is short (every pw dimension
// under 64, as here) or those tiles do not fit, 4 x 64 work-items compute 4 x 2 outputs
// each, the pw dimensions outermost in their loops (loop_order [2, 3, 0, 1]), and the
// weights (not indexed by h) are cached in local memory.
// GPU-LABEL: func.func @blur(
// GPU:      mdh.compute "blur"
// GPU-SAME: config = #mdh.config<num_wg = [128, 16, 1, 1], num_wi = [4, 64, 1, 1], lt_size = [16, 128, 5, 5], pt_size = [4, 2, 5, 5],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "lcl"], ["glb", "glb"]], res_mem = ["prv"],
// GPU-SAME: loop_order = {{\[\[}}0, 1, 2, 3], [2, 3, 0, 1]]
func.func @blur(%x: memref<2052x2052xf32>, %g: memref<5x5xf32>) -> memref<2048x2048xf32> {
  %y = mdh.compute "blur"
    {inp_view = [[affine_map<(h, w, r, s) -> (h + r, w + s)>], [affine_map<(h, w, r, s) -> (r, s)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add], ["pw", @add]]},
     out_view = [[affine_map<(h, w, r, s) -> (h, w)>]]}
    {inp_types = [f32, f32], mda_size = [2048, 2048, 5, 5], out_types = [f32]}
    (%x, %g) : (memref<2052x2052xf32>, memref<5x5xf32>) -> memref<2048x2048xf32>
  func.return %y : memref<2048x2048xf32>
}

// With a reduction on gpu, when the innermost kept dimension takes all 256 work-items and
// 4 does not divide the next one (7), the innermost dimension is the reduction and the
// outputs are fewer than 256 per compute unit (7 x 2048 < 256 x 132): 16 work-items share
// each output's reduction along k (one local tile of 512, consecutive elements to
// consecutive work-items) and 16 go to j.
// GPU-LABEL: func.func @narrow(
// GPU:      mdh.compute "narrow"
// GPU-SAME: config = #mdh.config<num_wg = [7, 128, 1], num_wi = [1, 16, 16], lt_size = [1, 16, 512], pt_size = [1, 1, 1],
func.func @narrow(%A: memref<7x512xf32>, %B: memref<512x2048xf32>) -> memref<7x2048xf32> {
  %C = mdh.compute "narrow"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [7, 2048, 512], out_types = [f32]}
    (%A, %B) : (memref<7x512xf32>, memref<512x2048xf32>) -> memref<7x2048xf32>
  func.return %C : memref<7x2048xf32>
}

// BAD: {{.*}}mdh-default-config.mlir: error: mdh-default-config: unknown device class 'tpu' (cpu, gpu)

// CPU-LABEL: func.func @panel(
// CPU:      mdh.compute "panel"
// CPU-SAME: config = #mdh.config<num_wg = [2, 4, 1], num_wi = [1, 1, 1], lt_size = [256, 16, 512], pt_size = [8, 16, 512],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0, 2], [2, 2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0, 1]], {{\[\[}}0, 1], [0, 1]]], loop_order = {{\[\[}}0, 1, 2], [2, 0, 1]],
// CPU-SAME: combine_layer = "pt", vector_width = 16, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @panel(%A: memref<512x512xf32>, %B: memref<512x64xf32>) -> memref<512x64xf32> {
  %C = mdh.compute "panel"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [512, 64, 512], out_types = [f32]}
    (%A, %B) : (memref<512x512xf32>, memref<512x64xf32>) -> memref<512x64xf32>
  func.return %C : memref<512x64xf32>
}

// CPU-LABEL: func.func @contraction(
// CPU:      mdh.compute "contraction"
// CPU-SAME: config = #mdh.config<num_wg = [2, 1, 2, 1, 2, 1, 1], num_wi = [1, 1, 1, 1, 1, 1, 1], lt_size = [1, 8, 1, 6, 1, 16, 8], pt_size = [1, 8, 1, 1, 1, 16, 8],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}2, 2, 1, 2, 0, 2, 2], [2, 2, 2, 2, 2, 2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1, 2, 3], [0, 2, 3, 1]], {{\[\[}}0, 1, 2, 3], [0, 1, 2, 3]]], loop_order = {{\[\[}}0, 1, 2, 3, 4, 5, 6], [6, 0, 2, 3, 4, 1, 5]],
// CPU-SAME: combine_layer = "pt", vector_width = 16, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @contraction(%A: memref<8x6x2x8xf32>, %B: memref<2x16x8x2xf32>) -> memref<2x8x2x6x2x16xf32> {
  %C = mdh.compute "contraction"
    {inp_view = [[affine_map<(a, b, c, d, e, f, g) -> (g, d, a, b)>], [affine_map<(a, b, c, d, e, f, g) -> (e, f, g, c)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", "cc", "cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(a, b, c, d, e, f, g) -> (a, b, c, d, e, f)>]]}
    {inp_types = [f32, f32], mda_size = [2, 8, 2, 6, 2, 16, 8], out_types = [f32]}
    (%A, %B) : (memref<8x6x2x8xf32>, memref<2x16x8x2xf32>) -> memref<2x8x2x6x2x16xf32>
  func.return %C : memref<2x8x2x6x2x16xf32>
}

// Sizes no vector width divides (63 x 127 x 512): the inner side of the register tile is 16,
// vectors of 16 along j, the last tile's last vector split off to scalar code (mdh-vectorize);
// the rows a divisor up to 6 where one is 5 or 6, else below 12 (7), B packed into local memory.
// CPU-LABEL: func.func @odd(
// CPU:      mdh.compute "odd"
// CPU-SAME: config = #mdh.config<num_wg = [1, 8, 1], num_wi = [1, 1, 1], lt_size = [63, 16, 512], pt_size = [7, 16, 512],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "lcl"], ["glb", "glb"]],
// CPU-SAME: vector_width = 16,
func.func @odd(%A: memref<63x512xf32>, %B: memref<512x127xf32>) -> memref<63x127xf32> {
  %C = mdh.compute "odd"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [63, 127, 512], out_types = [f32]}
    (%A, %B) : (memref<63x512xf32>, memref<512x127xf32>) -> memref<63x127xf32>
  func.return %C : memref<63x127xf32>
}
