// RUN: xdsl-opt %s --split-input-file -p convert-linalg-to-mdh | filecheck %s

// convert-linalg-to-mdh on named and generic ops, memrefs and tensors. Checked: views
// from the indexing maps, combine operators from the iterator types and the reduction,
// the scalar function, the filled output dropped, and how the result reaches the users.

// A named op; the filled allocation is replaced by the result.
func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
  %C = memref.alloc() : memref<10x20xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<10x20xf32>)
  linalg.matmul ins(%A, %B : memref<10x16xf32>, memref<16x20xf32>) outs(%C : memref<10x20xf32>)
  func.return %C : memref<10x20xf32>
}

// CHECK:       func.func @matmul_f(%0: f32, %1: f32) -> f32 {
// CHECK-NEXT:    %2 = arith.mulf %0, %1 : f32
// CHECK-NEXT:    func.return %2 : f32
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @matmul(%A: memref<10x16xf32>, %B: memref<16x20xf32>) -> memref<10x20xf32> {
// CHECK-NEXT:    %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %C = mdh.compute "matmul" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d2, d1)>]], md_hom = {scalar_func = @matmul_f, combine_ops = ["cc", "cc", ["pw", "add"]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1)>]]} {inp_types = [f32, f32], mda_size = [10, 20, 16], out_types = [f32]} (%A, %B) : (memref<10x16xf32>, memref<16x20xf32>) -> memref<10x20xf32>
// CHECK-NEXT:    func.return %C : memref<10x20xf32>
// CHECK-NEXT:  }

// -----

// A max-reduction on tensors, filled with -inf.
func.func @colmax(%X: tensor<7x5xf32>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%X : tensor<7x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  func.return %r : tensor<5xf32>
}

// CHECK:       func.func @colmax_f(%0: f32) -> f32 {
// CHECK-NEXT:    func.return %0 : f32
// CHECK-NEXT:  }
// CHECK:         %0 = bufferization.to_buffer %X read_only : tensor<7x5xf32> to memref<7x5xf32>
// CHECK-NEXT:    %1 = mdh.compute "colmax" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @colmax_f, combine_ops = {{\[\[}}"pw", "max"], "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d1)>]]} {{.*}} (%0) : (memref<7x5xf32>) -> memref<5xf32>
// CHECK-NEXT:    %r = bufferization.to_tensor %1 restrict : memref<5xf32> to tensor<5xf32>
// CHECK-NEXT:    func.return %r : tensor<5xf32>

// -----

// Destination passing: the result is copied into the argument; the fill is dropped.
func.func @dot(%X: memref<9xi32>, %Y: memref<9xi32>, %C: memref<i32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%C : memref<i32>)
  linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%X, %Y : memref<9xi32>, memref<9xi32>) outs(%C : memref<i32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %s = arith.addi %p, %acc : i32
    linalg.yield %s : i32
  }
  func.return
}

// CHECK:       func.func @dot(%X: memref<9xi32>, %Y: memref<9xi32>, %C: memref<i32>) {
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    %0 = mdh.compute "dot" {{.*}}combine_ops = {{\[\[}}"pw", "add"]]{{.*}} (%X, %Y) : (memref<9xi32>, memref<9xi32>) -> memref<i32>
// CHECK-NEXT:    "memref.copy"(%0, %C) : (memref<i32>, memref<i32>) -> ()
// CHECK-NEXT:    func.return

// -----

// No reduction: the old value of the output is read (an extra input), and linalg.index
// becomes the scalar function's index arguments; the outside constant is cloned in.
func.func @shift(%X: memref<3x4xf32>, %C: memref<4x3xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%X : memref<3x4xf32>) outs(%C : memref<4x3xf32>) {
  ^bb0(%x: f32, %c: f32):
    %i = linalg.index 0 : index
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %c : f32
    %t = arith.addf %s, %f : f32
    linalg.yield %t : f32
  }
  func.return
}

