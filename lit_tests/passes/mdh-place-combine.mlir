// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory' | mdh-opt -p mdh-place-combine | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | filecheck %s

// mdh-place-combine replaces each lowlevel.accumulate by explicit re-composition:
// - cc only (jacobi1d, prefix_sum): a memref.store of the point's value, under
//   `point < local tile end` where the private-tile loop is padded (jacobi1d: 37
//   points in local tiles of 16);
// - pw dimensions, res_mem "prv": a private accumulator with one axis per kept loop of the
//   scope, filled with the identity of a recognized combine function (@add: 0.0) before
//   the scope; each point does acc = g(acc, value); after the scope the kept loops are
//   re-run to flush acc to the output (matvec_acc: only rows inside the local tile, the
//   row loop being padded);
// - a combine function that is not one builtin op (@addneg) starts from the first value:
//   acc = first ? value : g(acc, value), with private "has a value" flags (matmul_first);
// - a pw dimension with several work-items: partial results are published to a local
//   scratch [pw work-item, kept work-item, acc...], then combined in a tree (stride 2, 1,
//   ... with barriers); work-item 0 of the pw dimension writes the output (matvec_tree,
//   matmul_first, which also carries the flags through the tree);
// - a pw dimension split across work-groups: a temporary [work-group, output element]
//   as an extra kernel argument and buffer, and a second kernel <name>_combine launched
//   after the first (matvec_wg); with wg_combine "last", instead of the second kernel, the
//   end of the kernel: a barrier on global memory, work-item 0 increments a counter
//   (zeroed by the host) between two fences, and the work-group that counts last combines
//   the temporary into the outputs, its work-items taking the elements in turn, each
//   reading several elements' partial results before it stores the first (matvec_last); more than 256 partial results of an output are combined in a loop
//   unrolled 16 times, accumulating in private memory (dot_many); where the last
//   work-group has at least twice as many work-items as outputs, lanes of them share
//   each output and meet in a tree in local memory (dot_lanes);
// - combine_layer "lt": a flush per local tile, combined with the earlier flushes
//   unless the pw "lt" loop is in its first step (matvec_lt);
// - res_mem "glb": combined straight into the output (matmul_glb);
// - a ps dimension: a parallel scan of the outputs by three kernels <name>_scan<d>_reduce
//   (chunk totals into a temporary), _carries (their scan) and <name>_scan<d> (each
//   chunk's scan after its carry), see mdh_ir/passes/scan.py; where nothing else
//   combines the points, the scan kernels compute them and replace the kernel (prefix_sum).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @addneg(%a: f32, %b: f32) -> f32 {
  %n = arith.negf %b : f32
  %r = arith.subf %a, %n : f32
  func.return %r : f32
}
func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s0 = arith.addf %l, %c : f32
  %s1 = arith.addf %s0, %r : f32
  func.return %s1 : f32
}
func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}
// CHECK-LABEL: lowlevel.kernel @jacobi1d_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<37xf32>, [[Y:%[0-9]+]]: memref<37xf32>)
// CHECK-NOT:     memref.alloca
// CHECK:         lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK:           [[S:%[0-9]+]] = func.call @avg3(
// CHECK:           [[IN:%[0-9]+]] = arith.cmpi slt, [[I]], %{{[0-9]+}} : index
// CHECK:           scf.if [[IN]] {
// CHECK-NEXT:        memref.store [[S]], [[Y]]{{\[}}[[I]]] : memref<37xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @jacobi1d(
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["wrap"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [16], pt_size = [2]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
// CHECK-LABEL: lowlevel.kernel @matvec_acc_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x12xf32>, %{{[0-9]+}}: memref<12xf32>, [[W:%[0-9]+]]: memref<10xf32>)
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x2xf32, "prv">
// CHECK:         lowlevel.tile_for "lt" dim 0(
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[LS0:%[0-9]+]]: index, [[LZ0:%[0-9]+]]: index):
// CHECK-NEXT:      [[ID:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      lowlevel.fill [[ACC]] with [[ID]] : memref<1x2xf32, "prv">, f32
// CHECK-NEXT:      lowlevel.tile_for "lt" dim 1(
// CHECK-NEXT:      ^bb0(
// CHECK-NEXT:        %{{[0-9]+}} = arith.constant 9 : index
// CHECK-NEXT:        lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:        ^bb0([[PT0:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          lowlevel.tile_for "pt" dim 1(
// CHECK-NEXT:          ^bb0(
// CHECK-NEXT:            lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:            ^bb0([[EL0:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK:                     [[M:%[0-9]+]] = lowlevel.view_load
// CHECK-NEXT:                [[V:%[0-9]+]] = lowlevel.view_load
// CHECK-NEXT:                [[OLD:%[0-9]+]] = memref.load [[ACC]]{{\[}}[[PT0]], [[EL0]]] : memref<1x2xf32, "prv">
// CHECK-NEXT:                [[NEW:%[0-9]+]] = math.fma [[M]], [[V]], [[OLD]] : f32
// CHECK-NEXT:                memref.store [[NEW]], [[ACC]]{{\[}}[[PT0]], [[EL0]]] : memref<1x2xf32, "prv">
// CHECK-NEXT:              }
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:      lowlevel.tile_for "pt" dim 0([[LS0]], [[LZ0]]) tile 2 parts 2 part %{{[0-9]+}} max 1 padded {
// CHECK-NEXT:      ^bb0([[FPT:%[0-9]+]]: index, [[FPS:%[0-9]+]]: index, [[FPZ:%[0-9]+]]: index):
// CHECK-NEXT:        lowlevel.tile_for "el" dim 0([[FPS]], [[FPZ]]) tile 1 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:        ^bb0([[FEL:%[0-9]+]]: index, [[FI:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[END:%[0-9]+]] = arith.addi [[LS0]], [[LZ0]] : index
// CHECK-NEXT:          [[IN:%[0-9]+]] = arith.cmpi slt, [[FI]], [[END]] : index
// CHECK-NEXT:          %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:          scf.if [[IN]] {
// CHECK-NEXT:            [[R:%[0-9]+]] = memref.load [[ACC]]{{\[}}[[FPT]], [[FEL]]] : memref<1x2xf32, "prv">
// CHECK-NEXT:            memref.store [[R]], [[W]]{{\[}}[[FI]]] : memref<10xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matvec_acc(
func.func @matvec_acc(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_acc"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [2, 1], lt_size = [4, 12], pt_size = [2, 4]>}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// CHECK-LABEL: lowlevel.kernel @matvec_tree_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x12xf32>, %{{[0-9]+}}: memref<12xf32>, [[W:%[0-9]+]]: memref<10xf32>)
// CHECK-NEXT:    [[SCR:%[0-9]+]] = memref.alloca() : memref<3x1x1x1xf32, "lcl">
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x1xf32, "prv">
// CHECK:         [[WK:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         lowlevel.fill [[ACC]] with
// CHECK:         math.fma
// CHECK:         lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:    ^bb0([[PT0:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:      ^bb0([[EL0:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        [[A:%[0-9]+]] = memref.load [[ACC]]{{\[}}[[PT0]], [[EL0]]] : memref<1x1xf32, "prv">
// CHECK-NEXT:        memref.store [[A]], [[SCR]]{{\[}}[[WK]], [[KL:%[0-9]+]], [[PT0]], [[EL0]]] : memref<3x1x1x1xf32, "lcl">
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:    [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[P2:%[0-9]+]] = arith.addi [[WK]], [[C2]] : index
// CHECK-NEXT:    [[C2B:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[LO:%[0-9]+]] = arith.cmpi slt, [[WK]], [[C2B]] : index
// CHECK-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[IN:%[0-9]+]] = arith.cmpi slt, [[P2]], [[C3]] : index
// CHECK-NEXT:    [[ACT:%[0-9]+]] = arith.andi [[LO]], [[IN]] : i1
// CHECK-NEXT:    scf.if [[ACT]] {
// CHECK:             [[THEIRS:%[0-9]+]] = memref.load [[SCR]]{{\[}}[[P2]], [[KL]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x1x1x1xf32, "lcl">
// CHECK-NEXT:        [[MINE:%[0-9]+]] = memref.load [[SCR]]{{\[}}[[WK]], [[KL]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x1x1x1xf32, "lcl">
// CHECK-NEXT:        [[SUM:%[0-9]+]] = func.call @add([[MINE]], [[THEIRS]]) : (f32, f32) -> f32
// CHECK-NEXT:        memref.store [[SUM]], [[SCR]]{{\[}}[[WK]], [[KL]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x1x1x1xf32, "lcl">
// CHECK:         lowlevel.barrier
// CHECK-NEXT:    [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[P1:%[0-9]+]] = arith.addi [[WK]], [[C1]] : index
// CHECK:         scf.if
// CHECK:             memref.load [[SCR]]{{\[}}[[P1]], [[KL]], %{{[0-9]+}}, %{{[0-9]+}}]
// CHECK:         lowlevel.barrier
// CHECK-NEXT:    [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[FIRST:%[0-9]+]] = arith.cmpi eq, [[WK]], [[C0]] : index
// CHECK-NEXT:    %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:    scf.if [[FIRST]] {
// CHECK:             [[R:%[0-9]+]] = memref.load [[SCR]]{{\[}}%{{[0-9]+}}, [[KL]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x1x1x1xf32, "lcl">
// CHECK-NEXT:        memref.store [[R]], [[W]]{{\[}}%{{[0-9]+}}] : memref<10xf32>
// CHECK-NOT:     lowlevel.barrier
// CHECK-LABEL: func.func @matvec_tree(
func.func @matvec_tree(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_tree"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [10, 1], num_wi = [1, 3], lt_size = [1, 12], pt_size = [1, 2],
                          ocl_dim = [[0, 2], [2, 0]]>}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// matvec_wg: k split over 3 work-groups (OpenCL dimension 0, i on 1); work-group g_k
// flushes its partial sums to row g_k of the 3 x 10 temporary, which matvec_wg_0_combine
// folds into w, one work-item per output element.
// CHECK-LABEL: lowlevel.kernel @matvec_wg_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x12xf32>, %{{[0-9]+}}: memref<12xf32>, %{{[0-9]+}}: memref<10xf32>, [[T:%[0-9]+]]: memref<3x10xf32>)
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x5xf32, "prv">
// CHECK:         [[GK:%[0-9]+]] = lowlevel.group_id 0
// CHECK:         lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 3 part [[GK]] max 1 {
// CHECK:         math.fma
// CHECK:             lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:        ^bb0([[FEL:%[0-9]+]]: index, [[FI:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[R:%[0-9]+]] = memref.load [[ACC]]{{\[}}%{{[0-9]+}}, [[FEL]]] : memref<1x5xf32, "prv">
// CHECK-NEXT:          memref.store [[R]], [[T]]{{\[}}[[GK]], [[FI]]] : memref<3x10xf32>
// CHECK-LABEL: lowlevel.kernel @matvec_wg_0_combine(
// CHECK-SAME:    [[T:%[0-9]+]]: memref<3x10xf32>, [[W:%[0-9]+]]: memref<10xf32>)
// CHECK-NEXT:    [[G:%[0-9]+]] = lowlevel.group_id 0
// CHECK-NEXT:    [[C64:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT:    [[BASE:%[0-9]+]] = arith.muli [[G]], [[C64]] : index
// CHECK-NEXT:    [[L:%[0-9]+]] = lowlevel.local_id 0
// CHECK-NEXT:    [[ITEM:%[0-9]+]] = arith.addi [[BASE]], [[L]] : index
// CHECK-NEXT:    [[C10:%[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT:    [[OK:%[0-9]+]] = arith.cmpi slt, [[ITEM]], [[C10]] : index
// CHECK-NEXT:    scf.if [[OK]] {
// CHECK-NEXT:      [[R0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[V0:%[0-9]+]] = memref.load [[T]]{{\[}}[[R0]], [[ITEM]]] : memref<3x10xf32>
// CHECK-NEXT:      [[R1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:      [[V1:%[0-9]+]] = memref.load [[T]]{{\[}}[[R1]], [[ITEM]]] : memref<3x10xf32>
// CHECK-NEXT:      [[S1:%[0-9]+]] = func.call @add([[V0]], [[V1]]) : (f32, f32) -> f32
// CHECK-NEXT:      [[R2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:      [[V2:%[0-9]+]] = memref.load [[T]]{{\[}}[[R2]], [[ITEM]]] : memref<3x10xf32>
// CHECK-NEXT:      [[S2:%[0-9]+]] = func.call @add([[S1]], [[V2]]) : (f32, f32) -> f32
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant 0 : index
// CHECK-NEXT:      memref.store [[S2]], [[W]]{{\[}}[[ITEM]]] : memref<10xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matvec_wg(
// CHECK-NEXT:    %w = memref.alloc() : memref<10xf32>
// CHECK-NEXT:    [[TMP:%[0-9]+]] = memref.alloc() : memref<3x10xf32>
// CHECK-NEXT:    lowlevel.launch @matvec_wg_0(%M, %v, %w, [[TMP]]) global [3, 2, 1] local [1, 1, 1] : memref<10x12xf32>, memref<12xf32>, memref<10xf32>, memref<3x10xf32>
// CHECK-NEXT:    lowlevel.launch @matvec_wg_0_combine([[TMP]], %w) global [64, 1, 1] local [64, 1, 1] : memref<3x10xf32>, memref<10xf32>
// CHECK-NEXT:    func.return %w : memref<10xf32>
func.func @matvec_wg(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_wg"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 3], num_wi = [1, 1], lt_size = [5, 4], pt_size = [5, 4],
                          ocl_dim = [[1, 0], [2, 2]]>}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// matvec_last: k split over 3 work-groups of 2 work-items (on i), combined by the last
// work-group to finish: it sees 2 (the third) in the counter, shares that through local
// memory, sets the counter (a zeroed global the program keeps) back to zero for the
// next launch, and its work-items 0 and 1 take the elements 0, 2, 4, ... and 1, 3, 5, ...,
// each reading the partial results of all five before it stores the first
// (`LAST_COMBINE_POINTS`); the five are all of them, so no loop.
// CHECK:       "memref.global"() <{sym_name = "matvec_last_0_counters", type = memref<1xi32>, initial_value = dense<0> : tensor<1xi32>
// CHECK-LABEL: lowlevel.kernel @matvec_last_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10xf32>, [[T:%[0-9]+]]: memref<3x10xf32>, [[N:%[0-9]+]]: memref<1xi32>)
// CHECK-NEXT:    [[LAST:%[0-9]+]] = memref.alloca() : memref<1xi1, "lcl">
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         memref.store %{{[0-9]+}}, [[T]]
// CHECK:         lowlevel.barrier global
// CHECK:         [[IS0:%[0-9]+]] = arith.cmpi eq, [[WI]], %{{[0-9]+}} : index
// CHECK-NEXT:    scf.if [[IS0]] {
// CHECK:           lowlevel.fence
// CHECK-NEXT:      [[BEFORE:%[0-9]+]] = lowlevel.atomic_inc [[N]]{{\[}}[[Z:%[0-9]+]]] : memref<1xi32>
// CHECK-NEXT:      lowlevel.fence
// CHECK-NEXT:      [[TWO:%[0-9]+]] = arith.constant 2 : i32
// CHECK-NEXT:      [[ISLAST:%[0-9]+]] = arith.cmpi eq, [[BEFORE]], [[TWO]] : i32
// CHECK-NEXT:      scf.if [[ISLAST]] {
// CHECK-NEXT:        [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// CHECK-NEXT:        memref.store [[ZERO]], [[N]]{{\[}}[[Z]]] : memref<1xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:      [[Z2:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      memref.store [[ISLAST]], [[LAST]]{{\[}}[[Z2]]] : memref<1xi1, "lcl">
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:    [[Z3:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[GO:%[0-9]+]] = memref.load [[LAST]]{{\[}}[[Z3]]] : memref<1xi1, "lcl">
// CHECK-NEXT:    scf.if [[GO]] {
// CHECK-NOT:       scf.for
// CHECK:           memref.load [[T]]{{\[}}%{{[0-9]+}}, [[WI]]] : memref<3x10xf32>
// CHECK:           memref.load [[T]]{{\[}}%{{[0-9]+}}, [[WI]]] : memref<3x10xf32>
// CHECK:           memref.load [[T]]{{\[}}%{{[0-9]+}}, [[WI]]] : memref<3x10xf32>
// CHECK-COUNT-12:  memref.load [[T]]
// CHECK-NOT:       memref.load
// CHECK:           memref.store %{{[0-9]+}}, %{{[0-9]+}}{{\[}}[[WI]]] : memref<10xf32>
// CHECK-COUNT-4:     memref.store
// CHECK-NOT:   lowlevel.kernel @matvec_last_0_combine
// CHECK-LABEL: func.func @matvec_last(
// CHECK-NEXT:    %w = memref.alloc() : memref<10xf32>
// CHECK-NEXT:    [[TMP:%[0-9]+]] = memref.alloc() : memref<3x10xf32>
// CHECK-NEXT:    [[CNT:%[0-9]+]] = memref.get_global @matvec_last_0_counters : memref<1xi32>
// CHECK-NEXT:    lowlevel.launch @matvec_last_0(%M, %v, %w, [[TMP]], [[CNT]]) global [6, 1, 1] local [2, 1, 1]
// CHECK-NEXT:    func.return %w : memref<10xf32>
func.func @matvec_last(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_last"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [1, 3], num_wi = [2, 1], lt_size = [10, 4], pt_size = [5, 4],
                          ocl_dim = [[1, 0], [0, 2]], wg_combine = "last">}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// matvec_groups: i over 2 work-groups (local tiles of 6: the second holds 4 elements),
// k over 3: a counter per kept work-group, indexed by its group id along i; the last of
// the 3 work-groups of a kept work-group combines only its own 6 positions (3 a
// work-item, in one step), those past the end of i (the second tile's excess) skipped.
// CHECK:       "memref.global"() <{sym_name = "matvec_groups_0_counters", type = memref<2xi32>, initial_value = dense<0> : tensor<2xi32>
// CHECK-LABEL: lowlevel.kernel @matvec_groups_0(
// CHECK-SAME:    [[N:%[0-9]+]]: memref<2xi32>)
// CHECK:         [[G:%[0-9]+]] = lowlevel.group_id 1
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         [[BEFORE:%[0-9]+]] = lowlevel.atomic_inc [[N]]{{\[}}[[G]]] : memref<2xi32>
// CHECK:         memref.store %{{[0-9]+}}, [[N]]{{\[}}[[G]]] : memref<2xi32>
// CHECK-NOT:     scf.for
// CHECK:           [[SIX:%[0-9]+]] = arith.constant 6 : index
// CHECK-NEXT:      [[BASE:%[0-9]+]] = arith.muli [[SIX]], [[G]] : index
// CHECK-NEXT:      [[I:%[0-9]+]] = arith.addi [[WI]], [[BASE]] : index
// CHECK-NEXT:      [[TEN:%[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT:      [[IN:%[0-9]+]] = arith.cmpi slt, [[I]], [[TEN]] : index
// CHECK:           scf.if [[IN]] {
// CHECK:             memref.store %{{[0-9]+}}, %{{[0-9]+}}{{\[}}[[I]]] : memref<10xf32>
func.func @matvec_groups(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_groups"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 3], num_wi = [2, 1], lt_size = [6, 4], pt_size = [3, 4],
                          ocl_dim = [[1, 0], [0, 2]], wg_combine = "last">}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// dot_many: 300 work-groups' partial results, combined in a loop (not 300 loads of
// straight-line code) over a private accumulator that starts at the first of them.
// CHECK-LABEL: lowlevel.kernel @dot_many_0_combine(
// CHECK-SAME:    [[T:%[0-9]+]]: memref<300x1xf32>, [[R:%[0-9]+]]: memref<f32>)
// CHECK:         [[FIRST:%[0-9]+]] = memref.load [[T]]{{\[}}%{{[0-9]+}}, [[ITEM:%[0-9]+]]] : memref<300x1xf32>
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1xf32, "prv">
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store [[FIRST]], [[ACC]]{{\[}}[[Z]]] : memref<1xf32, "prv">
// CHECK:         scf.for [[P:%[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// CHECK:           [[OLD:%[0-9]+]] = memref.load [[ACC]]
// CHECK-NEXT:      [[MORE:%[0-9]+]] = memref.load [[T]]{{\[}}[[P]], [[ITEM]]] : memref<300x1xf32>
// CHECK-NEXT:      [[SUM:%[0-9]+]] = func.call @add([[OLD]], [[MORE]]) : (f32, f32) -> f32
// CHECK:           memref.store [[SUM]], [[ACC]]
// CHECK-NEXT:    } {unroll = 16 : i64}
// CHECK:         [[DONE:%[0-9]+]] = memref.load [[ACC]]
// CHECK:         memref.store [[DONE]], [[R]][] : memref<f32>
func.func @dot_many(%x: memref<600xf32>, %y: memref<600xf32>) -> memref<f32> {
  %r = mdh.compute "dot_many"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", @add]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [600], out_types = [f32],
     config = #mdh.config<num_wg = [300], num_wi = [1], lt_size = [2], pt_size = [2], wg_combine = "kernel">}
    (%x, %y) : (memref<600xf32>, memref<600xf32>) -> memref<f32>
  func.return %r : memref<f32>
}
// combine_layer "lt": the accumulator lives across one local tile only, so it is filled
// inside the pw "lt" loop (3 steps) and each flush is combined with the earlier ones
// in the output, unless it is the first (step 0).
// CHECK-LABEL: lowlevel.kernel @matvec_lt_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x12xf32>, %{{[0-9]+}}: memref<12xf32>, [[W:%[0-9]+]]: memref<10xf32>)
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x5xf32, "prv">
// CHECK:         lowlevel.tile_for "lt" dim 1(%{{[0-9]+}}, %{{[0-9]+}}) tile 4 parts 1 part %{{[0-9]+}} max 3 {
// CHECK-NEXT:    ^bb0([[KSTEP:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      [[ID:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      lowlevel.fill [[ACC]] with [[ID]] : memref<1x5xf32, "prv">, f32
// CHECK-NEXT:      lowlevel.tile_for "pt" dim 0(
// CHECK:           math.fma
// CHECK:           [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[FIRST:%[0-9]+]] = arith.cmpi eq, [[KSTEP]], [[Z]] : index
// CHECK-NEXT:      %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:      lowlevel.tile_for "pt" dim 0(
// CHECK-NEXT:      ^bb0([[P:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:        lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:        ^bb0([[E:%[0-9]+]]: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[A:%[0-9]+]] = memref.load [[ACC]]{{\[}}[[P]], [[E]]] : memref<1x5xf32, "prv">
// CHECK-NEXT:          [[OLD:%[0-9]+]] = memref.load [[W]]{{\[}}[[I]]] : memref<10xf32>
// CHECK-NEXT:          [[G:%[0-9]+]] = func.call @add([[OLD]], [[A]]) : (f32, f32) -> f32
// CHECK-NEXT:          [[SEL:%[0-9]+]] = arith.select [[FIRST]], [[A]], [[G]] : f32
// CHECK-NEXT:          memref.store [[SEL]], [[W]]{{\[}}[[I]]] : memref<10xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @matvec_lt(
func.func @matvec_lt(%M: memref<10x12xf32>, %v: memref<12xf32>) -> memref<10xf32> {
  %w = mdh.compute "matvec_lt"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [10, 12], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [5, 4], pt_size = [5, 4], combine_layer = "lt">}
    (%M, %v) : (memref<10x12xf32>, memref<12xf32>) -> memref<10xf32>
  func.return %w : memref<10xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_first_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x16xf32>, %{{[0-9]+}}: memref<16x20xf32>, [[C:%[0-9]+]]: memref<10x20xf32>)
// CHECK-NEXT:    [[SCR:%[0-9]+]] = memref.alloca() : memref<2x2x1x1x2x2xf32, "lcl">
// CHECK-NEXT:    [[VALID:%[0-9]+]] = memref.alloca() : memref<2x2xi1, "lcl">
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1x1x2x2xf32, "prv">
// CHECK-NEXT:    [[HAS:%[0-9]+]] = memref.alloca() : memref<1xi1, "prv">
// CHECK:         [[WK:%[0-9]+]] = lowlevel.local_id 0
// CHECK-NEXT:    [[WJ:%[0-9]+]] = lowlevel.local_id 1
// CHECK:         lowlevel.fill [[ACC]] with %{{[0-9]+}} : memref<1x1x2x2xf32, "prv">, f32
// CHECK-NEXT:    [[NO:%[0-9]+]] = arith.constant false
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    memref.store [[NO]], [[HAS]]{{\[}}[[Z]]] : memref<1xi1, "prv">
// CHECK-NEXT:    lowlevel.tile_for "lt" dim 2(
// CHECK:             lowlevel.tile_for "pt" dim 2(
// CHECK-NEXT:        ^bb0([[PTK:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK:                 lowlevel.tile_for "el" dim 2(
// CHECK-NEXT:            ^bb0([[ELK:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK:                   [[P:%[0-9]+]] = func.call @mul(
// CHECK-NEXT:              [[Z1:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:              [[F1:%[0-9]+]] = arith.cmpi eq, [[PTK]], [[Z1]] : index
// CHECK-NEXT:              [[Z2:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:              [[F2:%[0-9]+]] = arith.cmpi eq, [[ELK]], [[Z2]] : index
// CHECK-NEXT:              %{{[0-9]+}} = arith.constant true
// CHECK-NEXT:              [[FIRST:%[0-9]+]] = arith.andi [[F1]], [[F2]] : i1
// CHECK-NEXT:              [[OLD:%[0-9]+]] = memref.load [[ACC]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<1x1x2x2xf32, "prv">
// CHECK-NEXT:              [[G:%[0-9]+]] = func.call @addneg([[OLD]], [[P]]) : (f32, f32) -> f32
// CHECK-NEXT:              [[SEL:%[0-9]+]] = arith.select [[FIRST]], [[P]], [[G]] : f32
// CHECK-NEXT:              memref.store [[SEL]], [[ACC]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<1x1x2x2xf32, "prv">
// CHECK-NEXT:              [[YES:%[0-9]+]] = arith.constant true
// CHECK-NEXT:              [[Z3:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:              memref.store [[YES]], [[HAS]]{{\[}}[[Z3]]] : memref<1xi1, "prv">
// CHECK:                   memref.store %{{[0-9]+}}, [[SCR]]{{\[}}[[WK]], [[WJ]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<2x2x1x1x2x2xf32, "lcl">
// CHECK:         [[H:%[0-9]+]] = memref.load [[HAS]]{{\[}}%{{[0-9]+}}] : memref<1xi1, "prv">
// CHECK-NEXT:    memref.store [[H]], [[VALID]]{{\[}}[[WK]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:    %{{[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:    [[PARTNER:%[0-9]+]] = arith.addi [[WK]], %{{[0-9]+}} : index
// CHECK:         scf.if
// CHECK:           [[THEIRS_OK:%[0-9]+]] = memref.load [[VALID]]{{\[}}[[PARTNER]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:      scf.if [[THEIRS_OK]] {
// CHECK-NEXT:        [[THEIRS:%[0-9]+]] = memref.load [[SCR]]{{\[}}[[PARTNER]], [[WJ]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}]
// CHECK-NEXT:        [[MINE_OK:%[0-9]+]] = memref.load [[VALID]]{{\[}}[[WK]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:        [[T:%[0-9]+]] = arith.constant true
// CHECK-NEXT:        [[MISSING:%[0-9]+]] = arith.xori [[MINE_OK]], [[T]] : i1
// CHECK-NEXT:        [[MINE:%[0-9]+]] = memref.load [[SCR]]{{\[}}[[WK]], [[WJ]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}]
// CHECK-NEXT:        [[G2:%[0-9]+]] = func.call @addneg([[MINE]], [[THEIRS]]) : (f32, f32) -> f32
// CHECK-NEXT:        [[S2:%[0-9]+]] = arith.select [[MISSING]], [[THEIRS]], [[G2]] : f32
// CHECK-NEXT:        memref.store [[S2]], [[SCR]]{{\[}}[[WK]], [[WJ]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}]
// CHECK:           [[A1:%[0-9]+]] = memref.load [[VALID]]{{\[}}[[WK]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:      [[A2:%[0-9]+]] = memref.load [[VALID]]{{\[}}[[PARTNER]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:      [[A3:%[0-9]+]] = arith.ori [[A1]], [[A2]] : i1
// CHECK-NEXT:      memref.store [[A3]], [[VALID]]{{\[}}[[WK]], [[WJ]]] : memref<2x2xi1, "lcl">
// CHECK-NEXT:    }
// CHECK-NEXT:    lowlevel.barrier
// CHECK:         scf.if
// CHECK:                 [[R:%[0-9]+]] = memref.load [[SCR]]{{\[}}%{{[0-9]+}}, [[WJ]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<2x2x1x1x2x2xf32, "lcl">
// CHECK-NEXT:            memref.store [[R]], [[C]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}] : memref<10x20xf32>
// CHECK-LABEL: func.func @matmul_first(
func.func @matmul_first(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul_first"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @addneg]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [5, 5, 1], num_wi = [1, 2, 2], lt_size = [2, 4, 16], pt_size = [2, 2, 4],
                          ocl_dim = [[1, 0, 2], [2, 1, 0]]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_glb_0(
// CHECK-SAME:    %{{[0-9]+}}: memref<10x16xf32>, %{{[0-9]+}}: memref<16x20xf32>, [[C:%[0-9]+]]: memref<10x20xf32>)
// CHECK-NOT:     memref.alloca
// CHECK:                 lowlevel.tile_for "el" dim 0(
// CHECK-NEXT:            ^bb0(%{{[0-9]+}}: index, [[I:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:              lowlevel.tile_for "el" dim 1(
// CHECK-NEXT:              ^bb0(%{{[0-9]+}}: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:                lowlevel.tile_for "el" dim 2(
// CHECK-NEXT:                ^bb0([[ELK:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK:                       [[P:%[0-9]+]] = func.call @mul(
// CHECK:                       [[FIRST:%[0-9]+]] = arith.andi %{{[0-9]+}}, %{{[0-9]+}} : i1
// CHECK-NEXT:                  [[OLD:%[0-9]+]] = memref.load [[C]]{{\[}}[[I]], [[J]]] : memref<10x20xf32>
// CHECK-NEXT:                  [[G:%[0-9]+]] = math.fma %{{[0-9]+}}, %{{[0-9]+}}, [[OLD]] : f32
// CHECK-NEXT:                  [[SEL:%[0-9]+]] = arith.select [[FIRST]], [[P]], [[G]] : f32
// CHECK-NEXT:                  memref.store [[SEL]], [[C]]{{\[}}[[I]], [[J]]] : memref<10x20xf32>
// CHECK-NOT:     lowlevel.fill
// CHECK-LABEL: func.func @matmul_glb(
func.func @matmul_glb(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = mdh.compute "matmul_glb"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32],
     config = #mdh.config<num_wg = [5, 5, 1], num_wi = [2, 4, 1], lt_size = [2, 4, 16], pt_size = [1, 1, 8], res_mem = ["glb"]>}
    (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
  func.return %C : memref<10x20xf32>
}
// prefix_sum: lines of 100 in 4 chunks of 25 (the local tile), 5 work-items of 5
// elements a chunk. Nothing but the scan combines the points, so no kernel stores their
// values first: the scan's kernels compute them from the input (view_load, @id), and
// the computation's own kernel is gone. _reduce: the chunk's values are staged in local
// memory (work-item w computes elements w, w + 5, ...: consecutive work-items read
// consecutive elements), each
// work-item combines its own consecutive elements from there in private memory, the
// work-items' totals are scanned in local memory (levels 1, 2, 4: load the partner's,
// barrier, store, barrier), and the last work-item stores the chunk's total.
// CHECK-NOT:   lowlevel.kernel @prefix_sum_0(
// CHECK-LABEL: lowlevel.kernel @prefix_sum_0_scan0_reduce(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<100xf32>, [[T:%[0-9]+]]: memref<1x4xf32>)
// CHECK-SAME:    local_size = array<i64: 5, 1, 1>
// CHECK:         [[STAGED:%[0-9]+]] = memref.alloca() : memref<1x25xf32, "lcl">
// CHECK-NEXT:    [[ACC:%[0-9]+]] = memref.alloca() : memref<1xf32, "prv">
// CHECK-NEXT:    [[S:%[0-9]+]] = memref.alloca() : memref<1x5xf32, "lcl">
// CHECK-COUNT-5: lowlevel.view_load [[X]]
// CHECK-NEXT:    [[V:%[0-9]+]] = func.call @id(
// CHECK-NEXT:    memref.store [[V]], [[STAGED]]
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NOT:     lowlevel.view_load [[X]]
// CHECK:         scf.for
// CHECK:           memref.load [[STAGED]]
// CHECK-NEXT:      func.call @add(
// CHECK:         memref.store %{{[0-9]+}}, [[S]]
// CHECK-NEXT:    lowlevel.barrier
// CHECK:         func.call @add(
// CHECK-NEXT:    arith.select
// CHECK-NEXT:    lowlevel.barrier
// CHECK-NEXT:    memref.store %{{[0-9]+}}, [[S]]
// CHECK-NEXT:    lowlevel.barrier
// CHECK-COUNT-4: lowlevel.barrier
// CHECK-NOT:     lowlevel.barrier
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{[0-9]+}}, [[T]]
// _carries: one work-group scans each line's 4 chunk totals in place.
// CHECK-LABEL: lowlevel.kernel @prefix_sum_0_scan0_carries(
// CHECK-SAME:    [[T:%[0-9]+]]: memref<1x4xf32>)
// CHECK-SAME:    local_size = array<i64: 4, 1, 1>
// CHECK:         memref.store %{{[0-9]+}}, [[T]]
// _scan0: the same scan of each staged chunk, the prefix of the work-items before and the
// carry of the chunks before (the scanned total at chunk - 1) combined in front of each
// work-item's first element, then its elements scanned in private memory and stored in
// the staged chunk, which after a barrier (fencing global memory too: the copy in read
// the line's last element clamped) is stored as it was read (consecutive
// work-items, consecutive elements).
// CHECK-LABEL: lowlevel.kernel @prefix_sum_0_scan0(
// CHECK-SAME:    [[X:%[0-9]+]]: memref<100xf32>, [[Y:%[0-9]+]]: memref<100xf32>, [[T:%[0-9]+]]: memref<1x4xf32>)
// CHECK:         [[STAGED:%[0-9]+]] = memref.alloca() : memref<1x25xf32, "lcl">
// CHECK:         [[G:%[0-9]+]] = lowlevel.group_id 0
// CHECK:         [[CHUNK:%[0-9]+]] = arith.remui [[G]], %{{[0-9]+}} : index
// CHECK-COUNT-7: lowlevel.barrier
// CHECK:         [[PREFIX:%[0-9]+]] = memref.load %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}] : memref<1x5xf32, "lcl">
// CHECK:         [[BEFORE:%[0-9]+]] = arith.subi [[CHUNK]], %{{[0-9]+}} : index
// CHECK-NEXT:    [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[PREV:%[0-9]+]] = arith.maxsi [[BEFORE]], [[C0]] : index
// CHECK-NEXT:    [[CARRY:%[0-9]+]] = memref.load [[T]]{{\[}}%{{[0-9]+}}, [[PREV]]] : memref<1x4xf32>
// CHECK:         func.call @add([[CARRY]], [[PREFIX]])
// CHECK:         scf.if
// CHECK:           [[V:%[0-9]+]] = memref.load [[STAGED]]
// CHECK-NEXT:      func.call @add(%{{[0-9]+}}, [[V]])
// CHECK:           scf.for
// CHECK:             func.call @add(
// CHECK:             memref.store %{{[0-9]+}}, [[STAGED]]
// CHECK:         lowlevel.barrier global
// CHECK-COUNT-5: memref.store %{{[0-9]+}}, [[Y]]
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @prefix_sum(
// CHECK-NEXT:    %y = memref.alloc() : memref<100xf32>
// CHECK-NEXT:    [[T:%[0-9]+]] = memref.alloc() : memref<1x4xf32>
// CHECK-NEXT:    lowlevel.launch @prefix_sum_0_scan0_reduce(%x, [[T]]) global [20, 1, 1] local [5, 1, 1]
// CHECK-NEXT:    lowlevel.launch @prefix_sum_0_scan0_carries([[T]]) global [4, 1, 1] local [4, 1, 1]
// CHECK-NEXT:    lowlevel.launch @prefix_sum_0_scan0(%x, %y, [[T]]) global [20, 1, 1] local [5, 1, 1]
// CHECK-NEXT:    func.return %y : memref<100xf32>
// CHECK-NOT:   lowlevel.accumulate
func.func @prefix_sum(%x: memref<100xf32>) -> memref<100xf32> {
  %y = mdh.compute "prefix_sum"
    {inp_view = [[affine_map<(n) -> (n)>]],
     md_hom = {scalar_func = @id, combine_ops = [["ps", @add]]},
     out_view = [[affine_map<(n) -> (n)>]]}
    {inp_types = [f32], mda_size = [100], out_types = [f32],
     config = #mdh.config<num_wg = [4], num_wi = [5], lt_size = [25], pt_size = [5], ocl_dim = [[0], [0]]>}
    (%x) : (memref<100xf32>) -> memref<100xf32>
  func.return %y : memref<100xf32>
}

// dot_lanes: 8 work-groups of 4 work-items, one output: the last work-group's 4
// work-items are lanes that each combine two partial results (theirs and 4 on) into local
// memory, then meet in a tree of two levels with barriers; lane 0 stores the output.
// CHECK-LABEL: lowlevel.kernel @dot_lanes_0(
// CHECK-SAME:    [[R:%[0-9]+]]: memref<f32>, [[T:%[0-9]+]]: memref<8x1xf32>, %{{[0-9]+}}: memref<1xi32>)
// CHECK-NEXT:    [[S:%[0-9]+]] = memref.alloca() : memref<4x1xf32, "lcl">
// CHECK:         [[WI:%[0-9]+]] = lowlevel.local_id 0
// CHECK:         lowlevel.atomic_inc
// CHECK:         lowlevel.barrier
// CHECK:         scf.if %{{[0-9]+}} {
// CHECK-NEXT:      [[I:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[J:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[A:%[0-9]+]] = memref.load [[T]]{{\[}}[[WI]], [[J]]] : memref<8x1xf32>
// CHECK-NEXT:      [[FOUR:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:      [[P:%[0-9]+]] = arith.addi [[WI]], [[FOUR]] : index
// CHECK-NEXT:      [[B:%[0-9]+]] = memref.load [[T]]{{\[}}[[P]], [[J]]] : memref<8x1xf32>
// CHECK-NEXT:      [[AB:%[0-9]+]] = func.call @add([[A]], [[B]])
// CHECK-NEXT:      memref.store [[AB]], [[S]]{{\[}}[[WI]], [[I]]]
// CHECK-NEXT:      lowlevel.barrier
// CHECK:           [[P2:%[0-9]+]] = arith.addi [[WI]], %{{[0-9]+}} : index
// CHECK:           scf.if
// CHECK-NEXT:        memref.load [[S]]{{\[}}[[WI]], [[I]]]
// CHECK-NEXT:        memref.load [[S]]{{\[}}[[P2]], [[I]]]
// CHECK:           lowlevel.barrier
// CHECK:           scf.if
// CHECK:           lowlevel.barrier
// CHECK-NEXT:      [[Z:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      [[IS0:%[0-9]+]] = arith.cmpi eq, [[WI]], [[Z]] : index
// CHECK:           scf.if [[IS0]] {
// CHECK:             [[V:%[0-9]+]] = memref.load [[S]]
// CHECK:             memref.store [[V]], [[R]][] : memref<f32>
// CHECK-NOT:   lowlevel.kernel @dot_lanes_0_combine
func.func @dot_lanes(%x: memref<640xf32>, %y: memref<640xf32>) -> memref<f32> {
  %r = mdh.compute "dot_lanes"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", @add]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [640], out_types = [f32],
     config = #mdh.config<num_wg = [8], num_wi = [4], lt_size = [16], pt_size = [4], wg_combine = "last">}
    (%x, %y) : (memref<640xf32>, memref<640xf32>) -> memref<f32>
  func.return %r : memref<f32>
}
