// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-mma | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma' | mdh-opt -p lowlevel-expand-mma | filecheck %s --check-prefix=EMULATE
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand' -t opencl | filecheck %s --check-prefix=CL

// mdh-mma with mma = "tf32": a matmul 32 x 16 x 8 whose work-group of 2 x 16 work-items
// (one warp) takes private tiles of 16 x 1 x 8. The step block (num_wi * pt_size) is
// 32 x 16, one warp tile of 2 x 2 fragments of 16 x 8. The private-tile loops are
// replaced: per lane (linear local id l: g = l / 4, t = l mod 4) each A fragment is
// one `ldmatrix` of four 8 x 4 matrices from the local copy of A, whose rows hold k
// contiguously (32 bytes): lane l gives the start of row l mod 8 of matrix q = l / 8,
// at row 8 (q mod 2) (+ 16 for the second fragment) and k 4 (q / 2), so that lane l
// receives rows g, g + 8 at k t, t + 4. The local copies hold the inputs rounded to
// TF32 by the copies that fill them (`round = "tf32"`: once per element, not at each
// fragment load). The local copy of B holds k along its first axis, which a TF32
// `ldmatrix` cannot transpose: the B fragments read it at rows t, t + 4 and columns g
// (+ 8) element by element. Four mmas
// accumulate into the private fragments %c (2 x 2 fragments of 4 registers), which take
// the place of the work-items' accumulators: after the loop the flush stores the
// lane's elements, rows g (+ 8) and columns 2t, 2t + 1 of each fragment, each pair of
// adjacent columns as one store of two lanes; no local memory, no barrier.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<32x8xf32>, %B: memref<8x16xf32>) -> memref<32x16xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [32, 16, 8], out_types = [f32], precision = "tf32",
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [2, 16, 1], lt_size = [32, 16, 8],
                          pt_size = [16, 1, 8], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, mma = "tf32">}
    (%A, %B) : (memref<32x8xf32>, memref<8x16xf32>) -> memref<32x16xf32>
  func.return %C : memref<32x16xf32>
}

// CHECK-LABEL: lowlevel.kernel @mm_0(
// CHECK:         %[[C:.*]] = memref.alloca() : memref<1x1x2x2x4xf32, "prv">
// CHECK:         %[[LANE:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:         %[[G:.*]] = arith.divui %[[LANE]]
// CHECK:         %[[T:.*]] = arith.remui %[[LANE]]
// CHECK:         %[[ROW0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:         %[[Q:.*]] = arith.divui %[[LANE]], %[[EIGHT:.*]] : index
// CHECK:         %[[R:.*]] = arith.remui %[[LANE]], %{{.*}} : index
// CHECK:         %[[QROWS:.*]] = arith.remui %[[Q]], %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : index
// CHECK-NEXT:    %[[MROW:.*]] = arith.muli %[[QROWS]], %{{.*}} : index
// CHECK:         %[[QK:.*]] = arith.divui %[[Q]], %{{.*}} : index
// CHECK:         %[[QKS:.*]] = arith.remui %[[QK]], %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.constant 4 : index
// CHECK-NEXT:    %[[DK:.*]] = arith.muli %[[QKS]], %{{.*}} : index
// CHECK-NEXT:    %[[DROW:.*]] = arith.addi %[[MROW]], %[[R]] : index
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, "prv">
// CHECK:         lowlevel.fill %[[C]]
// CHECK:         lowlevel.tile_for "lt" dim 2
// CHECK:           lowlevel.copy {{.*}} {lanes = 4 : i64, inside, round = "tf32"} : memref<32x8xf32> -> memref<32x8xf32, "lcl">
// CHECK-NEXT:      lowlevel.copy {{.*}} {lanes = 4 : i64, inside, round = "tf32"} : memref<8x16xf32> -> memref<8x16xf32, "lcl">
// CHECK:           lowlevel.barrier
// CHECK-NOT:       lowlevel.tile_for "pt"
// CHECK-NOT:       lowlevel.round_tf32
// CHECK:           %[[KT:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK:           %{{.*}} = arith.addi %{{.*}}, %[[DROW]] : index
// CHECK-NEXT:      %{{.*}} = arith.addi %{{.*}}, %[[DK]] : index
// CHECK:           %[[A0:.*]], %{{.*}}, %{{.*}}, %{{.*}} = lowlevel.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x8xf32, "lcl"> -> f32, f32, f32, f32
// CHECK:           lowlevel.ldmatrix %{{.*}} : memref<32x8xf32, "lcl"> -> f32, f32, f32, f32
// CHECK-NOT:       lowlevel.round_tf32
// CHECK:           lowlevel.view_load %{{.*}}[%{{.*}}, %{{.*}}, %[[KT]]] {{.*}} : memref<8x16xf32, "lcl"> -> f32
// CHECK-NOT:       lowlevel.round_tf32
// CHECK:           %{{.*}} = lowlevel.mma "tf32" a(%[[A0]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32) b(%{{.*}}, %{{.*}} : f32, f32) c(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) -> f32, f32, f32, f32
// CHECK-COUNT-3:   lowlevel.mma "tf32"
// CHECK:           lowlevel.barrier
// CHECK-NEXT:    }
// CHECK-NOT:     lowlevel.barrier
// CHECK:         %[[T2:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %{{.*}}, %[[T2]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %{{.*}}, %[[G]] : index
// CHECK-NOT:     memref.store
// CHECK-COUNT-4: arith.constant 0 : index
// CHECK-NEXT:    %[[V0:.*]] = arith.constant 0 : index
// CHECK-NOT:     memref.store
// CHECK:         %[[PAIR:.*]] = vector.load %[[C]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V0]]] : memref<1x1x2x2x4xf32, "prv">, vector<2xf32>
// CHECK-NEXT:    vector.store %[[PAIR]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<32x16xf32>, vector<2xf32>
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[G8:.*]] = arith.addi %[[G]], %[[EIGHT]] : index
// CHECK-NEXT:    %[[ROW8:.*]] = arith.addi %{{.*}}, %[[G8]] : index
// CHECK:         %[[V2:.*]] = arith.constant 2 : index
// CHECK-NOT:     memref.store
// CHECK:         %[[PAIR2:.*]] = vector.load %[[C]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V2]]] : memref<1x1x2x2x4xf32, "prv">, vector<2xf32>
// CHECK-NEXT:    vector.store %[[PAIR2]], %{{.*}}[%[[ROW8]], %[[COL]]] : memref<32x16xf32>, vector<2xf32>
// CHECK-COUNT-6: vector.store
// CHECK-NOT:     memref.store
// CHECK-NOT:     lowlevel.barrier
// CHECK:         }

