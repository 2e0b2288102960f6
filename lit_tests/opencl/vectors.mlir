// RUN: mdh-opt %s --lower-to-opencl | filecheck %s
// RUN: mdh-opt %s --lower-to-opencl | filecheck %s --check-prefix=MASK

// Vector code as OpenCL: vector types, aligned vector reads and writes through floatN
// pointers (vloadN / vstoreN where unaligned: passes/lowlevel-align-vectors.mlir),
// broadcasts, vector versions of scalar functions, a vector-typed accumulator with a
// scalar pointer view, fused multiply-adds, #pragma unroll (full for small loops over
// private arrays, up to 512 copies of the innermost bodies, a rolled loop inside counting
// its body once), the flush of a vector accumulator as vector stores, and the lanes of a
// vectorized reduction combined through .sN components.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @scaled(%x: f32, %b: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %p = arith.mulf %x, %c : f32
  %s = arith.addf %p, %b : f32
  func.return %s : f32
}
func.func @matmul(%A: memref<4x80xf32>, %B: memref<80x16xf32>) -> memref<4x16xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [4, 16, 80], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [1, 1, 1], lt_size = [2, 8, 80], pt_size = [2, 8, 80],
                          loop_order = [[0, 1, 2], [2, 0, 1]], vector_width = 4, unroll = 2>}
    (%A, %B) : (memref<4x80xf32>, memref<80x16xf32>) -> memref<4x16xf32>
  func.return %C : memref<4x16xf32>
}
func.func @bias(%x: memref<3x16xf32>, %b: memref<16xf32>) -> memref<3x16xf32> {
  %y = mdh.compute "bias"
    {inp_view = [[affine_map<(h, c) -> (h, c)>], [affine_map<(h, c) -> (c)>]],
     md_hom = {scalar_func = @scaled, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(h, c) -> (h, c)>]]}
    {inp_types = [f32, f32], mda_size = [3, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 1], num_wi = [1, 1], lt_size = [1, 16], pt_size = [1, 16],
                          vector_width = 8>}
    (%x, %b) : (memref<3x16xf32>, memref<16xf32>) -> memref<3x16xf32>
  func.return %y : memref<3x16xf32>
}

func.func @dot(%x: memref<32xf32>, %y: memref<32xf32>) -> memref<f32> {
  %d = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", "add"]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [32], out_types = [f32],
     config = #mdh.config<num_wg = [1], num_wi = [1], lt_size = [32], pt_size = [32], vector_width = 16>}
    (%x, %y) : (memref<32xf32>, memref<32xf32>) -> memref<f32>
  func.return %d : memref<f32>
}

// B shared by 8 batches of 6 row tiles: the loop over the 24 products and the tile's 4 rows
// unrolls (96 copies); the loops over the 6 row tiles (576) and the 8 batches (768) stay
// rolled.
func.func @batched(%A: memref<8x24x24xf32>, %B: memref<24x16xf32>) -> memref<8x24x16xf32> {
  %C = mdh.compute "batched"
    {inp_view = [[affine_map<(b, i, j, k) -> (b, i, k)>], [affine_map<(b, i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(b, i, j, k) -> (b, i, j)>]]}
    {inp_types = [f32, f32], mda_size = [8, 24, 16, 24], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1, 1, 1], num_wi = [1, 1, 1, 1], lt_size = [8, 24, 16, 24], pt_size = [1, 4, 16, 24],
                          inp_mem = [["glb", "glb"], ["glb", "glb"]], loop_order = [[0, 1, 2, 3], [3, 0, 1, 2]], vector_width = 16>}
    (%A, %B) : (memref<8x24x24xf32>, memref<24x16xf32>) -> memref<8x24x16xf32>
  func.return %C : memref<8x24x16xf32>
}

