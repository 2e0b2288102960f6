// RUN: not mdh-opt %s --split-input-file -p convert-linalg-to-mdh 2>&1 | filecheck %s

// What convert-linalg-to-mdh refuses: one line per op, naming it and the reason.

// out = out * 2 + x is not a reduction by one associative combine.
func.func @twice(%X: memref<7xf32>, %C: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%X : memref<7xf32>) outs(%C : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %acc, %two : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK: convert-linalg-to-mdh-errors.mlir:[[# @LINE - 11]]:3: error: linalg.generic: cannot convert to mdh.compute: output #0 is not updated as arith.addf(out, f(inputs)): not a single associative combine (add, mul, max, min, and, or, xor)

// -----

func.func @minus(%X: memref<7xf32>, %C: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%X : memref<7xf32>) outs(%C : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.subf %acc, %x : f32
    linalg.yield %s : f32
  }
  func.return
}

// CHECK-NEXT: convert-linalg-to-mdh-errors.mlir:[[# @LINE - 10]]:3: error: linalg.generic: cannot convert to mdh.compute: output #0 is reduced by arith.subf, not by a single associative combine

// -----

// A gather: the body loads from a buffer.
func.func @gather(%I: memref<6xi32>, %T: memref<10xf32>, %C: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%I : memref<6xi32>) outs(%C : memref<6xf32>) {
  ^bb0(%i: i32, %c: f32):
    %j = arith.index_cast %i : i32 to index
    %t = memref.load %T[%j] : memref<10xf32>
    linalg.yield %t : f32
  }
  func.return
}

// CHECK-NEXT: convert-linalg-to-mdh-errors.mlir:[[# @LINE - 11]]:3: error: linalg.generic: cannot convert to mdh.compute: its body holds memref.load; scalar functions hold arith and math ops

// -----

func.func @dynamic(%X: memref<?xf32>, %C: memref<?xf32>) {
  linalg.copy ins(%X : memref<?xf32>) outs(%C : memref<?xf32>)
  func.return
}

// CHECK-NEXT: convert-linalg-to-mdh-errors.mlir:[[# @LINE - 4]]:3: error: linalg.copy: cannot convert to mdh.compute: operand #0 has a dynamic shape (memref<?xf32>)
// CHECK-NOT:  error
