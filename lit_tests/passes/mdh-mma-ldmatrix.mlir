// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-mma | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma' | mdh-opt -p lowlevel-expand-mma | filecheck %s --check-prefix=EMULATE
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand' -t opencl | filecheck %s --check-prefix=CL

// mdh-mma loads fragments with `ldmatrix` where a local copy's rows are a multiple of
// 16 bytes: a matmul 32 x 16 x 24 of f16 inputs, one warp (2 x 16 work-items) with
// private tiles of 16 x 1 x 16, local tiles of 16 along k (the second one partial:
// k 16 .. 23) and rows padded by 8 (48 bytes). A's copy holds k along its rows: each A
// fragment is one `ldmatrix` of four 8 x 8 matrices (lane l gives the start of row
// l mod 8 of matrix q = l / 8, at row 8 (q mod 2) and k 8 (q / 2) of the fragment).
// B's copy holds k along its first axis: `ldmatrix trans` loads both B fragments (8
// columns each) at once, matrix q at column 8 (q / 2) and k 8 (q mod 2), lane l giving
// the row (k) l mod 8. In the partial local tile (`scf.if` on its size; the whole one
// computes without masks) each register then drops the elements beyond the local tile
// along k: `andi` with a mask whose low (high) 16 bits are ones where its lower (upper)
// k, k0 + 2t (+ 8) (+ 1), lies inside it.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<32x24xf16>, %B: memref<24x16xf16>) -> memref<32x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f16, f16], mda_size = [32, 16, 24], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [2, 16, 1], lt_size = [32, 16, 16],
                          pt_size = [16, 1, 16], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, lcl_pad = 8, mma = "f16">}
    (%A, %B) : (memref<32x24xf16>, memref<24x16xf16>) -> memref<32x16xf32>
  func.return %C : memref<32x16xf32>
}

// CHECK-LABEL: lowlevel.kernel @mm_0(
// CHECK:         lowlevel.tile_for "lt" dim 2({{.*}}) tile 16
// CHECK-NEXT:      ^bb0(%{{.*}}: index, %[[K0:.*]]: index, %[[KSIZE:.*]]: index):
// CHECK:           lowlevel.copy {{.*}} : memref<32x24xf16> -> memref<32x24xf16, "lcl">
// CHECK-NEXT:      lowlevel.copy {{.*}} : memref<24x16xf16> -> memref<16x24xf16, "lcl">
// CHECK:           %[[WHOLE:.*]] = arith.cmpi eq, %[[KSIZE]], %{{.*}} : index
// CHECK-NEXT:      scf.if %[[WHOLE]] {
// CHECK-NOT:         arith.andi
// CHECK:             lowlevel.ldmatrix %{{.*}} : memref<32x24xf16, "lcl"> -> i32, i32, i32, i32
// CHECK-NOT:         arith.andi
// CHECK-COUNT-4:     lowlevel.mma "f16"
// CHECK-NOT:         arith.andi
// CHECK:           %[[PARTIAL:.*]] = arith.xori %[[WHOLE]], %{{.*}} : i1
// CHECK-NEXT:      scf.if %[[PARTIAL]] {
// CHECK:           %[[KLO:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK:           %[[KHI:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK:           %[[END:.*]] = arith.addi %[[K0]], %[[KSIZE]] : index
// CHECK-NEXT:      %[[INLO:.*]] = arith.cmpi slt, %[[KLO]], %[[END]] : index
// CHECK-NEXT:      %[[INHI:.*]] = arith.cmpi slt, %[[KHI]], %[[END]] : index
// CHECK-NEXT:      %[[ONES:.*]] = arith.constant 65535 : i32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[LOW:.*]] = arith.select %[[INLO]], %[[ONES]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[HIGHONES:.*]] = arith.constant -65536 : i32
// CHECK-NEXT:      %[[ZERO2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.select %[[INHI]], %[[HIGHONES]], %[[ZERO2]] : i32
// CHECK-NEXT:      %[[MASK0:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i32
// CHECK:           %[[MASK1:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK:           %[[A0R:[0-9]+]], %[[A1R:[0-9]+]], %[[A2R:[0-9]+]], %[[A3R:[0-9]+]] = lowlevel.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x24xf16, "lcl"> -> i32, i32, i32, i32
// CHECK-NEXT:      %[[A0:.*]] = arith.andi %[[A0R]], %[[MASK0]] : i32
// CHECK-NEXT:      %{{.*}} = arith.andi %[[A1R]], %[[MASK0]] : i32
// CHECK-NEXT:      %{{.*}} = arith.andi %[[A2R]], %[[MASK1]] : i32
// CHECK-NEXT:      %{{.*}} = arith.andi %[[A3R]], %[[MASK1]] : i32
// CHECK:           lowlevel.ldmatrix %{{.*}} : memref<32x24xf16, "lcl"> -> i32, i32, i32, i32
// CHECK:           %[[B0R:[0-9]+]], %[[B1R:[0-9]+]], %[[B2R:[0-9]+]], %[[B3R:[0-9]+]] = lowlevel.ldmatrix trans %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x24xf16, "lcl"> -> i32, i32, i32, i32
// CHECK-NEXT:      %[[B0:.*]] = arith.andi %[[B0R]], %[[MASK0]] : i32
// CHECK-NEXT:      %[[B1:.*]] = arith.andi %[[B1R]], %[[MASK1]] : i32
// CHECK-NEXT:      %{{.*}} = arith.andi %[[B2R]], %[[MASK0]] : i32
// CHECK-NEXT:      %{{.*}} = arith.andi %[[B3R]], %[[MASK1]] : i32
// CHECK-NOT:       lowlevel.view_load
// CHECK:           lowlevel.mma "f16" a(%[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32, i32) b(%[[B0]], %[[B1]] : i32, i32)
// CHECK-COUNT-3:   lowlevel.mma "f16"

