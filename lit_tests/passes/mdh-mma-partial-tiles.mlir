// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-mma | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p 'mdh-mma{whole_tiles=false}' | filecheck %s --check-prefix=MASKED

// mdh-mma on partial tiles: a matmul 30 x 16 x 24 of f16 inputs, one warp (2 x 16
// work-items) with private tiles of 16 x 1 x 16, local tiles of 32 rows (the last two
// padded) and of 16 along k (the second partial: k 16 .. 23).
// - k: the fragment steps are computed twice, under `scf.if` on the local tile's size:
//   without masks where the tile is whole, with each register's elements beyond the
//   tile dropped (`andi` with a mask) only in the partial one, so that a whole tile's
//   steps pay for no masks; with `whole_tiles=false` (emulated fragments, as
//   `lower-to-opencl` runs it for a device without tensor cores) one computation,
//   masked in every tile;
// - rows: the flush's guard (the row inside the 30) holds each element's store; a lane's
//   two adjacent columns are stored as one vector store where both guards hold, and
//   each alone where only its own does.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<30x24xf16>, %B: memref<24x16xf16>) -> memref<30x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f16, f16], mda_size = [30, 16, 24], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [2, 16, 1], lt_size = [32, 16, 16],
                          pt_size = [16, 1, 16], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, lcl_pad = 8, mma = "f16">}
    (%A, %B) : (memref<30x24xf16>, memref<24x16xf16>) -> memref<30x16xf32>
  func.return %C : memref<30x16xf32>
}

// CHECK-LABEL: lowlevel.kernel @mm_0(
// CHECK:         lowlevel.tile_for "lt" dim 2({{.*}}) tile 16
// CHECK-NEXT:      ^bb0(%{{.*}}: index, %{{.*}}: index, %[[KSIZE:.*]]: index):
// CHECK:           lowlevel.barrier
// CHECK-NEXT:      %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK-NEXT:      %[[WHOLE:.*]] = arith.cmpi eq, %[[KSIZE]], %[[SIXTEEN]] : index
// CHECK-NEXT:      scf.if %[[WHOLE]] {
// CHECK-NOT:         arith.andi
// CHECK-COUNT-4:     lowlevel.mma "f16"
// CHECK-NOT:         arith.andi
// CHECK:           %[[PARTIAL:.*]] = arith.xori %[[WHOLE]], %{{.*}} : i1
// CHECK-NEXT:      scf.if %[[PARTIAL]] {
// CHECK:             %[[A0:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK:             lowlevel.mma "f16" a(%[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32, i32)
// CHECK-COUNT-3:     lowlevel.mma "f16"
// CHECK:         %[[T2:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %{{.*}}, %[[T2]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         %[[IN0:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// CHECK:         %[[COL1:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK:         %[[IN1:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// CHECK:         %[[BOTH:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK-NEXT:    scf.if %[[BOTH]] {
// CHECK-NEXT:      %[[PAIR:.*]] = vector.load %{{.*}} : memref<1x1x2x2x4xf32, "prv">, vector<2xf32>
// CHECK-NEXT:      vector.store %[[PAIR]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<30x16xf32>, vector<2xf32>
// CHECK-NEXT:    }
// CHECK:         %[[NOT1:.*]] = arith.xori %[[IN1]], %{{.*}} : i1
// CHECK-NEXT:    %[[ONLY0:.*]] = arith.andi %[[IN0]], %[[NOT1]] : i1
// CHECK-NEXT:    scf.if %[[ONLY0]] {
// CHECK-NEXT:      %{{.*}} = memref.load
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] : memref<30x16xf32>
// CHECK-NEXT:    }
// CHECK:         %[[NOT0:.*]] = arith.xori %[[IN0]], %{{.*}} : i1
// CHECK-NEXT:    %[[ONLY1:.*]] = arith.andi %[[IN1]], %[[NOT0]] : i1
// CHECK-NEXT:    scf.if %[[ONLY1]] {
// CHECK-NEXT:      %{{.*}} = memref.load
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL1]]] : memref<30x16xf32>
// CHECK-NEXT:    }
// CHECK-COUNT-7: vector.store %{{.*}} : memref<30x16xf32>, vector<2xf32>

// MASKED-LABEL: lowlevel.kernel @mm_0(
// MASKED:         lowlevel.tile_for "lt" dim 2({{.*}}) tile 16
// MASKED-NOT:     arith.cmpi eq
// MASKED:         %[[A0:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// MASKED:         lowlevel.mma "f16" a(%[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32, i32)
// MASKED-COUNT-3: lowlevel.mma "f16"
// MASKED-NOT:     lowlevel.mma