// CHECK:       static float8 mdh_scaled_v8(float8 [[X:v[0-9]+]], float8 [[B:v[0-9]+]]) {
// CHECK-NEXT:    const float8 [[C:v[0-9]+]] = (float8)(2.0f);
// CHECK-NEXT:    const float8 [[P:v[0-9]+]] = [[X]] * [[C]];
// CHECK-NEXT:    const float8 [[S:v[0-9]+]] = [[P]] + [[B]];
// CHECK-NEXT:    return [[S]];

// CHECK-LABEL: __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void matmul_0(
// CHECK-SAME:    __global const float* restrict [[MA:v[0-9]+]], __global const float* restrict [[MB:v[0-9]+]], __global float* restrict [[MC:v[0-9]+]]) {
// CHECK-NEXT:    float4 [[WIDE:v[0-9]+]][4];
// CHECK-NEXT:    float* [[ACC:v[0-9]+]] = (float*)[[WIDE]];
// CHECK:         #pragma unroll
// CHECK-NEXT:    for (int [[I:v[0-9]+]] = 0; [[I]] < 2; [[I]] += 1) {
// CHECK-NEXT:      #pragma unroll
// CHECK-NEXT:      for (int [[J:v[0-9]+]] = 0; [[J]] < 8; [[J]] += 1) {
// CHECK-NEXT:        [[ACC]][[[I]] * 8 + [[J]]] = 0.0f;
// CHECK:         #pragma unroll 2
// CHECK-NEXT:    for (int [[K:v[0-9]+]] = 0; [[K]] < 80; [[K]] += 1) {
// CHECK-NEXT:      #pragma unroll
// CHECK-NEXT:      for (int [[EI:v[0-9]+]] = 0; [[EI]] < 2; [[EI]] += 1) {
// CHECK:             #pragma unroll
// CHECK-NEXT:        for (int [[EJ:v[0-9]+]] = 0; [[EJ]] < 2; [[EJ]] += 1) {
// CHECK:               const float4 [[BV:v[0-9]+]] = *(const __global float4*)([[MB]] + [[K]] * 16 + v{{[0-9]+}});
// CHECK-NEXT:          const float4 [[OLD:v[0-9]+]] = [[WIDE]][[[EI]] * 2 + [[EJ]]];
// CHECK-NEXT:          const float4 [[AV:v[0-9]+]] = (float4)(v{{[0-9]+}});
// CHECK-NEXT:          const float4 [[NEW:v[0-9]+]] = fma([[AV]], [[BV]], [[OLD]]);
// CHECK-NEXT:          [[WIDE]][[[EI]] * 2 + [[EJ]]] = [[NEW]];
// CHECK:         #pragma unroll
// CHECK-NEXT:    for (int [[FI:v[0-9]+]] = 0; [[FI]] < 2; [[FI]] += 1) {
// CHECK:           #pragma unroll
// CHECK-NEXT:      for (int [[FJ:v[0-9]+]] = 0; [[FJ]] < 2; [[FJ]] += 1) {
// CHECK:             const float4 [[OUT:v[0-9]+]] = [[WIDE]][[[FI]] * 2 + [[FJ]]];
// CHECK-NEXT:        *(__global float4*)([[MC]] + {{.*}}) = [[OUT]];

// CHECK-LABEL: __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void bias_0(
// CHECK:         const float8 [[XV:v[0-9]+]] = *(const __global float8*)(v{{[0-9]+}} + v{{[0-9]+}} * 16 + [[CI:v[0-9]+]]);
// CHECK-NEXT:    const float8 [[BV8:v[0-9]+]] = *(const __global float8*)(v{{[0-9]+}} + [[CI]]);
// CHECK-NEXT:    const float8 [[YV:v[0-9]+]] = mdh_scaled_v8([[XV]], [[BV8]]);
// CHECK-NEXT:    *(__global float8*)(v{{[0-9]+}} + v{{[0-9]+}} * 16 + [[CI]]) = [[YV]];