// lowlevel-expand-mma: the lanes' row starts go through local memory
// (rows[warp][lane][axis]) between barriers; then lane (g, t) reads register q of
// `ldmatrix` at the row that lane 8q + g gave (read once), columns 2t and 2t + 1, and of
// `ldmatrix trans` at the rows that lanes 8q + 2t and 8q + 2t + 1 gave, column g.
// EMULATE-LABEL: lowlevel.kernel @mm_0(
// EMULATE:         %[[LANE:.*]] = arith.remui
// EMULATE:         %[[W:.*]] = arith.divui
// EMULATE:         %[[G:.*]] = arith.divui %[[LANE]]
// EMULATE:         %[[T:.*]] = arith.remui %[[LANE]]
// EMULATE:         %[[ROWS:.*]] = memref.alloca() : memref<1x32x2xi32, "lcl">
// EMULATE-NOT:     lowlevel.ldmatrix
// EMULATE:         lowlevel.barrier
// EMULATE:         memref.store %{{.*}}, %[[ROWS]][%[[W]], %[[LANE]], %{{.*}}]
// EMULATE:         memref.store %{{.*}}, %[[ROWS]][%[[W]], %[[LANE]], %{{.*}}]
// EMULATE-NEXT:    lowlevel.barrier
// EMULATE:         %[[R:.*]] = memref.load %[[ROWS]][%[[W]], %[[G]], %{{.*}}]
// EMULATE-NEXT:    %[[ROW:.*]] = arith.index_cast %[[R]] : i32 to index
// EMULATE:         %[[C:.*]] = memref.load %[[ROWS]][%[[W]], %[[G]], %{{.*}}]
// EMULATE-NEXT:    %[[COL:.*]] = arith.index_cast %[[C]] : i32 to index
// EMULATE-NEXT:    %{{.*}} = arith.constant 2 : index
// EMULATE-NEXT:    %[[T2:.*]] = arith.muli %[[T]], %{{.*}} : index
// EMULATE-NEXT:    %[[AT:.*]] = arith.addi %[[COL]], %[[T2]] : index
// EMULATE-NEXT:    memref.load %{{.*}}[%[[ROW]], %[[AT]]] : memref<32x24xf16, "lcl">
// EMULATE:         %[[AT1:.*]] = arith.addi %[[COL]], %{{.*}} : index
// EMULATE-NEXT:    memref.load %{{.*}}[%[[ROW]], %[[AT1]]] : memref<32x24xf16, "lcl">
// EMULATE:         lowlevel.barrier
// EMULATE:         lowlevel.barrier
// EMULATE:         lowlevel.barrier
// EMULATE:         lowlevel.barrier
// EMULATE-NEXT:    %{{.*}} = arith.constant 2 : index
// EMULATE-NEXT:    %[[TT:.*]] = arith.muli %[[T]], %{{.*}} : index
// EMULATE:         %[[K:.*]] = memref.load %[[ROWS]][%[[W]], %[[TT]], %{{.*}}]
// EMULATE:         %[[J:.*]] = memref.load %[[ROWS]][%[[W]], %[[TT]], %{{.*}}]
// EMULATE-NEXT:    %[[JJ:.*]] = arith.index_cast %[[J]] : i32 to index
// EMULATE-NEXT:    %[[AT2:.*]] = arith.addi %[[JJ]], %[[G]] : index
// EMULATE-NEXT:    memref.load %{{.*}}[%{{.*}}, %[[AT2]]] : memref<16x24xf16, "lcl">
// EMULATE-NOT:     lowlevel.ldmatrix

// The printer writes ldmatrix as inline PTX on the lane's row address in local memory
// (".trans" for B) and reads the registers as ints.
// CL: __asm__ volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"([[R0:v[0-9]+_0]]), "=r"({{v[0-9]+_1}}), "=r"({{v[0-9]+_2}}), "=r"({{v[0-9]+_3}}) : "r"((uint)(size_t)(v{{[0-9]+}} + v{{[0-9]+}} * 24 + v{{[0-9]+}})));
// CL-NEXT: const int {{v[0-9]+}} = as_int([[R0]]);
// CL: __asm__ volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
// CL: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