// CHECK:       func.func @shift_f(%0: f32, %1: f32, %2: index, %3: index) -> f32 {
// CHECK-NEXT:    %n = arith.index_cast %2 : index to i32
// CHECK-NEXT:    %f = arith.sitofp %n : i32 to f32
// CHECK-NEXT:    %two = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %m = arith.mulf %0, %two : f32
// CHECK-NEXT:    %s = arith.addf %m, %1 : f32
// CHECK-NEXT:    %t = arith.addf %s, %f : f32
// CHECK-NEXT:    func.return %t : f32
// CHECK-NEXT:  }
// CHECK:         %0 = mdh.compute "shift" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d1, d0)>], [affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @shift_f, combine_ops = ["cc", "cc"]}, {{.*}} (%X, %C) : (memref<3x4xf32>, memref<4x3xf32>) -> memref<4x3xf32>
// CHECK-NEXT:    "memref.copy"(%0, %C) : (memref<4x3xf32>, memref<4x3xf32>) -> ()

// -----

// linalg.reduce (after MLIR's mlir/test/Dialect/Linalg/roundtrip.mlir, @reduce) is a pw
// combine over its `dimensions`; the output view drops them.
func.func @reduce(%input: tensor<16x32x64xf32>) -> tensor<16x64xf32> {
  %e = tensor.empty() : tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %reduce = linalg.reduce ins(%input : tensor<16x32x64xf32>) outs(%init : tensor<16x64xf32>)
      dimensions = [1]
      (%in: f32, %out: f32) {
        %0 = arith.addf %out, %in : f32
        linalg.yield %0 : f32
      }
  func.return %reduce : tensor<16x64xf32>
}

// CHECK:       func.func @reduce_f(%0: f32) -> f32 {
// CHECK-NEXT:    func.return %0 : f32
// CHECK-NEXT:  }
// CHECK:         %0 = bufferization.to_buffer %input read_only : tensor<16x32x64xf32> to memref<16x32x64xf32>
// CHECK-NEXT:    %1 = mdh.compute "reduce" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1, d2)>]], md_hom = {scalar_func = @reduce_f, combine_ops = ["cc", ["pw", "add"], "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>]]} {inp_types = [f32], mda_size = [16, 32, 64], out_types = [f32]} (%0) : (memref<16x32x64xf32>) -> memref<16x64xf32>
// CHECK-NEXT:    %reduce = bufferization.to_tensor %1 restrict : memref<16x64xf32> to tensor<16x64xf32>
// CHECK-NEXT:    func.return %reduce : tensor<16x64xf32>

// -----

// linalg.broadcast reads its input along the dimensions it does not add.
func.func @broadcast(%X: memref<5x3xf32>) -> memref<5x4x3xf32> {
  %C = memref.alloc() : memref<5x4x3xf32>
  linalg.broadcast ins(%X : memref<5x3xf32>) outs(%C : memref<5x4x3xf32>) dimensions = [1]
  func.return %C : memref<5x4x3xf32>
}

// CHECK:         %C = mdh.compute "broadcast" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>]], md_hom = {scalar_func = @broadcast_f, combine_ops = ["cc", "cc", "cc"]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1, d2)>]]} {{.*}} (%X) : (memref<5x3xf32>) -> memref<5x4x3xf32>
// CHECK-NEXT:    func.return %C : memref<5x4x3xf32>

// -----

// C += A B: the old C is one more input (the output's view), combined by the reduction's
// operator at the first point of the reduction dimension: out = C + sum_k A B.
func.func @gemm(%A: memref<4x3xf32>, %B: memref<3x5xf32>, %C: memref<4x5xf32>) {
  linalg.matmul ins(%A, %B : memref<4x3xf32>, memref<3x5xf32>) outs(%C : memref<4x5xf32>)
  func.return
}

// CHECK:       func.func @gemm_f(%0: f32, %1: f32, %2: f32, %3: index, %4: index, %5: index) -> f32 {
// CHECK-NEXT:    %6 = arith.mulf %0, %1 : f32
// CHECK-NEXT:    %7 = arith.constant 0 : index
// CHECK-NEXT:    %8 = arith.cmpi eq, %5, %7 : index
// CHECK-NEXT:    %9 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %10 = arith.select %8, %2, %9 : f32
// CHECK-NEXT:    %11 = arith.addf %6, %10 : f32
// CHECK-NEXT:    func.return %11 : f32
// CHECK-NEXT:  }
// CHECK:         %0 = mdh.compute "gemm" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d2, d1)>], [affine_map<(d0, d1, d2) -> (d0, d1)>]], md_hom = {scalar_func = @gemm_f, combine_ops = ["cc", "cc", ["pw", "add"]]}, {{.*}} (%A, %B, %C) : (memref<4x3xf32>, memref<3x5xf32>, memref<4x5xf32>) -> memref<4x5xf32>
// CHECK-NEXT:    "memref.copy"(%0, %C) : (memref<4x5xf32>, memref<4x5xf32>) -> ()