// CHECK-LABEL: __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void dot_0(
// CHECK-NEXT:    float16 [[LANES:v[0-9]+]][1];
// CHECK-NEXT:    const float16 [[ZERO:v[0-9]+]] = (float16)(0.0f);
// CHECK-NEXT:    [[LANES]][0] = [[ZERO]];
// CHECK:         for (int [[K:v[0-9]+]] = 0; [[K]] < 2; [[K]] += 1) {
// CHECK:           const float16 [[XV:v[0-9]+]] = *(const __global float16*)(v{{[0-9]+}} + [[KI:v[0-9]+]]);
// CHECK-NEXT:      const float16 [[YV:v[0-9]+]] = *(const __global float16*)(v{{[0-9]+}} + [[KI]]);
// CHECK-NEXT:      const float16 [[OLD:v[0-9]+]] = [[LANES]][0];
// CHECK-NEXT:      const float16 [[NEW:v[0-9]+]] = fma([[XV]], [[YV]], [[OLD]]);
// CHECK-NEXT:      [[LANES]][0] = [[NEW]];
// CHECK:         const float16 [[L:v[0-9]+]] = [[LANES]][0];
// CHECK-NEXT:    const float [[L0:v[0-9]+]] = [[L]].s0;
// CHECK:         const float [[LF:v[0-9]+]] = [[L]].sf;
// CHECK-NEXT:    const float [[S01:v[0-9]+]] = [[L0]] + v{{[0-9]+}};

// CHECK-LABEL: __kernel __attribute__((reqd_work_group_size(1, 1, 1))) void batched_0(
// CHECK:         = 0.0f;
// CHECK-NOT:     #pragma
// CHECK:         for (int [[BT:v[0-9]+]] = 0; [[BT]] < 8; [[BT]] += 1) {
// CHECK-NEXT:      for (int [[IT:v[0-9]+]] = 0; [[IT]] < 6; [[IT]] += 1) {
// CHECK-NEXT:        const int v{{[0-9]+}} = [[IT]] * 4;
// CHECK-NEXT:        #pragma unroll
// CHECK-NEXT:        for (int [[KT:v[0-9]+]] = 0; [[KT]] < 24; [[KT]] += 1) {
// CHECK-NEXT:          #pragma unroll
// CHECK-NEXT:          for (int [[RT:v[0-9]+]] = 0; [[RT]] < 4; [[RT]] += 1) {

// relu through a compare at f64, plus the compare's truth as 1.0: on 4 lanes the compare
// gives an i64 mask, narrowed to select f32 lanes, and its truth is the mask and 1.
func.func @relu_plus(%x: f32) -> f32 {
  %z = arith.constant 0.0 : f64
  %w = arith.extf %x : f32 to f64
  %c = arith.cmpf ogt, %w, %z : f64
  %zero = arith.constant 0.0 : f32
  %r = arith.select %c, %x, %zero : f32
  %one = arith.uitofp %c : i1 to f32
  %s = arith.addf %r, %one : f32
  func.return %s : f32
}
func.func @act(%x: memref<2x8xf32>) -> memref<2x8xf32> {
  %y = mdh.compute "act"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @relu_plus, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [f32], mda_size = [2, 8], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [1, 8], pt_size = [1, 8],
                          vector_width = 4>}
    (%x) : (memref<2x8xf32>) -> memref<2x8xf32>
  func.return %y : memref<2x8xf32>
}

// MASK-LABEL: static float4 mdh_relu_plus_v4(float4 {{v[0-9]+}}) {
// MASK:         const long4 [[C:v[0-9]+]] = {{v[0-9]+}} > {{v[0-9]+}};
// MASK:         const int4 [[C32:v[0-9]+]] = convert_int4([[C]]);
// MASK-NEXT:    const float4 {{v[0-9]+}} = select({{v[0-9]+}}, {{v[0-9]+}}, [[C32]]);
// MASK:         const long4 [[BIT:v[0-9]+]] = [[C]] & {{v[0-9]+}};
// MASK-NEXT:    const float4 {{v[0-9]+}} = convert_float4([[BIT]]);
