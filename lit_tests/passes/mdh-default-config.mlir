// RUN: mdh-opt %s -p 'mdh-default-config{device=cpu}' | filecheck %s --check-prefix=CPU
// RUN: mdh-opt %s -p mdh-default-config | filecheck %s --check-prefix=CPU
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu}' | filecheck %s --check-prefix=GPU
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu}' | mdh-opt -p 'mdh-default-config{device=cpu}' | filecheck %s --check-prefix=GPU
// RUN: not mdh-opt %s -p 'mdh-default-config{device=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// mdh-default-config completes every configuration (mdh_ir/default_config.py):
// - for cpu, one work-item per work-group, a private tile of up to 16 x 4 elements on the two
//   innermost kept dimensions, one work-group per tile, pw dimensions not split;
// - for gpu, up to 256 work-items per work-group, pt_size 1; with few outputs the work-items go
//   to the innermost pw dimension (matvec, matmul), else to the kept dimensions (jacobi1d);
// - for both, no caching, private accumulators, identity orders and layouts, OpenCL dimension 0
//   for the innermost dimension with more than one part;
// - an op with a (partial) configuration keeps its keys, so a second run changes nothing
//   (the fourth RUN line) and the given keys of @partial survive.

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
// CPU-SAME: config = #mdh.config<num_wg = [8, 1], num_wi = [1, 1], lt_size = [16, 64], pt_size = [16, 64],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
// GPU-LABEL: func.func @matvec(
// GPU:      mdh.compute "matvec"
// GPU-SAME: config = #mdh.config<num_wg = [128, 1], num_wi = [1, 64], lt_size = [1, 64], pt_size = [1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [0, 1]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
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
// CPU-SAME: config = #mdh.config<num_wg = [3, 2, 1], num_wi = [1, 1, 1], lt_size = [4, 16, 16], pt_size = [4, 16, 16],
// CPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0, 2], [2, 2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0, 1]], {{\[\[}}0, 1], [0, 1]]], loop_order = {{\[\[}}0, 1, 2], [0, 1, 2]],
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
// GPU-LABEL: func.func @matmul(
// GPU:      mdh.compute "matmul"
// GPU-SAME: config = #mdh.config<num_wg = [10, 20, 1], num_wi = [1, 1, 16], lt_size = [1, 1, 16], pt_size = [1, 1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}1, 0, 2], [2, 2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0, 1]], {{\[\[}}0, 1], [0, 1]]], loop_order = {{\[\[}}0, 1, 2], [0, 1, 2]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
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
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
// GPU-LABEL: func.func @jacobi1d(
// GPU:      mdh.compute "jacobi1d"
// GPU-SAME: boundary = ["clamp"]}
// GPU-SAME: config = #mdh.config<num_wg = [1], num_wi = [37], lt_size = [37], pt_size = [1],
// GPU-SAME: inp_mem = {{\[\[}}"glb"], ["glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}2], [0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0]], {{\[\[}}0]]], loop_order = {{\[\[}}0], [0]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32]}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}

// The given num_wi, inp_mem and loop_order stay (in the key order of the complete
// configuration); every other key comes from the device class's default.
// CPU-LABEL: func.func @partial(
// CPU:      mdh.compute "partial"
// CPU-SAME: config = #mdh.config<num_wg = [8, 1], num_wi = [4, 2], lt_size = [16, 64], pt_size = [16, 64],
// CPU-SAME: inp_mem = {{\[\[}}"lcl", "glb"], ["glb", "prv"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 2]],
// CPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}1, 0], [1, 0]],
// CPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
// GPU-LABEL: func.func @partial(
// GPU:      mdh.compute "partial"
// GPU-SAME: config = #mdh.config<num_wg = [128, 1], num_wi = [4, 2], lt_size = [1, 64], pt_size = [1, 1],
// GPU-SAME: inp_mem = {{\[\[}}"lcl", "glb"], ["glb", "prv"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [2, 0]],
// GPU-SAME: buf_layout = {{\[\[\[}}0, 1], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}1, 0], [1, 0]],
// GPU-SAME: combine_layer = "end", vector_width = 1, unroll = 1>}
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

// BAD: {{.*}}mdh-default-config.mlir: error: mdh-default-config: unknown device class 'tpu' (cpu, gpu)
