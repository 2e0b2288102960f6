// RUN: mdh-opt %s -p 'mdh-default-config,mdh-check-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize' | filecheck %s
// RUN: mdh-opt %s -p 'lower-to-opencl' -t opencl | filecheck %s --check-prefix=CL

// Vectors along a dimension whose size no width divides (mdh-vectorize): where a vector
// may hold both points of its local tile and padding, each vectorized loop's body is
// split. A vector that ends inside its local tile (lane0 + N <= tile start + tile size)
// runs the vector body, its reads along the dimension without limits; one that ends
// beyond runs the scalar body for each of its N points (scf.for), with the padded
// tile's limits and guards, at its accumulator element step * N + lane (scalar view).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// matmul 5 x 19 x 7: j (19, in local tiles of 16) vectorized by 4; the vectors of the
// second local tile [16, 19) hold 3 points and one of padding.
func.func @matmul(%A: memref<5x7xf32>, %B: memref<7x19xf32>) -> memref<5x19xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [5, 19, 7], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [1, 1, 1], lt_size = [4, 16, 7], pt_size = [4, 8, 7],
                          loop_order = [[0, 1, 2], [2, 0, 1]], vector_width = 4>}
    (%A, %B) : (memref<5x7xf32>, memref<7x19xf32>) -> memref<5x19xf32>
  func.return %C : memref<5x19xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_0(
// CHECK-NEXT:    [[WIDE:%[0-9]+]] = memref.alloca() : memref<1x2x4x2xvector<4xf32>, "prv">
// CHECK-NEXT:    [[ACC:%[0-9]+]] = lowlevel.view [[WIDE]] : memref<1x2x4x2xvector<4xf32>, "prv"> to memref<1x2x4x8xf32, "prv">
// CHECK:         lowlevel.tile_for "lt" dim 1({{.*}}) tile 16 parts 2 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[J0:%[0-9]+]]: index, [[JZ:%[0-9]+]]: index):
// CHECK:           [[JLAST:%[0-9]+]] = arith.constant 18 : index
// CHECK:           lowlevel.tile_for "pt" dim 1({{.*}}) tile 8 parts 1 part %{{[0-9]+}} max 2 padded {
// CHECK:           lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:      ^bb0([[STEP:%[0-9]+]]: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        [[N:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:        [[JN:%[0-9]+]] = arith.addi [[J]], [[N]] : index
// CHECK-NEXT:        [[JEND:%[0-9]+]] = arith.addi [[J0]], [[JZ]] : index
// CHECK-NEXT:        [[WHOLE:%[0-9]+]] = arith.cmpi sle, [[JN]], [[JEND]] : index
// CHECK-NEXT:        scf.if [[WHOLE]] {
// CHECK-NEXT:          lowlevel.view_load %{{[0-9]+}}{{.*}} : memref<5x7xf32> -> f32
// CHECK-NEXT:          lowlevel.view_load %{{[0-9]+}}[%{{[0-9]+}}, [[J]], %{{[0-9]+}}] [] affine_map<{{.*}}> boundary "none" : memref<7x19xf32> -> vector<4xf32>
// CHECK-NEXT:          memref.load [[WIDE]]{{.*}}[[STEP]]] : memref<1x2x4x2xvector<4xf32>, "prv">
// CHECK-NEXT:          vector.broadcast
// CHECK-NEXT:          math.fma {{.*}} : vector<4xf32>
// CHECK-NEXT:          memref.store %{{[0-9]+}}, [[WIDE]]{{.*}}[[STEP]]] : memref<1x2x4x2xvector<4xf32>, "prv">
// CHECK-NEXT:        } else {
// CHECK:               scf.for [[LANE:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:            [[N4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:            [[S:%[0-9]+]] = arith.muli [[STEP]], [[N4]] : index
// CHECK-NEXT:            [[EL:%[0-9]+]] = arith.addi [[S]], [[LANE]] : index
// CHECK-NEXT:            [[JL:%[0-9]+]] = arith.addi [[J]], [[LANE]] : index
// CHECK:                 lowlevel.view_load %{{[0-9]+}}[%{{[0-9]+}}, [[JL]], %{{[0-9]+}}] [] limits[%{{[0-9]+}}, [[JL]], %{{[0-9]+}}] {{.*}} : memref<5x7xf32> -> f32
// CHECK-NEXT:            lowlevel.view_load %{{[0-9]+}}[%{{[0-9]+}}, [[JL]], %{{[0-9]+}}] [] limits[%{{[0-9]+}}, [[JLAST]], %{{[0-9]+}}] {{.*}} : memref<7x19xf32> -> f32
// CHECK-NEXT:            memref.load [[ACC]]{{.*}}[[EL]]] : memref<1x2x4x8xf32, "prv">
// CHECK-NEXT:            math.fma {{.*}} : f32
// CHECK-NEXT:            memref.store %{{[0-9]+}}, [[ACC]]{{.*}}[[EL]]] : memref<1x2x4x8xf32, "prv">
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// The flush: whole vectors stored as vectors inside the guard, the last point by point.
// CHECK:           lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 2 {
// CHECK:             scf.if %{{[0-9]+}} {
// CHECK:               scf.if %{{[0-9]+}} {
// CHECK-NEXT:            memref.load [[WIDE]]
// CHECK-NEXT:            vector.store %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}] : memref<5x19xf32>, vector<4xf32>
// CHECK:             } else {
// CHECK:               scf.for
// CHECK:                 arith.cmpi slt
// CHECK:                 scf.if %{{[0-9]+}} {
// CHECK-NEXT:              memref.load [[ACC]]
// CHECK-NEXT:              memref.store %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}] : memref<5x19xf32>

// CL-LABEL: void matmul_0(
// CL:         if (
// CL:           vstore4(
// CL:         } else {
// CL-NEXT:      #pragma unroll
// CL-NEXT:      for (int v{{[0-9]+}} = 0; v{{[0-9]+}} < 4; v{{[0-9]+}} += 1) {

// matvec 13 x 29: the reduction k vectorized by 4 in private tiles of 8, local tiles of
// 12 (not a multiple of 4): each lane accumulates; the scalar points of a vector that
// ends beyond its local tile accumulate into their own lanes (a scalar view of the lane
// accumulator), the padding's points keep the old value (select).
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @matvec(%M: memref<13x29xf32>, %v: memref<29xf32>) -> memref<13xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [13, 29], out_types = [f32],
     config = #mdh.config<num_wg = [13, 3], num_wi = [1, 1], lt_size = [1, 12], pt_size = [1, 8],
                          loop_order = [[0, 1], [0, 1]], vector_width = 4>}
    (%M, %v) : (memref<13x29xf32>, memref<29xf32>) -> memref<13xf32>
  func.return %w : memref<13xf32>
}
// CHECK-LABEL: lowlevel.kernel @matvec_0(
// CHECK-NEXT:    [[LANES:%[0-9]+]] = memref.alloca() : memref<1x1xvector<4xf32>, "prv">
// CHECK-NEXT:    [[BYLANE:%[0-9]+]] = lowlevel.view [[LANES]] : memref<1x1xvector<4xf32>, "prv"> to memref<1x1x4xf32, "prv">
// CHECK:         lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 2 {
// CHECK:           scf.if %{{[0-9]+}} {
// CHECK:             math.fma {{.*}} : vector<4xf32>
// CHECK:           } else {
// CHECK:             scf.for [[LANE:%[0-9]+]] =
// CHECK:               [[OLD:%[0-9]+]] = memref.load [[BYLANE]][%{{[0-9]+}}, %{{[0-9]+}}, [[LANE]]] : memref<1x1x4xf32, "prv">
// CHECK:               [[IN:%[0-9]+]] = arith.cmpi slt
// CHECK:               [[NEW:%[0-9]+]] = arith.select [[IN]], %{{[0-9]+}}, [[OLD]] : f32
// CHECK-NEXT:          memref.store [[NEW]], [[BYLANE]][%{{[0-9]+}}, %{{[0-9]+}}, [[LANE]]] : memref<1x1x4xf32, "prv">
