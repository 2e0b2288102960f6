// RUN: mdh-opt %s -p mdh-bufferize | filecheck %s
// RUN: mdh-opt %s -p mdh-bufferize | mdh-opt -p mdh-bufferize | filecheck %s

// mdh-bufferize gives a host function of tensors (what convert-linalg-to-mdh makes of
// linalg on tensors) buffers: arguments and results become memrefs, to_buffer and
// to_tensor disappear, a tensor constant and a fill of a constant become constant
// globals read by memref.get_global, tensor.empty becomes memref.alloc and is erased
// when only a fill used it. Running it again changes nothing.

func.func @f(%0: f32, %1: f32, %2: f32) -> f32 {
  %3 = arith.addf %0, %1 : f32
  %4 = arith.mulf %3, %2 : f32
  func.return %4 : f32
}
func.func @scale(%A: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %k = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %0 = bufferization.to_buffer %A read_only : tensor<4x3xf32> to memref<4x3xf32>
  %1 = bufferization.to_buffer %k read_only : tensor<3xf32> to memref<3xf32>
  %2 = bufferization.to_buffer %f read_only : tensor<4x3xf32> to memref<4x3xf32>
  %3 = mdh.compute "scale" {inp_view = [[affine_map<(d0, d1) -> (d0, d1)>], [affine_map<(d0, d1) -> (d1)>], [affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @f, combine_ops = ["cc", "cc"]}, out_view = [[affine_map<(d0, d1) -> (d0, d1)>]]} {inp_types = [f32, f32, f32], mda_size = [4, 3], out_types = [f32]} (%0, %1, %2) : (memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>) -> memref<4x3xf32>
  %r = bufferization.to_tensor %3 restrict : memref<4x3xf32> to tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// CHECK:      "memref.global"() <{sym_name = "scale_const", type = memref<3xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : memref<3xf32>, sym_visibility = "private", constant}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "scale_const_1", type = memref<4x3xf32>, initial_value = dense<1.500000e+00> : memref<4x3xf32>, sym_visibility = "private", constant}> : () -> ()
// CHECK-NEXT: func.func @scale(%A: memref<4x3xf32>) -> memref<4x3xf32> {
// CHECK-NEXT:   %k = memref.get_global @scale_const : memref<3xf32>
// CHECK-NEXT:   %f = memref.get_global @scale_const_1 : memref<4x3xf32>
// CHECK-NEXT:   %r = mdh.compute "scale" {{.*}} (%A, %k, %f) : (memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>) -> memref<4x3xf32>
// CHECK-NEXT:   func.return %r : memref<4x3xf32>
// CHECK-NEXT: }

// A tensor.empty that an op's result replaces (a reduction's output, filled with the
// identity the conversion dropped) is erased; functions of buffers are left as they are.

func.func @mm(%A: tensor<16x8xf32>, %B: tensor<8x12xf32>) -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.000000e+00 : f32
  %0 = bufferization.to_buffer %A read_only : tensor<16x8xf32> to memref<16x8xf32>
  %1 = bufferization.to_buffer %B read_only : tensor<8x12xf32> to memref<8x12xf32>
  %2 = mdh.compute "mm" {inp_view = [[affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d2, d1)>]], md_hom = {scalar_func = @g, combine_ops = ["cc", "cc", ["pw", "add"]]}, out_view = [[affine_map<(d0, d1, d2) -> (d0, d1)>]]} {inp_types = [f32, f32], mda_size = [16, 12, 8], out_types = [f32]} (%0, %1) : (memref<16x8xf32>, memref<8x12xf32>) -> memref<16x12xf32>
  %R = bufferization.to_tensor %2 restrict : memref<16x12xf32> to tensor<16x12xf32>
  func.return %R : tensor<16x12xf32>
}
func.func @g(%0: f32, %1: f32) -> f32 {
  %2 = arith.mulf %0, %1 : f32
  func.return %2 : f32
}
func.func @buffers(%A: memref<16x8xf32>, %B: memref<8x12xf32>, %C: memref<16x12xf32>) {
  %2 = mdh.compute "mm" {inp_view = [[affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d2, d1)>]], md_hom = {scalar_func = @g, combine_ops = ["cc", "cc", ["pw", "add"]]}, out_view = [[affine_map<(d0, d1, d2) -> (d0, d1)>]]} {inp_types = [f32, f32], mda_size = [16, 12, 8], out_types = [f32]} (%A, %B) : (memref<16x8xf32>, memref<8x12xf32>) -> memref<16x12xf32>
  "memref.copy"(%2, %C) : (memref<16x12xf32>, memref<16x12xf32>) -> ()
  func.return
}

// CHECK:      func.func @mm(%A: memref<16x8xf32>, %B: memref<8x12xf32>) -> memref<16x12xf32> {
// CHECK-NEXT:   %R = mdh.compute "mm" {{.*}} (%A, %B) : (memref<16x8xf32>, memref<8x12xf32>) -> memref<16x12xf32>
// CHECK-NEXT:   func.return %R : memref<16x12xf32>
// CHECK-NEXT: }
// CHECK:      func.func @buffers(%A: memref<16x8xf32>, %B: memref<8x12xf32>, %C: memref<16x12xf32>) {
// CHECK-NEXT:   %0 = mdh.compute "mm"
// CHECK-NEXT:   "memref.copy"(%0, %C)
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
