// RUN: mdh-opt %s -p 'mdh-default-config,mdh-check-config' | mdh-opt -p mdh-tile | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-check-config,mdh-tile' | filecheck %s

// mdh-tile replaces each mdh.compute by its output buffers and one loop nest: the
// work-group par_for (over num_wg parts, taking the buffers), one "lt" tile_for per
// dimension (tile lt_size, parts num_wg, part = work-group id, max = the most local
// tiles one work-group gets), the work-item par_for (num_wi), "pt" loops over the local
// tile (tile pt_size, parts num_wi), "el" loops over the private tile (tile 1, max
// pt_size); at the innermost point one view_load per input access (with the buffer's
// boundary mode), the scalar function, and an abstract accumulate. The op's properties
// travel on the work-group par_for. Sizes are chosen so that tiles do not divide evenly
// (max = ceil(ceil(N / lt) / num_wg), ceil(ceil(lt / pt) / num_wi)). A "pt" loop of a
// dimension whose tiles can be partial is `padded`: it always runs its max steps of
// whole tiles (here dim 0 of matvec: 10 rows in tiles of 4).

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
func.func @addi(%a: i32, %b: i32) -> i32 {
  %r = arith.addi %a, %b : i32
  func.return %r : i32
}
func.func @count(%x: i32, %e: index, %b: index) -> i32 {
  %bin = arith.index_cast %b : index to i32
  %hit = arith.cmpi eq, %x, %bin : i32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %r = arith.select %hit, %one, %zero : i32
  func.return %r : i32
}
// matvec 10 x 12: 3 local tiles of 4 rows over 2 work-groups (max 2); 4 private tiles
// of 1 row over 2 work-items (max 2); 6 private tiles of 2 columns over 3 work-items.
// CHECK-LABEL: func.func @matvec(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
// CHECK-NEXT:    %w = memref.alloc() : memref<10xf32>
// CHECK-NEXT:    lowlevel.par_for "wg" [2, 1](%M, %v, %w : memref<10x12xf32>, memref<12xf32>, memref<10xf32>) {
// CHECK-NEXT:    ^bb0([[G0:%[0-9]+]]: index, [[G1:%[0-9]+]]: index, [[MB:%[0-9]+]]: memref<10x12xf32>, [[VB:%[0-9]+]]: memref<12xf32>, [[WB:%[0-9]+]]: memref<10xf32>):
// CHECK-NEXT:      [[ZERO:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[N0:%[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT:      [[N1:%[0-9]+]] = arith.constant 12 : index
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 0([[ZERO]], [[N0]]) tile 4 parts 2 part [[G0]] max 2 {
// CHECK-NEXT:      ^bb0(%{{[0-9]+}}: index, [[LS0:%[0-9]+]]: index, [[LZ0:%[0-9]+]]: index):
// CHECK-NEXT:        lowlevel.tile_for "lt" dim 1([[ZERO]], [[N1]]) tile 12 parts 1 part [[G1]] max 1 {
// CHECK-NEXT:        ^bb0(%{{[0-9]+}}: index, [[LS1:%[0-9]+]]: index, [[LZ1:%[0-9]+]]: index):
// CHECK-NEXT:          lowlevel.par_for "wi" [2, 3] {
// CHECK-NEXT:          ^bb0([[W0:%[0-9]+]]: index, [[W1:%[0-9]+]]: index):
// CHECK-NEXT:            lowlevel.tile_for "pt" dim 0([[LS0]], [[LZ0]]) tile 1 parts 2 part [[W0]] max 2 padded {
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[PS0:%[0-9]+]]: index, [[PZ0:%[0-9]+]]: index):
// CHECK-NEXT:              lowlevel.tile_for "pt" dim 1([[LS1]], [[LZ1]]) tile 2 parts 3 part [[W1]] max 2 {
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[PS1:%[0-9]+]]: index, [[PZ1:%[0-9]+]]: index):
// CHECK-NEXT:                lowlevel.tile_for "el" dim 0([[PS0]], [[PZ0]]) tile 1 parts 1 part [[ZERO]] max 1 {
// CHECK-NEXT:                ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                  lowlevel.tile_for "el" dim 1([[PS1]], [[PZ1]]) tile 1 parts 1 part [[ZERO]] max 2 {
// CHECK-NEXT:                  ^bb0(%{{[0-9]+}}: index, [[K:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                    [[A:%[0-9]+]] = lowlevel.view_load [[MB]]{{\[}}[[I]], [[K]]] [] affine_map<(d0, d1) -> (d0, d1)> boundary "none" : memref<10x12xf32> -> f32
// CHECK-NEXT:                    [[B:%[0-9]+]] = lowlevel.view_load [[VB]]{{\[}}[[I]], [[K]]] [] affine_map<(d0, d1) -> (d1)> boundary "none" : memref<12xf32> -> f32
// CHECK-NEXT:                    [[R:%[0-9]+]] = func.call @mul([[A]], [[B]]) : (f32, f32) -> f32
// CHECK-NEXT:                    lowlevel.accumulate [[R]] into [[WB]] at{{\[}}[[I]], [[K]]] combine ["cc", ["pw", @add]] view {{\[\[}}affine_map<(d0, d1) -> (d0)>]] : (f32) -> memref<10xf32>
// CHECK-NEXT:                  }
// CHECK-NEXT:                }
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    } {mdh.compute = {comp_name = "matvec", inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>], [affine_map<(d0, d1) -> (d1)>]],
// CHECK-SAME:    config = #mdh.config<num_wg = [2, 1], num_wi = [2, 3], lt_size = [4, 12], pt_size = [1, 2],
// CHECK-NEXT:    func.return %w : memref<10xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   mdh.compute "
func.func @matvec(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [2, 3], lt_size = [4, 12], pt_size = [1, 2]>}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// matmul 10 x 20 x 16: the pw dimension k is tiled like the others (2 work-groups of
// local tiles of 4, private tiles of 4 elements).
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    %C = memref.alloc() : memref<10x20xf32>
// CHECK-NEXT:    lowlevel.par_for "wg" [3, 2, 2](%A, %B, %C : memref<10x16xf32>, memref<16x20xf32>, memref<10x20xf32>) {
// CHECK-NEXT:    ^bb0([[G0:%[0-9]+]]: index, [[G1:%[0-9]+]]: index, [[G2:%[0-9]+]]: index, [[AB:%[0-9]+]]: memref<10x16xf32>, [[BB:%[0-9]+]]: memref<16x20xf32>, [[CB:%[0-9]+]]: memref<10x20xf32>):
// CHECK:           lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 3 part [[G0]] max 1 {
// CHECK:             lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 8 parts 2 part [[G1]] max 2 {
// CHECK:               lowlevel.tile_for "lt" dim 2(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 2 part [[G2]] max 2 {
// CHECK:                 lowlevel.par_for "wi" [2, 4, 1] {
// CHECK-NEXT:            ^bb0([[W0:%[0-9]+]]: index, [[W1:%[0-9]+]]: index, [[W2:%[0-9]+]]: index):
// CHECK-NEXT:              lowlevel.tile_for "pt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 2 parts 2 part [[W0]] max 1 padded {
// CHECK:                     lowlevel.tile_for "pt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 4 part [[W1]] max 2 padded {
// CHECK:                       lowlevel.tile_for "pt" dim 2(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 1 part [[W2]] max 1 {
// CHECK:                         lowlevel.tile_for "el" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:                    ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                      lowlevel.tile_for "el" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:                      ^bb0(%{{[0-9]+}}: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                        lowlevel.tile_for "el" dim 2(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 4 {
// CHECK-NEXT:                        ^bb0(%{{[0-9]+}}: index, [[K:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                          [[A:%[0-9]+]] = lowlevel.view_load [[AB]]{{\[}}[[I]], [[J]], [[K]]] [] affine_map<(d0, d1, d2) -> (d0, d2)> boundary "none" : memref<10x16xf32> -> f32
// CHECK-NEXT:                          [[B:%[0-9]+]] = lowlevel.view_load [[BB]]{{\[}}[[I]], [[J]], [[K]]] [] affine_map<(d0, d1, d2) -> (d2, d1)> boundary "none" : memref<16x20xf32> -> f32
// CHECK-NEXT:                          [[R:%[0-9]+]] = func.call @mul([[A]], [[B]]) : (f32, f32) -> f32
// CHECK-NEXT:                          lowlevel.accumulate [[R]] into [[CB]] at{{\[}}[[I]], [[J]], [[K]]] combine ["cc", "cc", ["pw", @add]] view {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1)>]] : (f32) -> memref<10x20xf32>
// CHECK:         func.return %C : memref<10x20xf32>
func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 2], num_wi = [2, 4, 1], lt_size = [4, 8, 4], pt_size = [2, 1, 4]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// jacobi1d: three view_loads of x, each with the boundary mode "mirror".
// CHECK-LABEL: func.func @jacobi1d(
// CHECK:         lowlevel.par_for "wg" [3](%x, %y : memref<37xf32>, memref<37xf32>) {
// CHECK-NEXT:    ^bb0([[G:%[0-9]+]]: index, [[XB:%[0-9]+]]: memref<37xf32>, [[YB:%[0-9]+]]: memref<37xf32>):
// CHECK:           lowlevel.tile_for "lt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 8 parts 3 part [[G]] max 2 {
// CHECK:             lowlevel.par_for "wi" [4] {
// CHECK-NEXT:        ^bb0([[W:%[0-9]+]]: index):
// CHECK-NEXT:          lowlevel.tile_for "pt" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 2 parts 4 part [[W]] max 1 padded {
// CHECK:                 lowlevel.tile_for "el" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              [[L:%[0-9]+]] = lowlevel.view_load [[XB]]{{\[}}[[I]]] [] affine_map<(d0) -> ((d0 + -1))> boundary "mirror" : memref<37xf32> -> f32
// CHECK-NEXT:              [[C:%[0-9]+]] = lowlevel.view_load [[XB]]{{\[}}[[I]]] [] affine_map<(d0) -> (d0)> boundary "mirror" : memref<37xf32> -> f32
// CHECK-NEXT:              [[R:%[0-9]+]] = lowlevel.view_load [[XB]]{{\[}}[[I]]] [] affine_map<(d0) -> ((d0 + 1))> boundary "mirror" : memref<37xf32> -> f32
// CHECK-NEXT:              [[S:%[0-9]+]] = func.call @avg3([[L]], [[C]], [[R]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:              lowlevel.accumulate [[S]] into [[YB]] at{{\[}}[[I]]] combine ["cc"] view {{\[\[}}affine_map<(d0) -> (d0)>]] : (f32) -> memref<37xf32>
// CHECK:         } {mdh.compute = {comp_name = "jacobi1d", {{.*}} boundary = ["mirror"],
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["mirror"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [8], pt_size = [2]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// histogram: the scalar function takes the point's indices after the loaded values.
// CHECK-LABEL: func.func @histogram(
// CHECK:                 lowlevel.tile_for "el" dim 0(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 100 {
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[E:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              lowlevel.tile_for "el" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 1 parts 1 part %{{[0-9]+}} max 1 {
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[B:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                [[X:%[0-9]+]] = lowlevel.view_load %{{[0-9]+}}{{\[}}[[E]], [[B]]] [] affine_map<(d0, d1) -> (d0)> boundary "none" : memref<100xi32> -> i32
// CHECK-NEXT:                [[N:%[0-9]+]] = func.call @count([[X]], [[E]], [[B]]) : (i32, index, index) -> i32
// CHECK-NEXT:                lowlevel.accumulate [[N]] into %{{[0-9]+}} at{{\[}}[[E]], [[B]]] combine {{\[\[}}"pw", @addi], "cc"] view {{\[\[}}affine_map<(d0, d1) -> (d1)>]] : (i32) -> memref<16xi32>
func.func @histogram(%x: memref<100xi32>) -> memref<16xi32> {
  %count = mdh.compute "histogram"
    {inp_view = [[affine_map<(e, b) -> (e)>]],
     md_hom = {scalar_func = @count, combine_ops = [["pw", @addi], "cc"]},
     out_view = [[affine_map<(e, b) -> (b)>]]}
    {inp_types = [i32], mda_size = [100, 16], out_types = [i32],
     config = #mdh.config<num_wg = [1, 4], num_wi = [1, 4], lt_size = [100, 4], pt_size = [100, 1]>}
    (%x) : (memref<100xi32>) -> memref<16xi32>
  func.return %count : memref<16xi32>
}
