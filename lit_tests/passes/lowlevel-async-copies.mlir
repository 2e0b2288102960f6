// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory' | mdh-opt -p lowlevel-prefetch | filecheck %s
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,lowlevel-prefetch,lowlevel-expand,lowlevel-align-vectors' | mdh-opt -p 'lowlevel-async-copies{cp_async=true}' | filecheck %s --check-prefix=CP
// RUN: mdh-opt %s -p 'mdh-tile,mdh-assign-asm,mdh-promote-memory,lowlevel-prefetch,lowlevel-expand,lowlevel-align-vectors' | mdh-opt -p lowlevel-async-copies | filecheck %s --check-prefix=SYNC
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

// lowlevel-prefetch applies `prefetch = 3` (`stages = 2`): the local tiles get two
// slots, and the copies into them (vectors of 4 floats from rows of 32: cp.async can
// move them) are issued one step ahead as asynchronous copies, a group a step
// (async_commit): the first step's into slot 0 before the loop, in the loop the next
// step's (k + 4 < 32) into slot (step + 1) mod 2 after the barrier; an async_wait
// before the barrier completes this step's copies. The barrier that ended each step
// moves after the loop (as with `prefetch = 2`).
// CHECK-LABEL: lowlevel.kernel @ahead_0(
// CHECK:         %[[B2:.*]] = memref.alloca() : memref<2x4x16xf32, "lcl">
// CHECK:         %[[A2:.*]] = memref.alloca() : memref<2x16x4xf32, "lcl">
// CHECK:         %[[A0:.*]] = lowlevel.slot %[[A2]][%[[ZERO:.*]]] : memref<2x16x4xf32, "lcl"> to memref<16x4xf32, "lcl">
// CHECK-NEXT:    lowlevel.copy %0[%{{.*}}, %[[FIRST:.*]]] -> %[[A0]] {{.*}} {lanes = 4 : i64, inside, async}
// CHECK-NEXT:    %[[B0:.*]] = lowlevel.slot %[[B2]][%[[ZERO]]]
// CHECK-NEXT:    lowlevel.copy %1[%[[FIRST]], %{{.*}}] -> %[[B0]] {{.*}} {lanes = 4 : i64, inside, async}
// CHECK-NEXT:    lowlevel.async_commit
// CHECK-NEXT:    lowlevel.tile_for "lt" dim 2
// CHECK-NEXT:    ^bb0(%[[STEP:.*]]: index, %[[K:.*]]: index, %{{.*}}: index):
// CHECK-NOT:       lowlevel.copy
// CHECK:           lowlevel.async_wait
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[K]], %[[FOUR]] : index
// CHECK-NEXT:      %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[MORE]] {
// CHECK:             %[[AFTER:.*]] = arith.addi %[[STEP]], %{{.*}} : index
// CHECK:             %[[PARITY:.*]] = arith.remui %[[AFTER]], %{{.*}} : index
// CHECK-NEXT:        %[[A1:.*]] = lowlevel.slot %[[A2]][%[[PARITY]]]
// CHECK-NEXT:        lowlevel.copy %0[%{{.*}}, %[[NEXT]]] -> %[[A1]] {{.*}} {lanes = 4 : i64, inside, async}
// CHECK-NEXT:        %[[B1:.*]] = lowlevel.slot %[[B2]][%[[PARITY]]]
// CHECK-NEXT:        lowlevel.copy %1[%[[NEXT]], %{{.*}}] -> %[[B1]] {{.*}} {lanes = 4 : i64, inside, async}
// CHECK-NEXT:      }
// CHECK-NEXT:      lowlevel.async_commit
// CHECK-NEXT:      lowlevel.tile_for "pt"
// CHECK:           lowlevel.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @ahead

