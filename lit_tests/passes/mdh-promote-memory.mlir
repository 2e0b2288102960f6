// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm' | mdh-opt -p mdh-promote-memory | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory' | filecheck %s

// mdh-promote-memory caches input tiles: a buffer with inp_mem[0][b] = "lcl" gets a local
// alloca (at the kernel's start) holding the box one local tile reads, filled by a
// lowlevel.copy at the start of the innermost "lt" loop, cooperatively (worker = the
// work-item's row-major id among the parts with more than one work-item, of wg_size
// workers) and between two barriers (none with one work-item per work-group); with
// inp_mem[1][b] = "prv", a private alloca filled at the start of the innermost "pt" loop,
// from the local copy when there is one (base relative to its origin, boundary "none",
// source in the local copy's axis order), else from global memory. Boxes are stored in
// buf_layout order (the alloca's shape and the copy's dest perm), global copies keep the
// buffer's boundary mode, and view_loads read the innermost copy at map(point) - origin
// (the origins are the symbols).

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
// matvec: v in local memory (one 6-element box per local tile, 2 workers); M in private
// memory straight from global, stored transposed (buf_layout [1, 0]: 3 x 2).
// CHECK-LABEL: lowlevel.kernel @matvec_0(
// CHECK-SAME:    [[M:%[0-9]+]]: memref<10x12xf32>, [[V:%[0-9]+]]: memref<12xf32>, [[W:%[0-9]+]]: memref<10xf32>)
// CHECK-NEXT:    [[MP:%[0-9]+]] = memref.alloca() : memref<3x2xf32, "prv">
// CHECK-NEXT:    [[VL:%[0-9]+]] = memref.alloca() : memref<6xf32, "lcl">
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 6 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[K0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      lowlevel.copy [[V]]{{\[}}[[K0]]] -> [[VL]] extents [6] perms [0] -> [0] boundary "none" by [[WI]] of 2 {inside} : memref<12xf32> -> memref<6xf32, "lcl">
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:      lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[I1:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        lowlevel.tile_for "pt" dim 1(
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[K1:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:          lowlevel.copy [[M]]{{\[}}[[I1]], [[K1]]] -> [[MP]] extents [2, 3] perms [0, 1] -> [1, 0] boundary "none" by [[Z]] of 1 : memref<10x12xf32> -> memref<3x2xf32, "prv">
// CHECK-NEXT:          lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:          ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:            lowlevel.tile_for "el" dim 1(
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[K:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              [[A:%[0-9]+]] = lowlevel.view_load [[MP]]{{\[}}[[I]], [[K]]] {{\[}}[[I1]], [[K1]]] affine_map<(d0, d1)[s0, s1] -> ((d1 + (s1 * -1)), (d0 + (s0 * -1)))> boundary "none" : memref<3x2xf32, "prv"> -> f32
// CHECK-NEXT:              [[B:%[0-9]+]] = lowlevel.view_load [[VL]]{{\[}}[[I]], [[K]]] {{\[}}[[K0]]] affine_map<(d0, d1)[s0] -> ((d1 + (s0 * -1)))> boundary "none" : memref<6xf32, "lcl"> -> f32
// CHECK-NEXT:              %{{[0-9]+}} = func.call @mul([[A]], [[B]]) : (f32, f32) -> f32
// CHECK-NEXT:              lowlevel.accumulate
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:    }
// CHECK-NOT:     view_load [[M]]
// CHECK-NOT:     view_load [[V]]
// CHECK-LABEL: func.func @matvec(
func.func @matvec(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [2, 1], lt_size = [4, 6], pt_size = [2, 3],
                          inp_mem = [["glb", "lcl"], ["prv", "glb"]], buf_layout = [[[0, 1], [0]], [[1, 0], [0]]],
                          ocl_dim = [[0, 2], [0, 2]]>}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// matmul: A and B in local memory (A transposed: 8 x 4), 8 workers with id
// 4 * wi_i + wi_j (wi_j = local id 0, wi_i = local id 1); A also in private memory,
// copied from its local copy. The boxes lie inside A along k (16 in tiles of 8) but not
// along i (10 in tiles of 4), inside B along k but not along j (20 in tiles of 8): the
// copies carry the axes that need no bounds checks (`inside_axes`).
// CHECK-LABEL: lowlevel.kernel @matmul_0(
// CHECK-SAME:    [[A:%[0-9]+]]: memref<10x16xf32>, [[B:%[0-9]+]]: memref<16x20xf32>, [[C:%[0-9]+]]: memref<10x20xf32>)
// CHECK-NEXT:    [[AP:%[0-9]+]] = memref.alloca() : memref<4x2xf32, "prv">
// CHECK-NEXT:    [[BL:%[0-9]+]] = memref.alloca() : memref<8x8xf32, "lcl">
// CHECK-NEXT:    [[AL:%[0-9]+]] = memref.alloca() : memref<8x4xf32, "lcl">
// CHECK:         [[WJ:%[0-9]+]] = lowlevel.local_id 0
// CHECK-NEXT:    [[WI:%[0-9]+]] = lowlevel.local_id 1
// CHECK:         lowlevel.tile_for "lt" dim 0(
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[I0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 1(
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[J0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        lowlevel.tile_for "lt" dim 2(
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[K0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[FOUR:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:          [[T:%[0-9]+]] = arith.muli [[FOUR]], [[WI]] : index
// CHECK-NEXT:          [[WORKER:%[0-9]+]] = arith.addi [[T]], [[WJ]] : index
// CHECK-NEXT:          lowlevel.copy [[A]]{{\[}}[[I0]], [[K0]]] -> [[AL]] extents [4, 8] perms [0, 1] -> [1, 0] boundary "none" by [[WORKER]] of 8 {inside_axes = array<i64: 1>} : memref<10x16xf32> -> memref<8x4xf32, "lcl">
// CHECK-NEXT:          lowlevel.copy [[B]]{{\[}}[[K0]], [[J0]]] -> [[BL]] extents [8, 8] perms [0, 1] -> [0, 1] boundary "none" by [[WORKER]] of 8 {lanes = 4 : i64, inside_axes = array<i64: 0>} : memref<16x20xf32> -> memref<8x8xf32, "lcl">
// CHECK-NEXT:          lowlevel.barrier
// CHECK-NEXT:          lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:          ^bb0(%{{[0-9]+}}: index, [[I1:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:            lowlevel.tile_for "pt" dim 1(
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              lowlevel.tile_for "pt" dim 2(
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[K1:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                [[DI:%[0-9]+]] = arith.subi [[I1]], [[I0]] : index
// CHECK-NEXT:                [[DK:%[0-9]+]] = arith.subi [[K1]], [[K0]] : index
// CHECK-NEXT:                [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:                lowlevel.copy [[AL]]{{\[}}[[DI]], [[DK]]] -> [[AP]] extents [2, 4] perms [1, 0] -> [1, 0] boundary "none" by [[Z]] of 1 : memref<8x4xf32, "lcl"> -> memref<4x2xf32, "prv">
// CHECK:                         %{{[0-9]+}} = lowlevel.view_load [[AP]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] {{\[}}[[I1]], [[K1]]] affine_map<(d0, d1, d2)[s0, s1] -> ((d2 + (s1 * -1)), (d0 + (s0 * -1)))> boundary "none" : memref<4x2xf32, "prv"> -> f32
// CHECK-NEXT:                    %{{[0-9]+}} = lowlevel.view_load [[BL]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] {{\[}}[[K0]], [[J0]]] affine_map<(d0, d1, d2)[s0, s1] -> ((d2 + (s0 * -1)), (d1 + (s1 * -1)))> boundary "none" : memref<8x8xf32, "lcl"> -> f32
// CHECK:                 lowlevel.barrier
// CHECK-NEXT:          }
// CHECK-LABEL: func.func @matmul(
func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 1], num_wi = [2, 4, 1], lt_size = [4, 8, 8], pt_size = [2, 2, 4],
                          inp_mem = [["lcl", "lcl"], ["prv", "glb"]],
                          buf_layout = [[[1, 0], [0, 1]], [[1, 0], [0, 1]]], ocl_dim = [[1, 0, 2], [1, 0, 2]]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// With lcl_pad = 1 the local buffers' rows are one element longer than their boxes (A's
// 4 + 1, B's 8 + 1); the copies' extents stay the boxes'.
// CHECK-LABEL: lowlevel.kernel @padded_0(
// CHECK:         [[BL:%[0-9]+]] = memref.alloca() : memref<8x9xf32, "lcl">
// CHECK-NEXT:    [[AL:%[0-9]+]] = memref.alloca() : memref<8x5xf32, "lcl">
// CHECK:         lowlevel.copy %{{[0-9]+}}{{\[}}%{{[0-9]+}}, %{{[0-9]+}}] -> [[AL]] extents [4, 8] perms [0, 1] -> [1, 0] {{.*}} -> memref<8x5xf32, "lcl">
// CHECK-NEXT:    lowlevel.copy %{{[0-9]+}}{{\[}}%{{[0-9]+}}, %{{[0-9]+}}] -> [[BL]] extents [8, 8] perms [0, 1] -> [0, 1] {{.*}} -> memref<8x9xf32, "lcl">
// CHECK:         lowlevel.copy [[AL]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}] -> %{{[0-9]+}} extents [2, 4] {{.*}} : memref<8x5xf32, "lcl"> -> memref<4x2xf32, "prv">
// CHECK-LABEL: func.func @padded(
func.func @padded(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "padded"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 1], num_wi = [2, 4, 1], lt_size = [4, 8, 8], pt_size = [2, 2, 4],
                          inp_mem = [["lcl", "lcl"], ["prv", "glb"]],
                          buf_layout = [[[1, 0], [0, 1]], [[1, 0], [0, 1]]], ocl_dim = [[1, 0, 2], [1, 0, 2]], lcl_pad = 1, wg_combine = "kernel">}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// Where the tiles divide the sizes (8 x 16 x 16 in tiles of 4 x 8 x 8), every box lies
// inside its matrix: the local copies are marked `inside` (no bounds checks). Above,
// A's last row tile (rows 8-11 of 10) and B's last column tile do not fit.
// CHECK-LABEL: lowlevel.kernel @even_0(
// CHECK:         lowlevel.copy {{.*}} extents [4, 8] perms [0, 1] -> [1, 0] boundary "none" by %{{[0-9]+}} of 8 {inside} : memref<8x16xf32>
// CHECK-NEXT:    lowlevel.copy {{.*}} extents [8, 8] perms [0, 1] -> [0, 1] boundary "none" by %{{[0-9]+}} of 8 {lanes = 4 : i64, inside} : memref<16x16xf32>
// CHECK-LABEL: func.func @even(
func.func @even(%A: memref<8x16xf32>, %B: memref<16x16xf32>) -> memref<8x16xf32> {
  %C = mdh.compute "even"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [8, 16, 16], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [2, 4, 1], lt_size = [4, 8, 8], pt_size = [2, 2, 4],
                          inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          buf_layout = [[[1, 0], [0, 1]], [[0, 1], [0, 1]]], ocl_dim = [[1, 0, 2], [1, 0, 2]]>}
    (%A, %B) : (memref<8x16xf32>, memref<16x16xf32>) -> memref<8x16xf32>
  func.return %C : memref<8x16xf32>
}
// jacobi1d: the local box of a 16-element tile is 18 elements from tile start - 1, copied
// from global memory with the boundary mode "clamp"; the private box (4 elements) is
// copied from it; the three view_loads read the private copy.
// CHECK-LABEL: lowlevel.kernel @jacobi1d_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, [[Y:%[0-9]+]]: memref<37xf32>)
// CHECK-NEXT:    [[XP:%[0-9]+]] = memref.alloca() : memref<4xf32, "prv">
// CHECK-NEXT:    [[XL:%[0-9]+]] = memref.alloca() : memref<18xf32, "lcl">
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         lowlevel.tile_for "lt" dim 0(
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[I0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[O0:%[0-9]+]] = arith.addi [[I0]], [[M1]] : index
// CHECK-NEXT:      lowlevel.copy [[X]]{{\[}}[[O0]]] -> [[XL]] extents [18] perms [0] -> [0] boundary "clamp" by [[WI]] of 4 : memref<37xf32> -> memref<18xf32, "lcl">
// CHECK-NEXT:      lowlevel.barrier
// CHECK-NEXT:      lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[I1:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        [[M1B:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:        [[O1:%[0-9]+]] = arith.addi [[I1]], [[M1B]] : index
// CHECK-NEXT:        [[D:%[0-9]+]] = arith.subi [[O1]], [[O0]] : index
// CHECK-NEXT:        %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:        lowlevel.copy [[XL]]{{\[}}[[D]]] -> [[XP]] extents [4] perms [0] -> [0] boundary "none" by %{{[0-9]+}} of 1 : memref<18xf32, "lcl"> -> memref<4xf32, "prv">
// CHECK-NEXT:        lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          %{{[0-9]+}} = lowlevel.view_load [[XP]]{{\[}}[[I]]] {{\[}}[[O1]]] affine_map<(d0)[s0] -> (((d0 + -1) + (s0 * -1)))> boundary "none" : memref<4xf32, "prv"> -> f32
// CHECK-NEXT:          %{{[0-9]+}} = lowlevel.view_load [[XP]]{{\[}}[[I]]] {{\[}}[[O1]]] affine_map<(d0)[s0] -> ((d0 + (s0 * -1)))> boundary "none" : memref<4xf32, "prv"> -> f32
// CHECK-NEXT:          %{{[0-9]+}} = lowlevel.view_load [[XP]]{{\[}}[[I]]] {{\[}}[[O1]]] affine_map<(d0)[s0] -> (((d0 + 1) + (s0 * -1)))> boundary "none" : memref<4xf32, "prv"> -> f32
// CHECK:           lowlevel.barrier
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @jacobi1d(
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [16], pt_size = [2], inp_mem = [["lcl"], ["prv"]],
                          ocl_dim = [[0], [0]]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// gaussian: x's local box for a 3 x 4 output tile and the 3 x 3 filter is 5 x 6 from
// (h0 + r0 - 1, w0 + s0 - 1), copied with the boundary mode "zero"; g stays in global
// memory; one work-item per work-group: worker 0 of 1 and no barrier.
// CHECK-LABEL: lowlevel.kernel @gaussian_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<9x8xf32>, [[G:%[0-9]+]]: memref<3x3xf32>, [[Y:%[0-9]+]]: memref<9x8xf32>)
// CHECK-NEXT:    [[XL:%[0-9]+]] = memref.alloca() : memref<5x6xf32, "lcl">
// CHECK-NOT:     memref.alloca
// CHECK:         lowlevel.tile_for "lt" dim 0(
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[H0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 1(
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[W0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        lowlevel.tile_for "lt" dim 2(
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[R0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          lowlevel.tile_for "lt" dim 3(
// CHECK-NEXT:          ^bb0(%{{[0-9]+}}: index, [[S0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:            [[ZERO:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:            [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:            [[T0:%[0-9]+]] = arith.addi [[H0]], [[M1]] : index
// CHECK-NEXT:            [[OH:%[0-9]+]] = arith.addi [[R0]], [[T0]] : index
// CHECK-NEXT:            [[M1B:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:            [[T1:%[0-9]+]] = arith.addi [[W0]], [[M1B]] : index
// CHECK-NEXT:            [[OW:%[0-9]+]] = arith.addi [[S0]], [[T1]] : index
// CHECK-NEXT:            lowlevel.copy [[X]]{{\[}}[[OH]], [[OW]]] -> [[XL]] extents [5, 6] perms [0, 1] -> [0, 1] boundary "zero" by [[ZERO]] of 1 : memref<9x8xf32> -> memref<5x6xf32, "lcl">
// CHECK-NEXT:            lowlevel.tile_for "pt" dim 0(
// CHECK-NOT:             lowlevel.barrier
// CHECK:                 %{{[0-9]+}} = lowlevel.view_load [[XL]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] {{\[}}[[OH]], [[OW]]] affine_map<(d0, d1, d2, d3)[s0, s1] -> ((((d0 + d2) + -1) + (s0 * -1)), (((d1 + d3) + -1) + (s1 * -1)))> boundary "none" : memref<5x6xf32, "lcl"> -> f32
// CHECK-NEXT:            %{{[0-9]+}} = lowlevel.view_load [[G]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] [] affine_map<(d0, d1, d2, d3) -> (d2, d3)> boundary "none" : memref<3x3xf32> -> f32
// CHECK-NOT:     lowlevel.barrier
// CHECK-LABEL: func.func @gaussian(
func.func @gaussian(%x: memref<9x8xf32>, %g: memref<3x3xf32>) -> memref<9x8xf32> {
  %y = mdh.compute "gaussian"
    {inp_view = [[affine_map<(h, w, r, s) -> (h + r - 1, w + s - 1)>], [affine_map<(h, w, r, s) -> (r, s)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add], ["pw", @add]]},
     out_view = [[affine_map<(h, w, r, s) -> (h, w)>]], boundary = ["zero", "none"]}
    {inp_types = [f32, f32], mda_size = [9, 8, 3, 3], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 1, 1], num_wi = [1, 1, 1, 1], lt_size = [3, 4, 3, 3], pt_size = [3, 4, 3, 3],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]]>}
    (%x, %g) : (memref<9x8xf32>, memref<3x3xf32>) -> memref<9x8xf32>
  func.return %y : memref<9x8xf32>
}
