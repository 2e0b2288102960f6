// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory' | mdh-opt -p lowlevel-prefetch | filecheck %s
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,lowlevel-prefetch' | mdh-opt -p lowlevel-expand | filecheck %s --check-prefix=EXPAND
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

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

// lowlevel-expand moves a load half's elements into the stage: a vector per turn, each
// lane on its own where the vector would leave the source (k = 30 is not a multiple of
// 4), clamped into it (a lane outside is read only by discarded points: no select). A
// store half moves whole vectors from the stage, unconditionally.
// EXPAND-LABEL: lowlevel.kernel @pipelined_0(
// EXPAND:         memref.alloca() : memref<1xvector<4xf32>, "prv">
// EXPAND-NEXT:    %[[STAGE:.*]] = memref.alloca() : memref<1xvector<4xf32>, "prv">
// EXPAND:         %[[LANES:.*]] = lowlevel.view %[[STAGE]] : memref<1xvector<4xf32>, "prv"> to memref<1x4xf32, "prv">
// EXPAND:         scf.for %[[TURN:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// EXPAND:           %[[V:.*]] = vector.load %0[%{{.*}}] : memref<32x30xf32>, vector<4xf32>
// EXPAND-NEXT:      memref.store %[[V]], %[[STAGE]][%[[TURN]]] : memref<1xvector<4xf32>, "prv">
// EXPAND:             scf.for %[[LANE:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// EXPAND:               %[[LO:.*]] = arith.maxsi
// EXPAND:               %[[COL:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// EXPAND-NEXT:          %[[X:.*]] = memref.load %0[%{{.*}}, %[[COL]]] : memref<32x30xf32>
// EXPAND-NEXT:          memref.store %[[X]], %[[LANES]][%[[TURN]], %[[LANE]]] : memref<1x4xf32, "prv">
// EXPAND:             %[[W:.*]] = memref.load %[[STAGE]][%{{.*}}] : memref<1xvector<4xf32>, "prv">
// EXPAND-NEXT:        vector.store %[[W]], %{{.*}} : memref<16x4xf32, "lcl">, vector<4xf32>
// EXPAND-NEXT:      } {unroll = 0 : i64}

// With prefetch = 2 each local buffer has two slots (a leading axis of 2); step s of the
// loop stores into and reads from slot s % 2 (ops before the loop see slot 0), so the
// barrier that ended each step moves after the loop (after the 6 el/pt loops in the
// step and the step's own brace): one barrier a step.
// CHECK-LABEL: lowlevel.kernel @double_0(
// CHECK:         %[[A2:.*]] = memref.alloca() : memref<2x4x16xf32, "lcl">
// CHECK:         %[[B2:.*]] = memref.alloca() : memref<2x16x4xf32, "lcl">
// CHECK:         %[[B0:.*]] = lowlevel.slot %[[B2]][%{{.*}}] : memref<2x16x4xf32, "lcl"> to memref<16x4xf32, "lcl">
// CHECK:         lowlevel.copy %0[{{.*}}] -> %[[B0]] staged "load"
// CHECK:         lowlevel.tile_for "lt" dim 2(%{{.*}}, %{{.*}}) tile 4 parts 1 part %{{.*}} max 8 {
// CHECK-NEXT:    ^bb0(%[[STEP:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[PARITY:.*]] = arith.remui %[[STEP]], %[[TWO]] : index
// CHECK-NEXT:      %[[BS:.*]] = lowlevel.slot %[[B2]][%[[PARITY]]] : memref<2x16x4xf32, "lcl"> to memref<16x4xf32, "lcl">
// CHECK-NEXT:      %[[AS:.*]] = lowlevel.slot %[[A2]][%[[PARITY]]] : memref<2x4x16xf32, "lcl"> to memref<4x16xf32, "lcl">
// CHECK:           lowlevel.copy %0[{{.*}}] -> %[[BS]] staged "store"
// CHECK-NEXT:      lowlevel.copy %1[{{.*}}] -> %[[AS]] staged "store"
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NOT:       lowlevel.barrier
// CHECK:           lowlevel.view_load %[[BS]]
// CHECK-NEXT:      lowlevel.view_load %[[AS]]
// CHECK-NEXT:      func.call
// CHECK-NEXT:      lowlevel.accumulate
// CHECK-COUNT-6:   }
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier

// In OpenCL a slot is a pointer into the array of both, and the vector stores into it
// stay aligned (each slot's 64 floats are a multiple of 16 bytes); A's rows of 30
// floats move as pairs (aligned, as the GPU's lowering has them), B's as vectors of 4.
// CL-LABEL:   void double_0(
// CL-DAG:       __local float [[B2:v[0-9]+]][128] __attribute__((aligned(16)));
// CL-DAG:       __local float [[A2:v[0-9]+]][128] __attribute__((aligned(16)));
// CL:           for (int [[STEP:v[0-9]+]] = 0; [[STEP]] < 8; [[STEP]] += 1) {
// CL:             const int [[P:v[0-9]+]] = as_int(as_uint([[STEP]]) % as_uint(2));
// CL-NEXT:        __local float* [[AS:v[0-9]+]] = [[A2]] + [[P]] * 64;
// CL-NEXT:        __local float* [[BS:v[0-9]+]] = [[B2]] + [[P]] * 64;
// CL:               *(__local float2*)([[AS]] + {{.*}}) =
// CL:               *(__local float4*)([[BS]] + {{.*}}) =

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

func.func @double(%A: memref<32x30xf32>, %B: memref<30x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "double"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 30], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 2>}
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
