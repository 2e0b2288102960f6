// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-mma | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma' | mdh-opt -p lowlevel-expand-mma | filecheck %s --check-prefix=EMULATE
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand' -t opencl | filecheck %s --check-prefix=CL
// RUN: sed 's/f16/bf16/g' %s | mdh-opt -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand' -t opencl | filecheck %s --check-prefix=BF16

// mdh-mma with mma = "f16" (and, through sed, "bf16"): a matmul 32 x 16 x 16 of f16
// inputs, a work-group of 2 x 16 work-items (one warp) with private tiles of
// 16 x 1 x 16: one warp tile of 2 x 2 fragments of m16n8k16. Per lane (g = l / 4,
// t = l mod 4) each A and B register holds two 16-bit elements at consecutive k:
// k = 2t, 2t + 1 (and + 8), read from the local copies as stored (f16, not widened;
// nothing rounds) and packed into an i32, the lower k in the low 16 bits: the rows of
// the local copies, padded by 4 elements (`lcl_pad`), are 40 bytes, not the multiple
// of 16 that `ldmatrix` loads (mdh-mma-ldmatrix.mlir). The exchange of the
// accumulator fragments is the TF32 one (mdh-mma.mlir).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<32x16xf16>, %B: memref<16x16xf16>) -> memref<32x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f16, f16], mda_size = [32, 16, 16], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [2, 16, 1], lt_size = [32, 16, 16],
                          pt_size = [16, 1, 16], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, lcl_pad = 4, mma = "f16">}
    (%A, %B) : (memref<32x16xf16>, memref<16x16xf16>) -> memref<32x16xf32>
  func.return %C : memref<32x16xf32>
}

// CHECK-LABEL: lowlevel.kernel @mm_0(
// CHECK:         %[[C:.*]] = memref.alloca() : memref<1x1x2x2x4xf32, "prv">
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:         %[[T:.*]] = arith.remui %[[LANE]]
// CHECK:         lowlevel.tile_for "lt" dim 2
// CHECK:           lowlevel.copy {{.*}} {lanes = 4 : i64, inside} : memref<32x16xf16> -> memref<32x20xf16, "lcl">
// CHECK-NEXT:      lowlevel.copy {{.*}} {lanes = 4 : i64, inside} : memref<16x16xf16> -> memref<16x20xf16, "lcl">
// CHECK:           lowlevel.barrier
// CHECK-NOT:       lowlevel.tile_for "pt"
// CHECK:           %[[T2:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[K0:.*]] = arith.addi %[[KS:.*]], %[[T2]] : index
// CHECK:           %[[K1:.*]] = arith.addi %[[KS]], %{{.*}} : index
// CHECK:           %[[LO:.*]] = lowlevel.view_load %{{.*}}[%[[ROW:.*]], %{{.*}}, %[[K0]]] {{.*}} : memref<32x20xf16, "lcl"> -> f16
// CHECK:           %[[HI:.*]] = lowlevel.view_load %{{.*}}[%[[ROW]], %{{.*}}, %[[K1]]] {{.*}} : memref<32x20xf16, "lcl"> -> f16
// CHECK-NEXT:      %[[LOBITS:.*]] = arith.bitcast %[[LO]] : f16 to i16
// CHECK-NEXT:      %[[LOWORD:.*]] = arith.extui %[[LOBITS]] : i16 to i32
// CHECK-NEXT:      %[[HIBITS:.*]] = arith.bitcast %[[HI]] : f16 to i16
// CHECK-NEXT:      %[[HIWORD:.*]] = arith.extui %[[HIBITS]] : i16 to i32
// CHECK-NEXT:      %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT:      %[[HIGH:.*]] = arith.shli %[[HIWORD]], %[[SIXTEEN]] : i32
// CHECK-NEXT:      %[[A0:.*]] = arith.ori %[[LOWORD]], %[[HIGH]] : i32
// CHECK-NOT:       load_widened
// CHECK:           lowlevel.view_load %{{.*}}[%{{.*}}, %{{.*}}, %[[K0]]] {{.*}} : memref<16x20xf16, "lcl"> -> f16
// CHECK:           lowlevel.view_load %{{.*}}[%{{.*}}, %{{.*}}, %[[K1]]] {{.*}} : memref<16x20xf16, "lcl"> -> f16
// CHECK:           %{{.*}} = lowlevel.mma "f16" a(%[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : i32, i32, i32, i32) b(%{{.*}}, %{{.*}} : i32, i32) c(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) -> f32, f32, f32, f32
// CHECK-COUNT-3:   lowlevel.mma "f16"
// CHECK:           lowlevel.barrier
// CHECK-NEXT:    }

