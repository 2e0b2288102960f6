// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand | filecheck %s --check-prefix=GONE
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand | mdh-opt -p dce | filecheck %s --check-prefix=DCE

// lowlevel-expand rewrites tile_for, view_load, copy and fill into scf/arith/memref:
// - a tile_for becomes an scf.for over its steps (none when a part has exactly one
//   step); the trip count is a constant when the number of tiles is a known multiple of
//   the parts, else (ceil(size / tile) - part + parts - 1) / parts; the tile size is
//   min(tile, size - offset) unless it divides a constant size; a padded tile_for always
//   runs its max steps of whole tiles (matvec's rows: 5 a local tile, over 3 work-items:
//   2 steps);
// - a view_load becomes its index arithmetic, the boundary mode's fix-up (clamp: maxsi 0,
//   minsi n-1; zero: the clamped read selected against 0.0 outside [0, n); wrap:
//   ((j rem n) + n) rem n; mirror: r = ((j rem 2(n-1)) + 2(n-1)) rem 2(n-1), then
//   r < n ? r : 2(n-1) - r) and a memref.load;
// - a copy becomes a loop over the box's elements from the worker id, strided by the
//   number of workers (delinearized to box coordinates), reading with the boundary mode,
//   or, with mode "none", clamped into the source (only discarded points read outside
//   it), along the axes where the box may leave it; with at most 4 turns per worker,
//   an unrolled loop over the turns instead (opencl/matvec.mlir);
// - a fill becomes loops of stores.
// The pass leaves dead constants behind (lower-to-opencl runs dce and cse); the DCE
// checks look at the same output without them.

// GONE-LABEL: builtin.module
// GONE-NOT:   lowlevel.{{tile_for|view_load|copy|fill|accumulate|par_for}}

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
// matvec (9 x 12: the second row tile has 4 rows, so M's boxes do not all lie inside
// it): M's 5 x 12 local box is copied by 3 work-items (60 elements, step 3), inside
// the matrix only; the 2 x 1 private accumulator is filled by a loop; the "pt" loop of
// dim 0 (up to 5 rows over 3 work-items) has (rows - wi + 2) / 3 steps; the "lt" loops,
// one step each, become no loop (the tile start is g * 5).
// CHECK-LABEL: lowlevel.kernel @matvec_0(
// CHECK-SAME:    [[M:%[0-9]+]]: memref<9x12xf32>, [[V:%[0-9]+]]: memref<12xf32>, [[W:%[0-9]+]]: memref<9xf32>)
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<2x1xf32, "prv">
// CHECK-NEXT:    [[ML:%[0-9]+]] = memref.alloca() : memref<5x12xf32, "lcl">
// CHECK:         [[G:%[0-9]+]] = lowlevel.group_id 0
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         [[C5:%[0-9]+]] = arith.constant 5 : index
// CHECK-NEXT:    [[I0:%[0-9]+]] = arith.muli [[G]], [[C5]] : index
// CHECK:         [[ID:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    [[LB:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[UB:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[ST:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for [[A:%[0-9]+]] = [[LB]] to [[UB]] step [[ST]] {
// CHECK-NEXT:      [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      memref.store [[ID]], [[ACC]]{{\[}}[[A]], [[Z]]] : memref<2x1xf32, "prv">
// CHECK-NEXT:    }
// The local copy has lanes = 4: 15 vectors of 4 elements (3 per row of the 5 x 12 box),
// worker WI of 3. The box lies inside M along its columns (`inside_axes`), and its
// rows past M's 9 are read only by discarded points: every vector moves as one, its
// row clamped into [0, 8], its columns unchecked (no compare, no select).
// CHECK:         [[N:%[0-9]+]] = arith.constant 15 : index
// CHECK-NEXT:    [[S:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    scf.for [[F:%[0-9]+]] = [[WI]] to [[N]] step [[S]] {
// CHECK-NEXT:      [[C3A:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[R:%[0-9]+]] = arith.divui [[F]], [[C3A]] : index
// CHECK-NEXT:      [[C3B:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:      [[Q:%[0-9]+]] = arith.remui [[F]], [[C3B]] : index
// CHECK-NEXT:      [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[C:%[0-9]+]] = arith.muli [[Q]], [[C4]] : index
// CHECK-NEXT:      [[GR:%[0-9]+]] = arith.addi [[I0]], [[R]] : index
// CHECK-NEXT:      [[GC:%[0-9]+]] = arith.addi %{{[0-9]+}}, [[C]] : index
// CHECK-NEXT:      [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[LO:%[0-9]+]] = arith.maxsi [[GR]], [[C0]] : index
// CHECK-NEXT:      [[C8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT:      [[ROW:%[0-9]+]] = arith.minsi [[LO]], [[C8]] : index
// CHECK-NEXT:      [[VEC:%[0-9]+]] = vector.load [[M]]{{\[}}[[ROW]], [[GC]]] : memref<9x12xf32>, vector<4xf32>
// CHECK-NEXT:      vector.store [[VEC]], [[ML]]{{\[}}[[R]], [[C]]] : memref<5x12xf32, "lcl">, vector<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:    [[TRIPS:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[LB2:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[ST2:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for [[P:%[0-9]+]] = [[LB2]] to [[TRIPS]] step [[ST2]] {
// CHECK:           scf.for [[K:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK:             memref.load [[ML]]
// CHECK-NEXT:        %{{[0-9]+}} = memref.load [[V]]{{\[}}[[K]]] : memref<12xf32>
// CHECK:         lowlevel.barrier
func.func @matvec(%M: memref<9x12xf32>, %v: memref<12xf32>) -> memref<9xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [9, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [3, 1], lt_size = [5, 12], pt_size = [1, 12],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]], ocl_dim = [[0, 1], [0, 1]]>}
    (%M, %v) : (memref<9x12xf32>, memref<12xf32>) -> memref<9xf32>
  func.return %w : memref<9xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_0(
// CHECK:         memref.store %{{[0-9]+}}, %{{[0-9]+}}{{\[}}%{{[0-9]+}}, %{{[0-9]+}}] : memref<16x4xf32, "lcl">

func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 2, 1], num_wi = [2, 4, 1], lt_size = [4, 8, 16], pt_size = [2, 2, 16],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]], buf_layout = [[[1, 0], [0, 1]], [[0, 1], [0, 1]]],
                          ocl_dim = [[1, 0, 2], [1, 0, 2]]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// jacobi_clamp: one work-item walks the 37 points: x[i - 1] and x[i + 1] are clamped
