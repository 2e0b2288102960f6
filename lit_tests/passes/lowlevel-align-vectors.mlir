// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand,dce,cse' | mdh-opt -p lowlevel-align-vectors | filecheck %s
// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

// lowlevel-align-vectors marks a vector load or store `alignment = size` where a number
// dividing its element offset in every run is a multiple of its lanes and the base is
// aligned (a kernel's buffer argument, or a local/private array, whose alignment it
// raises); every local array is aligned to 16 bytes. The printer reads a marked access
// through a floatN pointer, an unmarked one with vloadN / vstoreN.
//
// pairs: y[i] = x[i] + x[i + 1], 4 lanes, x's 17-element box in local memory. The tile
// starts at a multiple of 16 and the lane loop steps by 4, so x[i] (offset 4k) and the
// store y[i] are aligned; x[i + 1] (offset 4k + 1) is not.

func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @pairs(%x: memref<34xf32>) -> memref<32xf32> {
  %y = mdh.compute "pairs"
    {inp_view = [[affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @add, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [32], out_types = [f32],
     config = #mdh.config<num_wg = [2], num_wi = [1], lt_size = [16], pt_size = [16],
                          inp_mem = [["lcl"], ["glb"]], vector_width = 4>}
    (%x) : (memref<34xf32>) -> memref<32xf32>
  func.return %y : memref<32xf32>
}

// CHECK:       lowlevel.kernel @pairs_0(%{{.*}}: memref<34xf32>, %[[Y:.*]]: memref<32xf32>)
// CHECK-NEXT:    %[[XL:.*]] = memref.alloca() {alignment = 16 : i64} : memref<17xf32, "lcl">
// CHECK:         scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %[[FOUR:.*]] {
// CHECK:           vector.load %[[XL]][%{{.*}}] {alignment = 16 : i64} : memref<17xf32, "lcl">, vector<4xf32>
// CHECK:           vector.load %[[XL]][%{{.*}}] : memref<17xf32, "lcl">, vector<4xf32>
// CHECK:           vector.store %{{.*}}, %[[Y]][%{{.*}}] {alignment = 16 : i64} : memref<32xf32>, vector<4xf32>

// CL:       __local float [[XL:v[0-9]+]][17] __attribute__((aligned(16)));
// CL:       const float4 [[A:v[0-9]+]] = *(const __local float4*)([[XL]] + v{{[0-9]+}});
// CL:       const float4 [[B:v[0-9]+]] = vload4((size_t)0, [[XL]] + v{{[0-9]+}});
// CL:       *(__global float4*)(v{{[0-9]+}} + v{{[0-9]+}}) = v{{[0-9]+}};