// lowlevel-expand-mma: the warp's fragments in local memory hold 16-bit elements
// (16 x 16 of A, 16 x 8 of B); each register's low half goes to k = 2t (+ 8), its
// high half to k = 2t + 1 (+ 8); 16 FMAs over k per result read them widened.
// EMULATE-LABEL: lowlevel.kernel @mm_0(
// EMULATE-DAG:     %[[A:.*]] = memref.alloca() : memref<1x16x16xf16, "lcl">
// EMULATE-DAG:     %[[B:.*]] = memref.alloca() : memref<1x16x8xf16, "lcl">
// EMULATE-NOT:     lowlevel.mma
// EMULATE:         lowlevel.barrier
// EMULATE:         %[[HI:.*]] = arith.shrui %[[REG:.*]], %{{.*}} : i32
// EMULATE-NEXT:    %[[LOBITS:.*]] = arith.trunci %[[REG]] : i32 to i16
// EMULATE-NEXT:    %[[LO:.*]] = arith.bitcast %[[LOBITS]] : i16 to f16
// EMULATE-NEXT:    %[[HIBITS:.*]] = arith.trunci %[[HI]] : i32 to i16
// EMULATE-NEXT:    %[[HIGH:.*]] = arith.bitcast %[[HIBITS]] : i16 to f16
// EMULATE-NEXT:    memref.store %[[LO]], %[[A]][%[[W:.*]], %[[G:.*]], %[[K0:.*]]] : memref<1x16x16xf16, "lcl">
// EMULATE-NEXT:    memref.store %[[HIGH]], %[[A]][%[[W]], %[[G]], %[[K1:.*]]] : memref<1x16x16xf16, "lcl">
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G8:.*]], %[[K0]]]
// EMULATE-NEXT:    memref.store %{{.*}}, %[[A]][%[[W]], %[[G8]], %[[K1]]]
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G]], %[[K8:.*]]]
// EMULATE-NEXT:    memref.store %{{.*}}, %[[A]][%[[W]], %[[G]], %[[K9:.*]]]
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G8]], %[[K8]]]
// EMULATE-NEXT:    memref.store %{{.*}}, %[[A]][%[[W]], %[[G8]], %[[K9]]]
// EMULATE:         memref.store %{{.*}}, %[[B]][%[[W]], %[[K0]], %[[G]]]
// EMULATE-NEXT:    memref.store %{{.*}}, %[[B]][%[[W]], %[[K1]], %[[G]]]
// EMULATE:         memref.store %{{.*}}, %[[B]][%[[W]], %[[K8]], %[[G]]]
// EMULATE-NEXT:    memref.store %{{.*}}, %[[B]][%[[W]], %[[K9]], %[[G]]]
// EMULATE:         lowlevel.barrier
// EMULATE:         lowlevel.load_widened %[[A]]
// EMULATE:         lowlevel.load_widened %[[B]]
// EMULATE-NEXT:    math.fma
// EMULATE-COUNT-15: math.fma
// EMULATE-NOT:     lowlevel.mma

// The printer: the registers packed from the elements' ushort bits, the m16n8k16
// instruction on them.
// CL:      const short [[LB:v[0-9]+]] = as_short(v{{[0-9]+}});
// CL-NEXT: const int [[LW:v[0-9]+]] = (int)as_ushort([[LB]]);
// CL-NEXT: const short [[HB:v[0-9]+]] = as_short(v{{[0-9]+}});
// CL-NEXT: const int [[HW:v[0-9]+]] = (int)as_ushort([[HB]]);
// CL-NEXT: const int [[HS:v[0-9]+]] = as_int(as_uint([[HW]]) << as_uint(16));
// CL-NEXT: const int [[A0:v[0-9]+]] = [[LW]] | [[HS]];
// CL: __asm__ volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : "=f"({{v[0-9]+}}), "=f"({{v[0-9]+}}), "=f"({{v[0-9]+}}), "=f"({{v[0-9]+}}) : "r"(as_uint([[A0]])), {{.*}}, "f"({{v[0-9]+}}), "f"({{v[0-9]+}}));
// BF16: __asm__ volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
