// RUN: mdh-opt %s --split-input-file -p 'mdh-default-config{device=cpu},mdh-check-config{device=cpu}' | filecheck %s
// RUN: mdh-opt %s --split-input-file -p 'mdh-default-config,mdh-check-config' | filecheck %s
// RUN: not mdh-opt %s --split-input-file -p 'mdh-check-config{device=cpu}' 2>&1 | filecheck %s --check-prefix=NODEFAULT --match-full-lines
// RUN: not mdh-opt %s --split-input-file -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu}' 2>&1 | filecheck %s --check-prefix=GPU --match-full-lines

// mdh-check-config leaves a configuration that breaks no rule as it is; the device limits
// are those of the device class's preset, which the message names: 2048 work-items per
// work-group fit the cpu class (4096) but not the gpu class (1024). An incomplete
// configuration is refused, naming the missing keys, until mdh-default-config completes it.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @matvec(
// CHECK: config = #mdh.config<num_wg = [4, 1], num_wi = [32, 64], lt_size = [32, 64], pt_size = [1, 1],
// CHECK-SAME: inp_mem = {{\[\[}}"lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = {{\[\[}}0, 2], [1, 0]],
// CHECK-SAME: buf_layout = {{\[\[\[}}1, 0], [0]], {{\[\[}}0, 1], [0]]], loop_order = {{\[\[}}0, 1], [1, 0]],
// CHECK-SAME: combine_layer = "lt", vector_width = 1, unroll = 1, prefetch = 0, lcl_pad = 0, wg_combine = "kernel", mma = "none", stages = 2, lcl_swizzle = 0>}
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // GPU: {{.*}}mdh-check-config-accept.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wg-size': 2048 work-items per work-group > device limit 1024 (preset gpu)
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 1], num_wi = [32, 64], lt_size = [32, 64], pt_size = [1, 1],
                          inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"],
                          ocl_dim = [[0, 2], [1, 0]], buf_layout = [[[1, 0], [0]], [[0, 1], [0]]],
                          loop_order = [[0, 1], [1, 0]], combine_layer = "lt", vector_width = 1, unroll = 1>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
// CHECK-LABEL: func.func @partial(
// CHECK: config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [64, 64], pt_size = [16, 64], inp_mem = {{\[\[}}"glb", "glb"], ["glb", "glb"]]
func.func @partial(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // NODEFAULT: {{.*}}mdh-check-config-accept.mlir:[[# @LINE + 1]]:3: error: mdh.compute "partial": missing key inp_mem, res_mem, ocl_dim, buf_layout, loop_order (run mdh-default-config)
  %w = mdh.compute "partial"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [64, 64], pt_size = [16, 64]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}
// NODEFAULT-NOT: error
// GPU-NOT: error