// With `stages = 3` the tiles get three slots and the copies run two steps ahead: the
// first two steps' before the loop into slots 0 and 1 (both exist: no condition is
// left), each a group; in the loop step + 2's into slot (step + 2) mod 3, and the wait leaves
// the newest group pending (`pending 1`: step + 1's), completing this step's.
// CHECK-LABEL: lowlevel.kernel @three_0(
// CHECK:         %[[B3:.*]] = memref.alloca() : memref<3x4x16xf32, "lcl">
// CHECK:         %[[A3:.*]] = memref.alloca() : memref<3x16x4xf32, "lcl">
// CHECK:         lowlevel.copy %1{{.*}} async}
// CHECK-NEXT:    lowlevel.async_commit
// CHECK:         %[[S1:.*]] = lowlevel.slot %[[A3]][%{{.*}}] : memref<3x16x4xf32, "lcl">
// CHECK-NEXT:    lowlevel.copy %0{{.*}} -> %[[S1]] {{.*}} async}
// CHECK:         lowlevel.copy %1{{.*}} async}
// CHECK-NEXT:    lowlevel.async_commit
// CHECK-NEXT:    lowlevel.tile_for "lt" dim 2
// CHECK-NEXT:    ^bb0(%[[STEP3:.*]]: index, %[[K3:.*]]: index, %{{.*}}: index):
// CHECK:           lowlevel.async_wait pending 1
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:      %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[AHEAD:.*]] = arith.addi %[[K3]], %[[EIGHT]] : index
// CHECK:           scf.if
// CHECK:             %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[LATER:.*]] = arith.addi %[[STEP3]], %[[TWO]] : index
// CHECK-NEXT:        %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[TURN:.*]] = arith.remui %[[LATER]], %[[THREE]] : index
// CHECK-NEXT:        lowlevel.slot %[[A3]][%[[TURN]]]
// CHECK-NEXT:        lowlevel.copy %0[%{{.*}}, %[[AHEAD]]] {{.*}} async}
// CHECK-NEXT:        lowlevel.slot %[[B3]][%[[TURN]]]
// CHECK-NEXT:        lowlevel.copy %1[%[[AHEAD]], %{{.*}}] {{.*}} async}
// CHECK-NEXT:      }
// CHECK-NEXT:      lowlevel.async_commit

// lowlevel-async-copies{cp_async=true} (a device with cp.async): each move of an
// asynchronous copy, a vector load aligned to its 16 bytes from global memory straight
// into an aligned store to local memory, becomes one cp_async; the waits stay.
// CP-LABEL: lowlevel.kernel @ahead_0(
// CP-NOT:      vector.store
// CP:          lowlevel.cp_async %0[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}, %{{.*}}] bytes 16 : memref<32x32xf32> -> memref<16x4xf32, "lcl">
// CP:          lowlevel.cp_async %1[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}, %{{.*}}] bytes 16 : memref<32x32xf32> -> memref<4x16xf32, "lcl">
// CP:          lowlevel.async_wait
// CP-NEXT:     lowlevel.barrier
// CP:          lowlevel.cp_async
// CP:          lowlevel.cp_async

// Without cp_async the moves stay loads and stores (without the mark) and the waits go.
// SYNC-LABEL: lowlevel.kernel @ahead_0(
// SYNC-NOT:    lowlevel.async_wait
// SYNC-NOT:    cp_async
// SYNC:        vector.store %{{.*}} {alignment = 16 : i64} : memref<16x4xf32, "lcl">, vector<4xf32>
// SYNC-NOT:    lowlevel.async_wait
// SYNC-NOT:    cp_async
// SYNC-NOT:    , async}

// The printer writes cp_async as PTX `cp.async.ca` on the local
// address of the slot and the global address, and the wait as `cp.async.wait_all`.
// CL: __asm__ volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"((uint)(size_t)(v{{[0-9]+}} + {{.*}})), "l"((ulong)(v{{[0-9]+}} + {{.*}})) : "memory");
// CL: __asm__ volatile("cp.async.commit_group;" ::: "memory");
// CL: __asm__ volatile("cp.async.wait_all;" ::: "memory");
// CL-NEXT: barrier(CLK_LOCAL_MEM_FENCE);
// CL: __asm__ volatile("cp.async.commit_group;" ::: "memory");
// CL-LABEL: void three_0(
// CL: __asm__ volatile("cp.async.wait_group 1;" ::: "memory");
// CL-NEXT: barrier(CLK_LOCAL_MEM_FENCE);

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @ahead(%A: memref<32x32xf32>, %B: memref<32x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "ahead"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 32], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 3>}
    (%A, %B) : (memref<32x32xf32>, memref<32x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}

func.func @three(%A: memref<32x32xf32>, %B: memref<32x32xf32>) -> memref<32x32xf32> {
  %C = mdh.compute "three"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 32, 32], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [4, 4, 1], lt_size = [16, 16, 4], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], ocl_dim = [[1, 0, 2], [1, 0, 2]],
       buf_layout = [[[0, 1], [0, 1]], [[0, 1], [0, 1]]], loop_order = [[0, 1, 2], [2, 0, 1]], prefetch = 3, stages = 3>}
    (%A, %B) : (memref<32x32xf32>, memref<32x32xf32>) -> memref<32x32xf32>
  func.return %C : memref<32x32xf32>
}
