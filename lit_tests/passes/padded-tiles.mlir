// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | filecheck %s
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

// Partial tiles: 10 x 13 outputs in local tiles of 8 x 8, private tiles of 2 x 2 over
// 2 x 2 work-items. The private-tile loops of i and j are padded (mdh-tile): every
// work-item runs 2 x 2 whole private tiles in every local tile, so the trip counts are
// constants (unrolled in the OpenCL code); k (one whole tile) is not.
// mdh-promote-memory limits B's global reads to its last column (12) and copies A's
// private tile from A's local copy, whose rows are 2 longer (lcl_pad), taking only the
// 8 x 7 box as the source (`source_extents`: beyond it, zeros). mdh-place-combine stores
// a point only inside its local tiles.
// CHECK-LABEL: lowlevel.kernel @ragged_0(
// CHECK:         lowlevel.tile_for "lt" dim 0({{.*}}) tile 8 parts 2 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[I0:%[0-9]+]]: index, [[IZ:%[0-9]+]]: index):
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 1({{.*}}) tile 8 parts 2 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[J0:%[0-9]+]]: index, [[JZ:%[0-9]+]]: index):
// CHECK:             [[LAST:%[0-9]+]] = arith.constant 12 : index
// CHECK:             lowlevel.tile_for "pt" dim 0({{.*}}) tile 2 parts 2 part %{{[0-9]+}} max 2 padded {
// CHECK:               lowlevel.tile_for "pt" dim 1({{.*}}) tile 2 parts 2 part %{{[0-9]+}} max 2 padded {
// CHECK:                 lowlevel.tile_for "pt" dim 2({{.*}}) tile 7 parts 1 part %{{[0-9]+}} max 1 {
// CHECK:                   lowlevel.copy {{.*}} extents [2, 7] {{.*}} {source_extents = array<i64: 8, 7>} : memref<8x9xf32, "lcl"> -> memref<2x7xf32, "prv">
// CHECK:                         lowlevel.view_load %{{[0-9]+}}[{{.*}}] [] limits[%{{[0-9]+}}, [[LAST]], %{{[0-9]+}}] {{.*}} : memref<7x13xf32> -> f32
// CHECK:             lowlevel.tile_for "pt" dim 0({{.*}}) tile 2 parts 2 part %{{[0-9]+}} max 2 padded {
// CHECK:                 lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              lowlevel.tile_for "el" dim 1(
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                [[IEND:%[0-9]+]] = arith.addi [[I0]], [[IZ]] : index
// CHECK-NEXT:                [[IIN:%[0-9]+]] = arith.cmpi slt, [[I]], [[IEND]] : index
// CHECK-NEXT:                [[JEND:%[0-9]+]] = arith.addi [[J0]], [[JZ]] : index
// CHECK-NEXT:                [[JIN:%[0-9]+]] = arith.cmpi slt, [[J]], [[JEND]] : index
// CHECK-NEXT:                %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:                [[IN:%[0-9]+]] = arith.andi [[IIN]], [[JIN]] : i1
// CHECK-NEXT:                scf.if [[IN]] {
// CHECK-NEXT:                  memref.load
// CHECK-NEXT:                  memref.store %{{[0-9]+}}, %{{[0-9]+}}{{\[}}[[I]], [[J]]] : memref<10x13xf32>

// CL-LABEL: void ragged_0(
// CL:         barrier(CLK_LOCAL_MEM_FENCE);
// CL-NOT:     barrier
// CL:         #pragma unroll
// CL-NEXT:    for (int v{{[0-9]+}} = 0; v{{[0-9]+}} < 2; v{{[0-9]+}} += 1) {
// CL:           #pragma unroll
// CL-NEXT:      for (int v{{[0-9]+}} = 0; v{{[0-9]+}} < 2; v{{[0-9]+}} += 1) {
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @ragged(%A: memref<10x7xf32>, %B: memref<7x13xf32>) -> memref<10x13xf32> {
  %C = mdh.compute "ragged"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 13, 7], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [2, 2, 1], lt_size = [8, 8, 7], pt_size = [2, 2, 7],
                          inp_mem = [["lcl", "glb"], ["prv", "glb"]], lcl_pad = 2,
                          ocl_dim = [[1, 0, 2], [1, 0, 2]]>}
    (%A, %B) : (memref<10x7xf32>, memref<7x13xf32>) -> memref<10x13xf32>
  func.return %C : memref<10x13xf32>
}
