// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile' | mdh-opt -p mdh-assign-asm | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm' | filecheck %s

// mdh-assign-asm turns each work-group par_for into a lowlevel.kernel (named after the
// host function, placed before it; its buffers become the arguments) and a
// lowlevel.launch in the host. Part ids become group_id / local_id of OpenCL dimension
// ocl_dim[layer][d] (count 1: the constant 0); several MDH dimensions on one OpenCL
// dimension are folded, the last varying fastest (divui / remui). The work-item par_for
// is dissolved and the tile loops of each layer are re-nested in loop_order (the "el"
// loops follow the "pt" order). global = work-groups x local size per OpenCL dimension.

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
// matvec (gpu default): 128 work-groups on OpenCL dimension 0, 64 work-items on the pw
// dimension, also on OpenCL dimension 0.
// CHECK-LABEL: lowlevel.kernel @matvec_0(
// CHECK-SAME:  [[M:%[0-9]+]]: memref<128x64xf32>, [[V:%[0-9]+]]: memref<64xf32>, [[W:%[0-9]+]]: memref<128xf32>)
// CHECK-SAME:    attributes {mdh.compute = {comp_name = "matvec",
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[G0:%[0-9]+]] = lowlevel.group_id 0
// CHECK-NEXT:    [[ZW:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[L1:%[0-9]+]] = lowlevel.local_id 0
// CHECK-NOT:     lowlevel.par_for
// CHECK:         lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 128 part [[G0]] max 1 {
// CHECK:           lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 64 parts 1 part [[Z]] max 1 {
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        lowlevel.tile_for "pt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part [[ZW]] max 1 {
// CHECK-NEXT:        ^bb0(
// CHECK-NEXT:          lowlevel.tile_for "pt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 64 part [[L1]] max 1 {
// CHECK:                       lowlevel.view_load [[M]]{{\[}}
// CHECK-NEXT:                  lowlevel.view_load [[V]]{{\[}}
// CHECK:                       lowlevel.accumulate %{{[0-9]+}} into [[W]]
// CHECK-LABEL: func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
// CHECK-NEXT:    %w = memref.alloc() : memref<128xf32>
// CHECK-NEXT:    lowlevel.launch @matvec_0(%M, %v, %w) global [8192, 1, 1] local [64, 1, 1] : memref<128x64xf32>, memref<64xf32>, memref<128xf32>
// CHECK-NEXT:    func.return %w : memref<128xf32>
// CHECK-NEXT:  }
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32]}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}
// matmul: work-group dims i (3) and j (2) fold onto OpenCL dimension 0 (j fastest:
// j = g0 rem 2, i = g0 / 2), k (2) is on dimension 1; work-items i (2) on dimension 1,
// j (4) on dimension 0. loop_order [[2, 0, 1], [1, 2, 0]] re-nests the lt loops as k, i, j
// and the pt and el loops as j, k, i. Launch: 6 x 4 = 24 by 2 x 2 = 4 work-items.
// CHECK-LABEL: lowlevel.kernel @matmul_0(
// CHECK-SAME:  [[A:%[0-9]+]]: memref<10x16xf32>, [[B:%[0-9]+]]: memref<16x20xf32>, [[C:%[0-9]+]]: memref<10x20xf32>)
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[G0:%[0-9]+]] = lowlevel.group_id 0
// CHECK-NEXT:    [[TWO:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[GJ:%[0-9]+]] = arith.remui [[G0]], [[TWO]] : index
// CHECK-NEXT:    [[TWO2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[GI:%[0-9]+]] = arith.divui [[G0]], [[TWO2]] : index
// CHECK-NEXT:    [[GK:%[0-9]+]] = lowlevel.group_id 1
// CHECK-NEXT:    [[LK:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[LJ:%[0-9]+]] = lowlevel.local_id 0
// CHECK-NEXT:    [[LI:%[0-9]+]] = lowlevel.local_id 1
// CHECK:         lowlevel.tile_for "lt" dim 2(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 2 part [[GK]] max 2 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[KS:%[0-9]+]]: index, [[KZ:%[0-9]+]]: index):
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 3 part [[GI]] max 1 {
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[IS:%[0-9]+]]: index, [[IZ:%[0-9]+]]: index):
// CHECK-NEXT:        lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 8 parts 2 part [[GJ]] max 2 {
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[JS:%[0-9]+]]: index, [[JZ:%[0-9]+]]: index):
// CHECK-NEXT:          lowlevel.tile_for "pt" dim 1([[JS]], [[JZ]]) tile 1 parts 4 part [[LJ]] max 2 padded {
// CHECK-NEXT:          ^bb0(%{{[0-9]+}}: index, [[PJS:%[0-9]+]]: index, [[PJZ:%[0-9]+]]: index):
// CHECK-NEXT:            lowlevel.tile_for "pt" dim 2([[KS]], [[KZ]]) tile 4 parts 1 part [[LK]] max 1 {
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[PKS:%[0-9]+]]: index, [[PKZ:%[0-9]+]]: index):
// CHECK-NEXT:              lowlevel.tile_for "pt" dim 0([[IS]], [[IZ]]) tile 2 parts 2 part [[LI]] max 1 padded {
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[PIS:%[0-9]+]]: index, [[PIZ:%[0-9]+]]: index):
// CHECK-NEXT:                lowlevel.tile_for "el" dim 1([[PJS]], [[PJZ]]) tile 1 parts 1 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:                ^bb0(%{{[0-9]+}}: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                  lowlevel.tile_for "el" dim 2([[PKS]], [[PKZ]]) tile 1 parts 1 part %{{[0-9]+}} max 4 {
// CHECK-NEXT:                  ^bb0(%{{[0-9]+}}: index, [[K:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                    lowlevel.tile_for "el" dim 0([[PIS]], [[PIZ]]) tile 1 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:                    ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                      %{{[0-9]+}} = lowlevel.view_load [[A]]{{\[}}[[I]], [[J]], [[K]]] [] affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-NEXT:                      %{{[0-9]+}} = lowlevel.view_load [[B]]{{\[}}[[I]], [[J]], [[K]]] [] affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-NEXT:                      %{{[0-9]+}} = func.call @mul(
// CHECK-NEXT:                      lowlevel.accumulate %{{[0-9]+}} into [[C]] at{{\[}}[[I]], [[J]], [[K]]]
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %C = memref.alloc() : memref<10x20xf32>
// CHECK-NEXT:    lowlevel.launch @matmul_0(%A, %B, %C) global [24, 4, 1] local [4, 2, 1] : memref<10x16xf32>, memref<16x20xf32>, memref<10x20xf32>
func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 2], num_wi = [2, 4, 1], lt_size = [4, 8, 4], pt_size = [2, 1, 4],
                          ocl_dim = [[0, 0, 1], [1, 0, 2]], loop_order = [[2, 0, 1], [1, 2, 0]]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// jacobi1d: work-groups on OpenCL dimension 1, work-items on dimension 2.