// lowlevel-expand-mma (a device without tensor cores): each mma stores its lane's A
// and B registers into the warp's fragments in local memory at their layout's places,
// between barriers, and computes its four results as FMAs over k.
// EMULATE-LABEL: lowlevel.kernel @mm_0(
// EMULATE-DAG:     %[[B:.*]] = memref.alloca() : memref<1x8x8xf32, "lcl">
// EMULATE-DAG:     %[[A:.*]] = memref.alloca() : memref<1x16x8xf32, "lcl">
// EMULATE-NOT:     lowlevel.mma
// EMULATE:         lowlevel.barrier
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W:.*]], %[[G:.*]], %[[T:.*]]]
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G8:.*]], %[[T]]]
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G]], %[[T4:.*]]]
// EMULATE:         memref.store %{{.*}}, %[[A]][%[[W]], %[[G8]], %[[T4]]]
// EMULATE:         memref.store %{{.*}}, %[[B]][%[[W]], %[[T]], %[[G]]]
// EMULATE:         memref.store %{{.*}}, %[[B]][%[[W]], %[[T4]], %[[G]]]
// EMULATE:         lowlevel.barrier
// EMULATE-COUNT-8: math.fma
// EMULATE-NOT:     lowlevel.mma

// lowlevel-expand rounds each element the copies store; the printer writes the
// ldmatrix and the mma as inline PTX, the ldmatrix on the lane's row address in the
// local copy and the mma on the bits of the rounded floats.
// CL: const float4 v{{[0-9]+}} = select(as_float4((as_uint4(v{{[0-9]+}}) + 0xfffu + ((as_uint4(v{{[0-9]+}}) >> 13) & 1u)) & 0xffffe000u), v{{[0-9]+}}, isnan(v{{[0-9]+}}))
// CL: __asm__ volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"([[R0:v[0-9]+_0]]), "=r"({{v[0-9]+_1}}), "=r"({{v[0-9]+_2}}), "=r"({{v[0-9]+_3}}) : "r"((uint)(size_t)(v{{[0-9]+}} + v{{[0-9]+}} * 8 + v{{[0-9]+}})));
// CL-NEXT: const float [[A0:v[0-9]+]] = as_float([[R0]]);
// CL: __asm__ volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : "=f"([[D0:v[0-9]+]]), "=f"({{v[0-9]+}}), "=f"({{v[0-9]+}}), "=f"({{v[0-9]+}}) : "r"(as_uint([[A0]])), {{.*}}, "f"({{v[0-9]+}}), "f"({{v[0-9]+}}));
