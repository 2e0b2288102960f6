// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand' | filecheck %s --check-prefix=BEFORE
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand' | mdh-opt -p lowlevel-tf32-ptx | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand,lowlevel-tf32-ptx' -t opencl | filecheck %s --check-prefix=CL
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' | filecheck %s
// RUN: mdh-opt %s -p 'lower-to-opencl{device=cpu}' | filecheck %s --check-prefix=BEFORE

// lowlevel-tf32-ptx on an op of precision "tf32" computed with FP32 FMAs: the
// copies of A and B into local memory round what they store (mdh-promote-memory), four
// elements at a time; the pass marks each lowlevel.round_tf32 `ptx`, and the printer
// emits one `cvt.rn.tf32.f32` per element instead of the integer rounding. The GPU
// pipeline (compute capability 9.0) runs it; the CPU one does not.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @mm(%A: memref<64x32xf32>, %B: memref<32x64xf32>) -> memref<64x64xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [64, 64, 32], out_types = [f32], precision = "tf32",
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [8, 8, 1], lt_size = [32, 32, 8], pt_size = [4, 4, 1],
       inp_mem = [["lcl", "lcl"], ["glb", "glb"]], res_mem = ["prv"], combine_layer = "end", vector_width = 4>}
    (%A, %B) : (memref<64x32xf32>, memref<32x64xf32>) -> memref<64x64xf32>
  func.return %C : memref<64x64xf32>
}

// BEFORE-NOT: {ptx}
// BEFORE:     lowlevel.round_tf32 %{{.*}} : vector<4xf32>
// BEFORE-NOT: {ptx}

// CHECK:      lowlevel.round_tf32 %{{.*}} {ptx} : vector<4xf32>
// CHECK-NOT:  lowlevel.round_tf32 %{{[0-9]+}} :

// CL:      uint [[R:v[0-9]+]]_0, [[R]]_1, [[R]]_2, [[R]]_3;
// CL-NEXT: __asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"([[R]]_0) : "f"([[X:v[0-9]+]].s0));
// CL-NEXT: __asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"([[R]]_1) : "f"([[X]].s1));
// CL-NEXT: __asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"([[R]]_2) : "f"([[X]].s2));
// CL-NEXT: __asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"([[R]]_3) : "f"([[X]].s3));
// CL-NEXT: const float4 [[R]] = as_float4((uint4)([[R]]_0, [[R]]_1, [[R]]_2, [[R]]_3));
// CL-NOT:  0xffffe000u