// -----

// A max over two reduction dimensions into a 5.0-filled tensor (MLIR's
// test-tensor-matmul.mlir accumulates likewise into 1000.0): the fill is dropped, its
// constant folded in where both reduction indices are 0.
func.func @max2(%X: tensor<3x4x6xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %five = arith.constant 5 : i32
  %init = linalg.fill ins(%five : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.reduce ins(%X : tensor<3x4x6xi32>) outs(%init : tensor<4xi32>) dimensions = [0, 2]
      (%in: i32, %out: i32) {
        %m = arith.maxsi %in, %out : i32
        linalg.yield %m : i32
      }
  func.return %r : tensor<4xi32>
}

// CHECK:       func.func @max2_f(%0: i32, %1: index, %2: index, %3: index) -> i32 {
// CHECK-NEXT:    %4 = arith.constant 0 : index
// CHECK-NEXT:    %5 = arith.cmpi eq, %1, %4 : index
// CHECK-NEXT:    %6 = arith.cmpi eq, %3, %4 : index
// CHECK-NEXT:    %7 = arith.andi %5, %6 : i1
// CHECK-NEXT:    %five = arith.constant 5 : i32
// CHECK-NEXT:    %8 = arith.constant -2147483648 : i32
// CHECK-NEXT:    %9 = arith.select %7, %five, %8 : i32
// CHECK-NEXT:    %10 = arith.maxsi %0, %9 : i32
// CHECK-NEXT:    func.return %10 : i32
// CHECK-NEXT:  }
// CHECK:         %1 = mdh.compute "max2" {{.*}}combine_ops = {{\[\[}}"pw", "max"], "cc", ["pw", "max"]]{{.*}} (%0) : (memref<3x4x6xi32>) -> memref<4xi32>
// CHECK-NEXT:    %r = bufferization.to_tensor %1 restrict : memref<4xi32> to tensor<4xi32>

// -----

// A constant scalar operand is inlined; a 0-d generic runs on one dimension of size 1,
// a pw(mul) of its one value.
func.func @axpy(%X: memref<6xf32>, %Y: memref<6xf32>) -> memref<6xf32> {
  %C = memref.alloc() : memref<6xf32>
  %a = arith.constant 2.5 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%a, %X, %Y : f32, memref<6xf32>, memref<6xf32>) outs(%C : memref<6xf32>) {
  ^bb0(%s: f32, %x: f32, %y: f32, %c: f32):
    %m = arith.mulf %s, %x : f32
    %r = arith.addf %m, %y : f32
    linalg.yield %r : f32
  }
  func.return %C : memref<6xf32>
}

// CHECK:       func.func @axpy_f(%0: f32, %1: f32) -> f32 {
// CHECK-NEXT:    %a = arith.constant 2.500000e+00 : f32
// CHECK-NEXT:    %m = arith.mulf %a, %0 : f32
// CHECK:         %C = mdh.compute "axpy" {inp_view = {{\[\[}}affine_map<(d0) -> (d0)>], [affine_map<(d0) -> (d0)>]]{{.*}} (%X, %Y) : (memref<6xf32>, memref<6xf32>) -> memref<6xf32>

// -----

func.func @zero_d(%X: memref<f32>, %Y: memref<f32>) -> memref<f32> {
  %C = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%X, %Y : memref<f32>, memref<f32>) outs(%C : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  func.return %C : memref<f32>
}

// CHECK:         %C = mdh.compute "zero_d" {inp_view = {{\[\[}}affine_map<(d0) -> ()>], [affine_map<(d0) -> ()>]], md_hom = {scalar_func = @zero_d_f, combine_ops = {{\[\[}}"pw", "mul"]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>]]} {inp_types = [f32, f32], mda_size = [1], out_types = [f32]} (%X, %Y) : (memref<f32>, memref<f32>) -> memref<f32>
