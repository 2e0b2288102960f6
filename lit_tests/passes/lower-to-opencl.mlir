// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' > %t.whole
// RUN: mdh-opt %s -p 'mdh-default-config{device=gpu}' | mdh-opt -p 'mdh-check-config{device=gpu}' | mdh-opt -p mdh-tile | mdh-opt -p mdh-assign-asm | mdh-opt -p 'mdh-promote-memory{aligned_copies=true}' | mdh-opt -p mdh-place-combine | mdh-opt -p mdh-vectorize | mdh-opt -p lowlevel-expand | mdh-opt -p dce,cse | mdh-opt -p lowlevel-hoist-loads | mdh-opt -p lowlevel-align-vectors | mdh-opt -p 'lowlevel-async-copies{cp_async=true}' | mdh-opt -p lowlevel-swizzle-local > %t.steps
// RUN: diff %t.whole %t.steps
// RUN: mdh-opt %s -p lower-to-opencl > %t.cpu
// RUN: mdh-opt %s -p 'mdh-default-config{device=cpu},mdh-check-config{device=cpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand,dce,cse,lowlevel-hoist-loads,lowlevel-align-vectors,lowlevel-async-copies,lowlevel-swizzle-local' | diff %t.cpu -
// RUN: filecheck %s --input-file=%t.whole --check-prefixes=CHECK,GPU
// RUN: filecheck %s --input-file=%t.cpu --check-prefixes=CHECK,CPU
// RUN: filecheck %s --input-file=%t.whole --check-prefix=GONE
// RUN: filecheck %s --input-file=%t.cpu --check-prefix=GONE
// RUN: not mdh-opt %s -p 'lower-to-opencl{device=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// lower-to-opencl is the whole pipeline: the same IR as the passes run one by one (each
// result printed and parsed again by the next mdh-opt), dce and cse, then
// lowlevel-hoist-loads, lowlevel-align-vectors, lowlevel-async-copies (cp_async for a GPU) and
// lowlevel-swizzle-local.
// Its result holds only what the OpenCL printer maps
// one-to-one: kernels, launches, scf/arith/memref/func ops, ids and barriers. The configuration of an op is completed
// for the device class (device=cpu by default), and checked, so an explicit configuration
// that breaks a rule is refused.

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

// GONE-LABEL: builtin.module
// GONE-NOT:   mdh.compute "
// GONE-NOT:   lowlevel.{{tile_for|par_for|view_load|copy|fill|accumulate}}

// On the gpu class, matvec's 64 work-items combine in local memory; on the cpu class each
// work-group's single work-item adds up whole rows.
// CHECK-LABEL: lowlevel.kernel @matvec_0(
// GPU:           memref.alloca() {alignment = 16 : i64} : memref<64x1x1x1xf32, "lcl">
// GPU:           lowlevel.barrier
// CPU-NOT:       lowlevel.barrier
// CHECK-LABEL: func.func @matvec(
// CHECK-NEXT:    %w = memref.alloc() : memref<128xf32>
// GPU-NEXT:      lowlevel.launch @matvec_0(%M, %v, %w) global [8192, 1, 1] local [64, 1, 1]
// CPU-NEXT:      lowlevel.launch @matvec_0(%M, %v, %w) global [32, 1, 1] local [1, 1, 1]
// CHECK-NEXT:    func.return %w : memref<128xf32>
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @add]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32]}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// An explicit configuration is kept on both classes: the dot product over 4 work-groups
// gets a temporary and a combine kernel.
// CHECK-LABEL: lowlevel.kernel @dot_0(
// CHECK-LABEL: lowlevel.kernel @dot_0_combine(
// CHECK-LABEL: func.func @dot(
// CHECK-NEXT:    %r = memref.alloc() : memref<f32>
// CHECK-NEXT:    [[T:%[0-9]+]] = memref.alloc() : memref<4x1xf32>
// CHECK-NEXT:    lowlevel.launch @dot_0(%x, %y, %r, [[T]]) global [4, 1, 1] local [1, 1, 1]
// CHECK-NEXT:    lowlevel.launch @dot_0_combine([[T]], %r) global [64, 1, 1] local [64, 1, 1]
func.func @dot(%x: memref<100xf32>, %y: memref<100xf32>) -> memref<f32> {
  %r = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", @add]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [100], out_types = [f32],
     config = #mdh.config<num_wg = [4], num_wi = [1], lt_size = [25], pt_size = [25], ocl_dim = [[0], [1]],
                          wg_combine = "kernel">}
    (%x, %y) : (memref<100xf32>, memref<100xf32>) -> memref<f32>
  func.return %r : memref<f32>
}

// CHECK-LABEL: lowlevel.kernel @jacobi1d_0(
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK-LABEL: func.func @jacobi1d(
// GPU:           lowlevel.launch @jacobi1d_0(%x, %y) global [37, 1, 1] local [37, 1, 1]
// CPU:           lowlevel.launch @jacobi1d_0(%x, %y) global [3, 1, 1] local [1, 1, 1]
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32]}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}

// BAD: {{.*}}lower-to-opencl.mlir: error: mdh-default-config: unknown device class 'tpu' (cpu, gpu)
