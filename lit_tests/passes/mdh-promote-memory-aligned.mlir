// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory{aligned_copies=true}' | filecheck %s --check-prefix=ALIGNED
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory' | filecheck %s --check-prefix=PLAIN
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

// With `aligned_copies` (the GPU's lowering), a local copy from rows whose length leaves
// vectors of 4 unaligned but pairs aligned (A: rows of 30 floats) moves pairs, each one
// aligned load; B's rows of 32 keep vectors of 4. Without it (PoCL, which moves an
// unaligned vector as one) both move vectors of 4.
// ALIGNED: lowlevel.copy %0{{.*}} extents [16, 4] {{.*}} {lanes = 2 : i64
// ALIGNED: lowlevel.copy %1{{.*}} extents [4, 16] {{.*}} {lanes = 4 : i64
// PLAIN:   lowlevel.copy %0{{.*}} extents [16, 4] {{.*}} {lanes = 4 : i64
// PLAIN:   lowlevel.copy %1{{.*}} extents [4, 16] {{.*}} {lanes = 4 : i64
// CL:      const float2 {{v[0-9]+}} = *(const __global float2*)
// CL:      const float4 {{v[0-9]+}} = *(const __global float4*)

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @pairs(%A: memref<32x30xf32>, %B: memref<30x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "pairs"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 30], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]]>}
    (%A, %B) : (memref<32x30xf32>, memref<30x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}
