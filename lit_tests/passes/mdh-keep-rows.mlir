// RUN: mdh-opt %s -p 'mdh-bufferize,mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-split-stats,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,mdh-keep-rows' | filecheck %s
// RUN: mdh-opt %s -p 'mdh-bufferize,mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-split-stats,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,mdh-keep-rows,lowlevel-prefetch,lowlevel-expand,lowlevel-merge-kernels' | filecheck %s --check-prefix=MERGED
// RUN: mdh-opt %s -p 'mdh-bufferize,mdh-default-config{device=cpu},mdh-check-config{device=cpu},mdh-split-stats,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,mdh-keep-rows' | filecheck %s --check-prefix=CPU

// A row softmax of 64 x 128 (mdh-split-stats: max, sum of exp(x - max), quotient). The GPU
// default shares each row among 8 work-items of 4 float4 each: the statistics end in the
// local arrays of the phases' trees, and x fits in 16 floats a work-item. The first phase
// keeps what it reads of x (kept = 0: its argument 0) and its tree's array (kept = 1);
// the later phases read placeholders marked with their argument positions of x and of
// the statistics, and read neither from global memory.

// CHECK:      lowlevel.kernel @softmax_0(%0: memref<64x128xf32>, %1: memref<64xf32>)
// CHECK-NEXT:   %[[X0:.*]] = memref.alloca() {kept = 0 : i64} : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
// CHECK-NEXT:   %[[M0:.*]] = memref.alloca() {kept = 1 : i64} : memref<8x1x1x1xf32, "lcl">
// CHECK:        %[[V:.*]] = lowlevel.view_load %0[{{.*}} -> vector<4xf32>
// CHECK-NEXT:   memref.store %[[V]], %[[X0]][{{.*}}] : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
// CHECK:        memref.store %{{.*}}, %1[{{.*}}] : memref<64xf32>

// CHECK:      lowlevel.kernel @softmax_1(%0: memref<64xf32>, %1: memref<64x128xf32>, %2: memref<64xf32>)
// CHECK-NEXT:   %[[X1:.*]] = memref.alloca() {kept = 1 : i64} : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
// CHECK-NEXT:   %[[M1:.*]] = memref.alloca() {kept = 0 : i64} : memref<8x1x1x1xf32, "lcl">
// CHECK-NEXT:   %{{.*}} = memref.alloca() {kept = 2 : i64} : memref<8x1x1x1xf32, "lcl">
// CHECK-NOT:    lowlevel.view_load
// CHECK:        %[[M:.*]] = memref.load %[[M1]][{{.*}}] : memref<8x1x1x1xf32, "lcl">
// CHECK-NEXT:   %[[X:.*]] = memref.load %[[X1]][{{.*}}] : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
// CHECK-NEXT:   %[[B:.*]] = vector.broadcast %[[M]]
// CHECK-NEXT:   func.call @exp_sub_v4(%[[B]], %[[X]])
// CHECK-NOT:    lowlevel.view_load
// CHECK:      lowlevel.kernel @softmax_2(%0: memref<64xf32>, %1: memref<64xf32>, %2: memref<64x128xf32>, %3: memref<64x128xf32>)
// CHECK-NEXT:   memref.alloca() {kept = 2 : i64} : memref<1x1x1x4x1x1xvector<4xf32>, "prv">
// CHECK-NEXT:   memref.alloca() {kept = 1 : i64} : memref<8x1x1x1xf32, "lcl">
// CHECK-NEXT:   memref.alloca() {kept = 0 : i64} : memref<8x1x1x1xf32, "lcl">
// CHECK-NOT:    lowlevel.view_load
// CHECK:        func.call @div_rows_v4
// CHECK-NOT:    lowlevel.view_load
// CHECK:      func.func @softmax

// Merged (lowlevel-merge-kernels): one array of each kind, the first phase's; x is read
// once, no phase reads what another wrote to global memory: no shared arguments, the
// barriers between the phases are local. Nothing reads the statistics' buffers any
// more (the host allocates them for this launch only): they are not stored.

// MERGED:      lowlevel.kernel @softmax_0(%0: memref<64x128xf32>, %1: memref<64xf32>, %2: memref<64xf32>, %3: memref<64x128xf32>)
// MERGED-NOT:  shared
// MERGED-SAME: {
// MERGED-COUNT-1: vector.load %0[
// MERGED-NOT:  vector.load %0[
// MERGED-NOT:  memref.load %1[
// MERGED-NOT:  memref.load %2[
// MERGED-NOT:  memref.store %{{.*}}, %1[
// MERGED-NOT:  memref.store %{{.*}}, %2[
// MERGED-NOT:  lowlevel.barrier global
// MERGED:      func.func @softmax

// The CPU default gives each row one work-item (no tree: the statistic is in no local
// array) reading 8 steps of 16 lanes of x (128 floats, more than KEPT_ELEMS): the phases
// read both from global memory.

// CPU-NOT: kept
// CPU:     func.func @softmax

func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
func.func @exp_sub(%m: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  func.return %e : f32
}
func.func @div_rows(%m: f32, %s: f32, %x: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  %r = arith.divf %e, %s : f32
  func.return %r : f32
}
func.func @softmax(%x: memref<64x128xf32>) -> memref<64x128xf32> {
  %y = mdh.compute "sm"
    {inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     md_hom = {scalar_func = @div_rows, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(d0, d1) -> (d0, d1)>]],
     stats = [{func = @id, combine_ops = ["cc", ["pw", "max"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]},
              {func = @exp_sub, combine_ops = ["cc", ["pw", "add"]], inp_view = [[affine_map<(d0, d1) -> (d0, d1)>]]}]}
    {inp_types = [f32], mda_size = [64, 128], out_types = [f32]}
    (%x, %x, %x) : (memref<64x128xf32>, memref<64x128xf32>, memref<64x128xf32>) -> memref<64x128xf32>
  func.return %y : memref<64x128xf32>
}