// CHECK-LABEL: lowlevel.kernel @jacobi1d_0(
// CHECK-NEXT:    %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:    [[G:%[0-9]+]] = lowlevel.group_id 1
// CHECK-NEXT:    %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:    [[L:%[0-9]+]] = lowlevel.local_id 2
// CHECK:         lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 16 parts 3 part [[G]] max 1 {
// CHECK:           lowlevel.tile_for "pt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 2 parts 4 part [[L]] max 2 padded {
// CHECK-LABEL: func.func @jacobi1d(
// CHECK:         lowlevel.launch @jacobi1d_0(%x, %y) global [1, 3, 4] local [1, 1, 4] : memref<37xf32>, memref<37xf32>
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["zero"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [16], pt_size = [2], ocl_dim = [[1], [2]]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}
// transpose, 4 dimensions: n (2), h (5), w (4) fold onto OpenCL dimension 0
// (w = g rem 4, h = (g / 4) rem 5, n = g / 20); c has one work-group and 3 work-items.
// CHECK-LABEL: lowlevel.kernel @transpose_0(
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[G:%[0-9]+]] = lowlevel.group_id 0
// CHECK-NEXT:    [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[GW:%[0-9]+]] = arith.remui [[G]], [[C4]] : index
// CHECK-NEXT:    [[C4B:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[Q:%[0-9]+]] = arith.divui [[G]], [[C4B]] : index
// CHECK-NEXT:    [[C5:%[0-9]+]] = arith.constant 5 : index
// CHECK-NEXT:    [[GH:%[0-9]+]] = arith.remui [[Q]], [[C5]] : index
// CHECK-NEXT:    [[C20:%[0-9]+]] = arith.constant 20 : index
// CHECK-NEXT:    [[GN:%[0-9]+]] = arith.divui [[G]], [[C20]] : index
// CHECK-NEXT:    %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:    [[L:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 2 part [[GN]] max 1 {
// CHECK:           lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 5 part [[GH]] max 1 {
// CHECK:             lowlevel.tile_for "lt" dim 2(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 4 part [[GW]] max 1 {
// CHECK:               lowlevel.tile_for "lt" dim 3(%{{[0-9]+}}, %{{[0-9]+}}) tile 3 parts 1 part [[Z]] max 1 {
// CHECK:                         lowlevel.tile_for "pt" dim 3(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 3 part [[L]] max 1 {
// CHECK-LABEL: func.func @transpose(
// CHECK:         lowlevel.launch @transpose_0(%x, %y) global [120, 1, 1] local [3, 1, 1]
func.func @transpose(%x: memref<2x5x4x3xf32>) -> memref<2x3x5x4xf32> {
  %y = mdh.compute "transpose"
    {inp_view = [[affine_map<(n, h, w, c) -> (n, h, w, c)>]],
     md_hom = {scalar_func = @id, combine_ops = ["cc", "cc", "cc", "cc"]},
     out_view = [[affine_map<(n, h, w, c) -> (n, c, h, w)>]]}
    {inp_types = [f32], mda_size = [2, 5, 4, 3], out_types = [f32],
     config = #mdh.config<num_wg = [2, 5, 4, 1], num_wi = [1, 1, 1, 3], lt_size = [1, 1, 1, 3], pt_size = [1, 1, 1, 1],
                          ocl_dim = [[0, 0, 0, 0], [2, 2, 2, 0]]>}
    (%x) : (memref<2x5x4x3xf32>) -> memref<2x3x5x4xf32>
  func.return %y : memref<2x3x5x4xf32>
}