// into [0, 36].
// CHECK-LABEL: lowlevel.kernel @jacobi_clamp_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, [[Y:%[0-9]+]]: memref<37xf32>)
// CHECK:         scf.for [[I:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:      [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.addi [[I]], [[M1]] : index
// CHECK-NEXT:      [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[LO:%[0-9]+]] = arith.maxsi [[J]], [[C0]] : index
// CHECK-NEXT:      [[C36:%[0-9]+]] = arith.constant 36 : index
// CHECK-NEXT:      [[K:%[0-9]+]] = arith.minsi [[LO]], [[C36]] : index
// CHECK-NEXT:      [[A:%[0-9]+]] = memref.load [[X]]{{\[}}[[K]]] : memref<37xf32>
// CHECK-NEXT:      [[P1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[J2:%[0-9]+]] = arith.addi [[I]], [[P1]] : index
// CHECK-NEXT:      [[C0B:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[LO2:%[0-9]+]] = arith.maxsi [[J2]], [[C0B]] : index
// CHECK-NEXT:      [[C36B:%[0-9]+]] = arith.constant 36 : index
// CHECK-NEXT:      [[K2:%[0-9]+]] = arith.minsi [[LO2]], [[C36B]] : index
// CHECK-NEXT:      [[B:%[0-9]+]] = memref.load [[X]]{{\[}}[[K2]]] : memref<37xf32>
// CHECK-NEXT:      [[S:%[0-9]+]] = func.call @add([[A]], [[B]]) : (f32, f32) -> f32
// CHECK-NEXT:      memref.store [[S]], [[Y]]{{\[}}[[I]]] : memref<37xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @jacobi_clamp(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi_clamp"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [37], pt_size = [37]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// jacobi_zero: the clamped read, replaced by 0.0 outside [0, 37).
// CHECK-LABEL: lowlevel.kernel @jacobi_zero_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, %{{[0-9]+}}: memref<37xf32>)
// CHECK:         scf.for [[I:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:      [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.addi [[I]], [[M1]] : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:      [[LO:%[0-9]+]] = arith.maxsi [[J]], %{{[0-9]+}} : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 36 : index
// CHECK-NEXT:      [[K:%[0-9]+]] = arith.minsi [[LO]], %{{[0-9]+}} : index
// CHECK-NEXT:      [[A:%[0-9]+]] = memref.load [[X]]{{\[}}[[K]]] : memref<37xf32>
// CHECK-NEXT:      [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[GE:%[0-9]+]] = arith.cmpi sge, [[J]], [[C0]] : index
// CHECK-NEXT:      [[C37:%[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      [[LT:%[0-9]+]] = arith.cmpi slt, [[J]], [[C37]] : index
// CHECK-NEXT:      [[IN:%[0-9]+]] = arith.andi [[GE]], [[LT]] : i1
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:      [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      [[VA:%[0-9]+]] = arith.select [[IN]], [[A]], [[ZERO]] : f32
// CHECK:           [[VB:%[0-9]+]] = arith.select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : f32
// CHECK-NEXT:      %{{[0-9]+}} = func.call @add([[VA]], [[VB]]) : (f32, f32) -> f32
func.func @jacobi_zero(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi_zero"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["zero"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [37], pt_size = [37]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// jacobi_wrap: ((j rem 37) + 37) rem 37.
// CHECK-LABEL: lowlevel.kernel @jacobi_wrap_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, %{{[0-9]+}}: memref<37xf32>)
// CHECK:         scf.for [[I:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:      [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.addi [[I]], [[M1]] : index
// CHECK-NEXT:      [[N1:%[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      [[R1:%[0-9]+]] = arith.remsi [[J]], [[N1]] : index
// CHECK-NEXT:      [[N2:%[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      [[R2:%[0-9]+]] = arith.addi [[R1]], [[N2]] : index
// CHECK-NEXT:      [[N3:%[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      [[K:%[0-9]+]] = arith.remsi [[R2]], [[N3]] : index
// CHECK-NEXT:      %{{[0-9]+}} = memref.load [[X]]{{\[}}[[K]]] : memref<37xf32>
func.func @jacobi_wrap(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi_wrap"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["wrap"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [37], pt_size = [37]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// jacobi_mirror: period 2 * (37 - 1) = 72, reflected at 37.
// CHECK-LABEL: lowlevel.kernel @jacobi_mirror_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, %{{[0-9]+}}: memref<37xf32>)
// CHECK:         scf.for [[I:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:      [[M1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.addi [[I]], [[M1]] : index
// CHECK-NEXT:      [[P1:%[0-9]+]] = arith.constant 72 : index
// CHECK-NEXT:      [[R1:%[0-9]+]] = arith.remsi [[J]], [[P1]] : index
// CHECK-NEXT:      [[P2:%[0-9]+]] = arith.constant 72 : index
// CHECK-NEXT:      [[R2:%[0-9]+]] = arith.addi [[R1]], [[P2]] : index
// CHECK-NEXT:      [[P3:%[0-9]+]] = arith.constant 72 : index
// CHECK-NEXT:      [[R:%[0-9]+]] = arith.remsi [[R2]], [[P3]] : index
// CHECK-NEXT:      [[N:%[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      [[LOW:%[0-9]+]] = arith.cmpi slt, [[R]], [[N]] : index
// CHECK-NEXT:      [[P4:%[0-9]+]] = arith.constant 72 : index
// CHECK-NEXT:      [[REF:%[0-9]+]] = arith.subi [[P4]], [[R]] : index
// CHECK-NEXT:      [[K:%[0-9]+]] = arith.select [[LOW]], [[R]], [[REF]] : index
// CHECK-NEXT:      %{{[0-9]+}} = memref.load [[X]]{{\[}}[[K]]] : memref<37xf32>
func.func @jacobi_mirror(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi_mirror"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["mirror"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [37], pt_size = [37]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// jacobi_lcl (both layers on OpenCL dimension 0): 3 local tiles of 16 for 3
// work-groups: no lt loop, the tile size is min(16, 37 - 16 g); the 18-element box from
// 16 g - 1 is copied by 4 work-items with clamped reads (no scf.if); the "pt" loop is
// padded: one step (a whole private tile of 4 for each of the 4 work-items), the "el"
// loop 4 steps, and a point stores its value only inside the tile (16 g + size).
// CHECK-LABEL: lowlevel.kernel @jacobi_lcl_0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<37xf32>, [[Y:%[0-9]+]]: memref<37xf32>)
// CHECK-NEXT:    [[XL:%[0-9]+]] = memref.alloca() : memref<18xf32, "lcl">
// CHECK:         [[G:%[0-9]+]] = lowlevel.group_id 0
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT:    [[OFF:%[0-9]+]] = arith.muli [[G]], [[C16]] : index
// CHECK-NEXT:    [[REST:%[0-9]+]] = arith.subi %{{[0-9]+}}, [[OFF]] : index
// CHECK-NEXT:    [[C16B:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT:    [[SIZE:%[0-9]+]] = arith.minsi [[C16B]], [[REST]] : index
// CHECK-NEXT:    [[CM1:%[0-9]+]] = arith.constant -1 : index
// CHECK-NEXT:    [[ORG:%[0-9]+]] = arith.addi [[OFF]], [[CM1]] : index
// CHECK-NEXT:    [[C18:%[0-9]+]] = arith.constant 18 : index
// CHECK-NEXT:    [[C4:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    scf.for [[F:%[0-9]+]] = [[WI]] to [[C18]] step [[C4]] {
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.addi [[ORG]], [[F]] : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:      [[LO:%[0-9]+]] = arith.maxsi [[J]], %{{[0-9]+}} : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 36 : index
// CHECK-NEXT:      [[K:%[0-9]+]] = arith.minsi [[LO]], %{{[0-9]+}} : index
// CHECK-NEXT:      [[E:%[0-9]+]] = memref.load [[X]]{{\[}}[[K]]] : memref<37xf32>
// CHECK-NEXT:      memref.store [[E]], [[XL]]{{\[}}[[F]]] : memref<18xf32, "lcl">
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK:         [[C4D:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:    [[PO:%[0-9]+]] = arith.muli [[WI]], [[C4D]] : index
// CHECK-NEXT:    [[PS:%[0-9]+]] = arith.addi [[OFF]], [[PO]] : index
// CHECK:         scf.for [[E2:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK-NEXT:      [[I:%[0-9]+]] = arith.addi [[PS]], [[E2]] : index
// CHECK:           [[A:%[0-9]+]] = memref.load [[XL]]{{\[}}%{{[0-9]+}}] : memref<18xf32, "lcl">
// CHECK:           [[B:%[0-9]+]] = memref.load [[XL]]{{\[}}%{{[0-9]+}}] : memref<18xf32, "lcl">
// CHECK-NEXT:      [[S:%[0-9]+]] = func.call @add([[A]], [[B]]) : (f32, f32) -> f32
// CHECK-NEXT:      [[END:%[0-9]+]] = arith.addi [[OFF]], [[SIZE]] : index
// CHECK-NEXT:      [[IN:%[0-9]+]] = arith.cmpi slt, [[I]], [[END]] : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:      scf.if [[IN]] {
// CHECK-NEXT:        memref.store [[S]], [[Y]]{{\[}}[[I]]] : memref<37xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:  }

// Without dead constants: matvec's padded "pt" loop takes 2 steps whatever the rows of
// the tile (min(5, 9 - 5 g)).
// DCE-LABEL: lowlevel.kernel @matvec_0(
// DCE:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// DCE:         lowlevel.barrier
// DCE-NEXT:    [[TRIPS:%[0-9]+]] = arith.constant 2 : index
// DCE-NEXT:    [[LB:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:    [[ST:%[0-9]+]] = arith.constant 1 : index
// DCE-NEXT:    scf.for %{{[0-9]+}} = [[LB]] to [[TRIPS]] step [[ST]] {
// matmul 10 x 20 x 16 (checked without dead constants): the i tiles (3 of 4 rows for 3
// work-groups) need no loop, their size is min(4, 10 - 4 g1); the j tiles (3 of 8 for 2
// work-groups) take (3 - g0 + 1) / 2 steps and min(8, 20 - 8 chunk) columns; the 2 x 2
// accumulator is filled by two nested loops; A's local box (4 x 16, stored transposed as
// 16 x 4) is copied by the 8 work-items (worker 4 * wi_i + wi_j) into [col, row], its
// rows clamped into A (the 2 rows past A's 10 are read only by discarded points) and
// its columns unchecked (the box lies inside A along them); B's reads are limited to its last column (19); the private loops of i and
// j are padded, so no tile size after the copy is a minimum.
// DCE-LABEL: lowlevel.kernel @matmul_0(
// DCE-SAME:    [[A:%[0-9]+]]: memref<10x16xf32>, %{{[0-9]+}}: memref<16x20xf32>, %{{[0-9]+}}: memref<10x20xf32>)
// DCE-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x1x2x2xf32, "prv">
// DCE-NEXT:    [[AL:%[0-9]+]] = memref.alloca() : memref<16x4xf32, "lcl">
// DCE-NEXT:    [[GJ:%[0-9]+]] = lowlevel.group_id 0
// DCE-NEXT:    [[GI:%[0-9]+]] = lowlevel.group_id 1
// DCE-NEXT:    [[WJ:%[0-9]+]] = lowlevel.local_id 0
// DCE-NEXT:    [[WI:%[0-9]+]] = lowlevel.local_id 1
// DCE-NEXT:    [[N10:%[0-9]+]] = arith.constant 10 : index
// DCE-NEXT:    [[N20:%[0-9]+]] = arith.constant 20 : index
// DCE-NEXT:    [[C4:%[0-9]+]] = arith.constant 4 : index
// DCE-NEXT:    [[I0:%[0-9]+]] = arith.muli [[GI]], [[C4]] : index
// DCE-NEXT:    [[IR:%[0-9]+]] = arith.subi [[N10]], [[I0]] : index
// DCE-NEXT:    [[C4B:%[0-9]+]] = arith.constant 4 : index
// DCE-NEXT:    [[ISIZE:%[0-9]+]] = arith.minsi [[C4B]], [[IR]] : index
// DCE-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// DCE-NEXT:    [[J1:%[0-9]+]] = arith.subi [[C3]], [[GJ]] : index
// DCE-NEXT:    [[C1:%[0-9]+]] = arith.constant 1 : index
// DCE-NEXT:    [[J2:%[0-9]+]] = arith.addi [[J1]], [[C1]] : index
// DCE-NEXT:    [[C2:%[0-9]+]] = arith.constant 2 : index
// DCE-NEXT:    [[JTRIPS:%[0-9]+]] = arith.divui [[J2]], [[C2]] : index
// DCE-NEXT:    [[LB:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:    [[ST:%[0-9]+]] = arith.constant 1 : index
// DCE-NEXT:    scf.for [[JS:%[0-9]+]] = [[LB]] to [[JTRIPS]] step [[ST]] {
// DCE-NEXT:      [[C2B:%[0-9]+]] = arith.constant 2 : index
// DCE-NEXT:      [[Q:%[0-9]+]] = arith.muli [[JS]], [[C2B]] : index
// DCE-NEXT:      [[CHUNK:%[0-9]+]] = arith.addi [[Q]], [[GJ]] : index
// DCE-NEXT:      [[C8:%[0-9]+]] = arith.constant 8 : index
// DCE-NEXT:      [[J0:%[0-9]+]] = arith.muli [[CHUNK]], [[C8]] : index
// DCE-NEXT:      [[JR:%[0-9]+]] = arith.subi [[N20]], [[J0]] : index
// DCE-NEXT:      [[C8B:%[0-9]+]] = arith.constant 8 : index
// DCE-NEXT:      %{{[0-9]+}} = arith.minsi [[C8B]], [[JR]] : index
// DCE-NEXT:      [[ID:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// DCE-NEXT:      [[Z0:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:      [[Z1:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:      %{{[0-9]+}} = arith.constant 0 : index
// DCE-NEXT:      %{{[0-9]+}} = arith.constant 2 : index
// DCE-NEXT:      %{{[0-9]+}} = arith.constant 1 : index
// DCE-NEXT:      scf.for [[F0:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// DCE-NEXT:        %{{[0-9]+}} = arith.constant 0 : index
// DCE-NEXT:        %{{[0-9]+}} = arith.constant 2 : index
// DCE-NEXT:        %{{[0-9]+}} = arith.constant 1 : index
// DCE-NEXT:        scf.for [[F1:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// DCE-NEXT:          memref.store [[ID]], [[ACC]]{{\[}}[[Z0]], [[Z1]], [[F0]], [[F1]]] : memref<1x1x2x2xf32, "prv">
// DCE-NEXT:        }
// DCE-NEXT:      }
// DCE-NEXT:      [[K0:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:      %{{[0-9]+}} = arith.constant 19 : index
// DCE-NEXT:      [[C4C:%[0-9]+]] = arith.constant 4 : index
// DCE-NEXT:      [[W1:%[0-9]+]] = arith.muli [[C4C]], [[WI]] : index
// DCE-NEXT:      [[WORKER:%[0-9]+]] = arith.addi [[W1]], [[WJ]] : index
// DCE-NEXT:      [[N64:%[0-9]+]] = arith.constant 64 : index
// DCE-NEXT:      [[C8C:%[0-9]+]] = arith.constant 8 : index
// DCE-NEXT:      scf.for [[F:%[0-9]+]] = [[WORKER]] to [[N64]] step [[C8C]] {
// DCE-NEXT:        %{{[0-9]+}} = arith.constant 16 : index
// DCE-NEXT:        [[ROW:%[0-9]+]] = arith.divui [[F]], %{{[0-9]+}} : index
// DCE-NEXT:        %{{[0-9]+}} = arith.constant 16 : index
// DCE-NEXT:        [[COL:%[0-9]+]] = arith.remui [[F]], %{{[0-9]+}} : index
// DCE-NEXT:        [[GR:%[0-9]+]] = arith.addi [[I0]], [[ROW]] : index
// DCE-NEXT:        [[GC:%[0-9]+]] = arith.addi [[K0]], [[COL]] : index
// DCE-NEXT:        [[Z:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:        [[LO:%[0-9]+]] = arith.maxsi [[GR]], [[Z]] : index
// DCE-NEXT:        [[C9:%[0-9]+]] = arith.constant 9 : index
// DCE-NEXT:        [[R:%[0-9]+]] = arith.minsi [[LO]], [[C9]] : index
// DCE-NEXT:        [[E:%[0-9]+]] = memref.load [[A]]{{\[}}[[R]], [[GC]]] : memref<10x16xf32>
// DCE-NEXT:        memref.store [[E]], [[AL]]{{\[}}[[COL]], [[ROW]]] : memref<16x4xf32, "lcl">
// DCE-NEXT:      }
// DCE-NEXT:      lowlevel.barrier
// DCE-NOT:       arith.minsi
// DCE:           scf.for %{{[0-9]+}} = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// The 37 steps of jacobi_clamp's element loop are a constant.
// DCE-LABEL: lowlevel.kernel @jacobi_clamp_0(
// DCE-NEXT:    [[UB:%[0-9]+]] = arith.constant 37 : index
// DCE-NEXT:    [[LB:%[0-9]+]] = arith.constant 0 : index
// DCE-NEXT:    [[ST:%[0-9]+]] = arith.constant 1 : index
// DCE-NEXT:    scf.for %{{[0-9]+}} = [[LB]] to [[UB]] step [[ST]] {
// DCE-LABEL: lowlevel.kernel @jacobi_lcl_0(
// DCE-NEXT:    memref.alloca() : memref<18xf32, "lcl">
// DCE-NEXT:    [[G:%[0-9]+]] = lowlevel.group_id 0
// DCE-NEXT:    [[WI:%[0-9]+]] = lowlevel.local_id 0
// DCE-NEXT:    [[N:%[0-9]+]] = arith.constant 37 : index
// DCE-NEXT:    [[C16:%[0-9]+]] = arith.constant 16 : index
// DCE-NEXT:    [[OFF:%[0-9]+]] = arith.muli [[G]], [[C16]] : index
// DCE-NEXT:    %{{[0-9]+}} = arith.subi [[N]], [[OFF]] : index
func.func @jacobi_lcl(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi_lcl"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [16], pt_size = [4], inp_mem = [["lcl"], ["glb"]],
                          ocl_dim = [[0], [0]]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
