// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-mma | filecheck %s

// mdh-mma on a sum of products with dimensions besides the fragments' i, j and k
// (`MmaForm.outer`): a 1-D convolution out[n, q, k] = sum_{s, c} x[n, q + s, c] w[k, s, c]
// in TF32. Rows i = q (only x reads it), columns j = k (only w), k = c (the last axis of
// both); n (kept) and s (pw) are outer, with num_wi 1: every warp is at the same point
// of them. The lane's accumulator fragments get one axis per kept outer dimension's
// private-tile step and element (here 2 x 1: the local tile holds both n). Inside the
// step blocks a loop over the points of s sums into the same fragments; inside the k
// steps a loop over the points of n computes each point's fragments. w reads no n: its
// fragments load once, before the loop over n, and serve both points; x's load inside
// it, at (n, q + s, c) of that point. The flush keeps its loops over the points of n
// and stores each point's fragments at (n, q, k), the fragment's n step the loop's.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @conv(%X: memref<2x18x8xf32>, %W: memref<8x3x8xf32>) -> memref<2x16x8xf32> {
  %C = mdh.compute "conv"
    {inp_view = [[affine_map<(n, q, k, s, c) -> (n, q + s, c)>], [affine_map<(n, q, k, s, c) -> (k, s, c)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", ["pw", "add"], ["pw", "add"]]},
     out_view = [[affine_map<(n, q, k, s, c) -> (n, q, k)>]]}
    {inp_types = [f32, f32], mda_size = [2, 16, 8, 3, 8], out_types = [f32], precision = "tf32",
     config = #mdh.config<num_wg = [1, 1, 1, 1, 1], num_wi = [1, 4, 8, 1, 1], lt_size = [2, 16, 8, 3, 8],
                          pt_size = [1, 4, 1, 1, 8], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, mma = "tf32">}
    (%X, %W) : (memref<2x18x8xf32>, memref<8x3x8xf32>) -> memref<2x16x8xf32>
  func.return %C : memref<2x16x8xf32>
}

// CHECK-LABEL: lowlevel.kernel @conv_0(
// CHECK:         %[[C:.*]] = memref.alloca() : memref<2x1x1x1x1x1x4xf32, "prv">
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, "prv">
// CHECK:         %[[W_LCL:.*]] = memref.alloca() : memref<8x3x8xf32, "lcl">
// CHECK-NEXT:    %[[X_LCL:.*]] = memref.alloca() : memref<2x18x8xf32, "lcl">
// CHECK:         lowlevel.tile_for "lt" dim 0(%{{.*}}, %{{.*}}) tile 2
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[N0:.*]]: index, %{{.*}}: index):
// CHECK:         lowlevel.fill %[[C]]
// CHECK:         lowlevel.tile_for "lt" dim 3(%{{.*}}, %{{.*}}) tile 3
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[S0:.*]]: index, %{{.*}}: index):
// CHECK:         lowlevel.barrier
// CHECK:         %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[SP:.*]] = %{{.*}} to %[[THREE]] step %{{.*}} {
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[SP]], %[[S0]] : index
// CHECK:           %{{.*}} = arith.addi %[[S]], %{{.*}} : index
// CHECK:           %[[B:.*]], %[[B1:.*]] = lowlevel.ldmatrix %[[W_LCL]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<8x3x8xf32, "lcl">
// CHECK:           scf.for %[[NP:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[N:.*]] = arith.addi %[[NP]], %[[N0]] : index
// CHECK:             %[[XN:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK:             %{{.*}} = arith.addi %{{.*}}, %[[S]] : index
// CHECK:             %{{.*}} = lowlevel.ldmatrix %[[X_LCL]][%[[XN]], %{{.*}}, %{{.*}}] : memref<2x18x8xf32, "lcl">
// CHECK:             %{{.*}} = memref.load %[[C]][%[[NP]], %{{.*}}]
// CHECK:             lowlevel.mma "tf32" a(%{{.*}}) b(%[[B]], %[[B1]] : f32, f32)
// CHECK:             memref.store %{{.*}}, %[[C]][%[[NP]], %{{.*}}]
// CHECK:       lowlevel.barrier
// CHECK:       lowlevel.tile_for "pt" dim 0
// CHECK-NEXT:  ^bb0(%[[NS:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:    lowlevel.tile_for "el" dim 0
// CHECK-NEXT:    ^bb0(%[[NE:.*]]: index, %[[NV:.*]]: index, %{{.*}}: index):
// CHECK-NOT:       lowlevel.barrier
// CHECK:           %[[PAIR:.*]] = vector.load %[[C]][%[[NS]], %[[NE]], {{.*}}] : memref<2x1x1x1x1x1x4xf32, "prv">, vector<2xf32>
// CHECK-NEXT:      vector.store %[[PAIR]], %{{.*}}[%[[NV]], %{{.*}}, %{{.*}}] : memref<2x16x8xf32>, vector<2xf32>
// CHECK:           vector.store %{{.*}}, %{{.*}}[%[[NV]], %{{.*}}, %{{.*}}] : memref<2x16x8xf32>, vector<2xf32>
// CHECK-NOT:       vector.store
// CHECK-NOT:       lowlevel.barrier
