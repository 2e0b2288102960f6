// RUN: mdh-opt %s --lower-to-opencl | filecheck %s
// RUN: mdh-opt %s --lower-to-opencl | filecheck %s --check-prefix=BF16
// RUN: mdh-opt %s --lower-to-opencl | filecheck %s --check-prefix=TF32

// Reduced precision as OpenCL, which holds no half value without cl_khr_fp16 (NVIDIA's
// OpenCL has none): f16 and bf16 elements are `ushort` in every memory (kernel
// arguments, local and private arrays), copies move the 16 bits as they are (a zero of
// boundary "zero" is the bits 0x0000), and only the computation's reads make floats of
// them: f16 with the core vload_half / vload_halfN through a half pointer, bf16 as the
// upper half of a float's bits. precision "tf32" rounds every f32 read to TF32 (round to
// nearest even at bit 13, NaN kept), scalar and vector.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// A 1-D convolution of f16 values with zero padding, the signal cached in local memory.
func.func @conv(%x: memref<30xf16>, %w: memref<3xf16>) -> memref<30xf32> {
  %y = mdh.compute "conv"
    {inp_view = [[affine_map<(i, r) -> (i + r - 1)>], [affine_map<(i, r) -> (r)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, r) -> (i)>]], boundary = ["zero", "none"]}
    {inp_types = [f16, f16], mda_size = [30, 3], out_types = [f32],
     config = #mdh.config<num_wg = [3, 1], num_wi = [2, 1], lt_size = [10, 3], pt_size = [5, 3],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]], vector_width = 1>}
    (%x, %w) : (memref<30xf16>, memref<3xf16>) -> memref<30xf32>
  func.return %y : memref<30xf32>
}
// CHECK-LABEL: __kernel {{.*}}void conv_0(__global const ushort* restrict v{{[0-9]+}}, __global const ushort* restrict v{{[0-9]+}}, __global float* restrict v{{[0-9]+}}) {
// CHECK:         __local ushort [[LCL:v[0-9]+]][12]
// CHECK:         const ushort [[RAW:v[0-9]+]] = v{{[0-9]+}}[v{{[0-9]+}}];
// CHECK:         const ushort [[BITS:v[0-9]+]] = v{{[0-9]+}} ? [[RAW]] : 0x0000;
// CHECK-NEXT:    [[LCL]][v{{[0-9]+}}] = [[BITS]];
// CHECK:         const float v{{[0-9]+}} = vload_half((size_t)0, (const __local half*)([[LCL]] + v{{[0-9]+}}));
// CHECK:         const float v{{[0-9]+}} = vload_half((size_t)0, (const __global half*)(v{{[0-9]+}} + v{{[0-9]+}}));

// A bf16 matrix-vector product on vectors of 4 columns: the matrix's reads become
// vectors of floats, the vector's element is broadcast.
func.func @mv(%M: memref<8x16xbf16>, %v: memref<16xbf16>) -> memref<16xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(j, i) -> (i, j)>], [affine_map<(j, i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(j, i) -> (j)>]]}
    {inp_types = [bf16, bf16], mda_size = [16, 8], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 1], lt_size = [16, 8], pt_size = [16, 8],
                          loop_order = [[0, 1], [1, 0]], vector_width = 4>}
    (%M, %v) : (memref<8x16xbf16>, memref<16xbf16>) -> memref<16xf32>
  func.return %w : memref<16xf32>
}
// BF16-LABEL: __kernel {{.*}}void mv_0(
// BF16:         const float4 v{{[0-9]+}} = as_float4(convert_uint4(vload4((size_t)0, v{{[0-9]+}} + v{{[0-9]+}} * 16 + v{{[0-9]+}})) << 16);
// BF16:         const float v{{[0-9]+}} = as_float((uint)*(v{{[0-9]+}} + v{{[0-9]+}}) << 16);

// A dot product of f32 values read as TF32, on vectors of 4.
func.func @dot(%x: memref<32xf32>, %y: memref<32xf32>) -> memref<f32> {
  %d = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", "add"]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [32], out_types = [f32], precision = "tf32",
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [32], pt_size = [32], vector_width = 4>}
    (%x, %y) : (memref<32xf32>, memref<32xf32>) -> memref<f32>
  func.return %d : memref<f32>
}
// TF32-LABEL: __kernel {{.*}}void dot_0(
// TF32:         const float4 [[X:v[0-9]+]] = *(const __global float4*)(v{{[0-9]+}} + v{{[0-9]+}});
// TF32-NEXT:    const float4 [[Y:v[0-9]+]] = *(const __global float4*)(v{{[0-9]+}} + v{{[0-9]+}});
// TF32-NEXT:    const float4 v{{[0-9]+}} = select(as_float4((as_uint4([[X]]) + 0xfffu + ((as_uint4([[X]]) >> 13) & 1u)) & 0xffffe000u), [[X]], isnan([[X]]));
// TF32-NEXT:    const float4 v{{[0-9]+}} = select(as_float4((as_uint4([[Y]]) + 0xfffu + ((as_uint4([[Y]]) >> 13) & 1u)) & 0xffffe000u), [[Y]], isnan([[Y]]));
