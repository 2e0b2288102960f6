// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory' | mdh-opt -p lowlevel-prefetch | filecheck %s
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,lowlevel-prefetch' | mdh-opt -p lowlevel-expand | filecheck %s --check-prefix=EXPAND

// lowlevel-prefetch applies `prefetch = 1`: each cooperative copy into local memory at
// the top of the innermost local-tile loop is split into a load half (global memory to
// a private stage array, one vector of 4 per turn here: 16 workers, boxes of 16 x 4) and
// a store half (stage to local memory). The first tile's load halves run before the
// loop; in the loop, the store halves replace the copies and, after the barrier, the
// next tile's load halves run (its origin: the copy's index arithmetic with the tile
// start advanced by one step, 4) when that tile exists (start + 4 < 30).
// CHECK-LABEL: lowlevel.kernel @pipelined_0(
// CHECK-DAG:     %[[STAGE_B:.*]] = memref.alloca() : memref<1xvector<4xf32>, "prv">
// CHECK-DAG:     %[[STAGE_A:.*]] = memref.alloca() : memref<1xvector<4xf32>, "prv">
// CHECK:         lowlevel.tile_for "lt" dim 1
// CHECK:         %[[END:.*]] = arith.constant 30 : index
// CHECK:         %[[WI:.*]] = arith.addi
// CHECK-NEXT:    lowlevel.copy %0[%[[I:.*]], %[[FIRST:.*]]] -> %{{.*}} staged "load" in %[[STAGE_A]] : memref<1xvector<4xf32>, "prv"> extents [16, 4] {{.*}} by %[[WI]] of 16
// CHECK-NEXT:    lowlevel.copy %1[%[[FIRST]], %[[J:.*]]] -> %{{.*}} staged "load" in %[[STAGE_B]] : memref<1xvector<4xf32>, "prv"> extents [4, 16] {{.*}} by %[[WI]] of 16
// CHECK-NEXT:    lowlevel.tile_for "lt" dim 2(%{{.*}}, %{{.*}}) tile 4 parts 1 part %{{.*}} max 8 {
// CHECK-NEXT:    ^bb0(%{{.*}}: index, %[[K:.*]]: index, %{{.*}}: index):
// CHECK:           lowlevel.copy %0[%[[I]], %[[K]]] -> %{{.*}} staged "store" in %[[STAGE_A]]
// CHECK-NEXT:      lowlevel.copy %1[%[[K]], %[[J]]] -> %{{.*}} staged "store" in %[[STAGE_B]]
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[K]], %[[FOUR]] : index
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[END]] : index
// CHECK-NEXT:      scf.if %[[MORE]] {
// CHECK-NEXT:        lowlevel.copy %0[%[[I]], %[[NEXT]]] -> %{{.*}} staged "load" in %[[STAGE_A]]
// CHECK-NEXT:        lowlevel.copy %1[%[[NEXT]], %[[J]]] -> %{{.*}} staged "load" in %[[STAGE_B]]
// CHECK-NEXT:      }
// CHECK-NEXT:      lowlevel.tile_for "pt"

// lowlevel-expand moves a load half's elements into the stage (a vector per turn, each
// lane on its own where the vector would leave the source: k = 30 is not a multiple of
// 4) and a store half's from it, under the same conditions.
// EXPAND-LABEL: lowlevel.kernel @pipelined_0(
// EXPAND:         memref.alloca() : memref<1xvector<4xf32>, "prv">
// EXPAND-NEXT:    %[[STAGE:.*]] = memref.alloca() : memref<1xvector<4xf32>, "prv">
// EXPAND:         %[[LANES:.*]] = lowlevel.view %[[STAGE]] : memref<1xvector<4xf32>, "prv"> to memref<1x4xf32, "prv">
// EXPAND:         scf.for %[[TURN:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// EXPAND:           scf.if %{{.*}} {
// EXPAND-NEXT:        %[[V:.*]] = vector.load %0[%{{.*}}] : memref<32x30xf32>, vector<4xf32>
// EXPAND-NEXT:        memref.store %[[V]], %[[STAGE]][%[[TURN]]] : memref<1xvector<4xf32>, "prv">
// EXPAND:             scf.for %[[LANE:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// EXPAND:               %[[X:.*]] = memref.load %0[%{{.*}}] : memref<32x30xf32>
// EXPAND-NEXT:          memref.store %[[X]], %[[LANES]][%[[TURN]], %[[LANE]]] : memref<1x4xf32, "prv">
// EXPAND:           %[[LANES2:.*]] = lowlevel.view %[[STAGE]]
// EXPAND:           scf.if %{{.*}} {
// EXPAND-NEXT:        %[[W:.*]] = memref.load %[[STAGE]][%{{.*}}] : memref<1xvector<4xf32>, "prv">
// EXPAND-NEXT:        vector.store %[[W]], %{{.*}} : memref<16x4xf32, "lcl">, vector<4xf32>
// EXPAND:               %[[Y:.*]] = memref.load %[[LANES2]][%{{.*}}, %{{.*}}] : memref<1x4xf32, "prv">
// EXPAND-NEXT:          memref.store %[[Y]], %{{.*}} : memref<16x4xf32, "lcl">

// A local-tile loop of one step (lt_size 30 along k) has nothing to overlap; with
// prefetch = 0 the copies stay as they are.
// CHECK-LABEL: lowlevel.kernel @one_step_0(
// CHECK-NOT:     staged
// CHECK-LABEL: lowlevel.kernel @off_0(
// CHECK-NOT:     staged
// CHECK:       func.func @off(

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @pipelined(%A: memref<32x30xf32>, %B: memref<30x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "pipelined"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 30], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 1>}
    (%A, %B) : (memref<32x30xf32>, memref<30x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}

func.func @one_step(%A: memref<32x30xf32>, %B: memref<30x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "one_step"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 30], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 30], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 1>}
    (%A, %B) : (memref<32x30xf32>, memref<30x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}

func.func @off(%A: memref<32x30xf32>, %B: memref<30x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "off"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 30], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 0>}
    (%A, %B) : (memref<32x30xf32>, memref<30x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}
