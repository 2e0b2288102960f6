// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm' | mdh-opt -p mdh-promote-memory | filecheck %s --check-prefix=PROMOTE
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand' | mdh-opt -p lowlevel-swizzle-local | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-mma,lowlevel-expand,lowlevel-swizzle-local' -t opencl | filecheck %s --check-prefix=CL

// `lcl_swizzle = 1` on an f16 matmul 32 x 8 x 64 in local tiles of 32 x 8 x 32 (one warp
// of 2 x 1 fragments). mdh-promote-memory marks A's local buffer, rows of 32 f16 (64
// bytes: four 16-byte chunks), `swizzle = 2`: its chunks are permuted by the index of
// axis -2, the rows along which a fragment load's 8 rows step; its copy moves a chunk
// (8 elements) at once. B's rows of 8 f16 are one chunk: left as they are, 4 lanes.
// PROMOTE:      %[[B:.*]] = memref.alloca() : memref<32x8xf16, "lcl">
// PROMOTE-NEXT: %[[A:.*]] = memref.alloca() {swizzle = 2 : i64} : memref<32x32xf16, "lcl">
// PROMOTE:      lowlevel.copy %0[{{.*}}] -> %[[A]] {{.*}} {lanes = 8 : i64, inside}
// PROMOTE-NEXT: lowlevel.copy %1[{{.*}}] -> %[[B]] {{.*}} {lanes = 4 : i64, inside}

// lowlevel-swizzle-local rewrites the last index c of every access of A at row r (here
// W = min(4, 8) = 4 chunks permuted: c ^ 8 * ((r / 2) mod 4)): the copy's vector store
// and each `ldmatrix`; B's accesses keep theirs.
// CHECK:      %[[B:.*]] = memref.alloca() : memref<32x8xf16, "lcl">
// CHECK-NEXT: %[[A:.*]] = memref.alloca() {swizzle = 2 : i64} : memref<32x32xf16, "lcl">
// CHECK:      %[[V:.*]] = vector.load %0[%{{.*}}, %{{.*}}] : memref<32x64xf16>, vector<8xf16>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[HALF:.*]] = arith.divui %[[ROW:.*]], %[[TWO]] : index
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[BITS:.*]] = arith.remui %[[HALF]], %[[FOUR]] : index
// CHECK-NEXT: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[SHIFT:.*]] = arith.muli %[[BITS]], %[[EIGHT]] : index
// CHECK-NEXT: %[[COL:.*]] = arith.xori %[[C:.*]], %[[SHIFT]] : index
// CHECK-NEXT: vector.store %[[V]], %[[A]][%[[ROW]], %[[COL]]] : memref<32x32xf16, "lcl">, vector<8xf16>
// CHECK:      %[[FCOL:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK-NEXT: lowlevel.ldmatrix %[[A]][%{{.*}}, %[[FCOL]]] : memref<32x32xf16, "lcl"> -> i32, i32, i32, i32
// CHECK:      %[[FCOL2:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK-NEXT: lowlevel.ldmatrix %[[A]][%{{.*}}, %[[FCOL2]]] : memref<32x32xf16, "lcl"> -> i32, i32, i32, i32
// CHECK:      %[[BROW:.*]] = arith.addi
// CHECK-NOT:  arith.xori
// CHECK:      lowlevel.ldmatrix trans %[[B]][%{{.*}}, %{{.*}}] : memref<32x8xf16, "lcl"> -> i32, i32

// The OpenCL: the XOR on the column of the local address, 64 bytes a row (no padding).
// CL:      __local ushort [[A:v[0-9]+]][1024];
// CL:      const int [[X:v[0-9]+]] = {{v[0-9]+}} ^ {{v[0-9]+}};
// CL-NEXT: vstore8({{v[0-9]+}}, (size_t)0, [[A]] + {{v[0-9]+}} * 32 + [[X]]);

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<32x64xf16>, %B: memref<64x8xf16>) -> memref<32x8xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f16, f16], mda_size = [32, 8, 64], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1], num_wi = [4, 8, 1], lt_size = [32, 8, 32],
                          pt_size = [8, 1, 16], inp_mem = [["lcl", "lcl"], ["glb", "glb"]],
                          res_mem = ["prv"], vector_width = 1, mma = "f16", lcl_swizzle = 1>}
    (%A, %B) : (memref<32x64xf16>, memref<64x8xf16>) -> memref<32x8xf32>
  func.return %C : memref<32x8xf32>
}
