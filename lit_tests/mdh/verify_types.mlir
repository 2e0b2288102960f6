// RUN: not mdh-opt %s --split-input-file 2>&1 | filecheck %s --match-full-lines

// Every rule of the verifier about `inp_types`, `out_types`, `mda_size` and the operand
// and result types.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_types: 1 types for 2 input buffers
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": out_types: 2 types for 1 results
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32, f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_types: input type memref<4xf32> does not have element type f64
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f64], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": out_types: result type memref<8xf32> does not have element type i32
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [i32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<?x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_types: input type memref<?x4xf32> must have a static shape
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<?x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<?xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": out_types: result type memref<?xf32> must have a static shape
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<?xf32>
  func.return %w : memref<?xf32>
}

// -----

func.func @mul(%a: f16, %b: f16) -> f16 {
  %r = arith.mulf %a, %b : f16
  func.return %r : f16
}
func.func @mv(%M: memref<8x4xf16>, %v: memref<4xf16>) -> memref<8xf16> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": out_types: unsupported element type f16 (expected f32, f64, i32 or i64) (f16 and bf16 are input types: outputs are computed in f32)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f16, f16], mda_size = [8, 4], out_types = [f16]}
    (%M, %v) : (memref<8x4xf16>, memref<4xf16>) -> memref<8xf16>
  func.return %w : memref<8xf16>
}

// -----

func.func @mul(%a: i16, %b: i16) -> i32 {
  %x = arith.extsi %a : i16 to i32
  %y = arith.extsi %b : i16 to i32
  %r = arith.muli %x, %y : i32
  func.return %r : i32
}
func.func @mv(%M: memref<8x4xi16>, %v: memref<4xi16>) -> memref<8xi32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_types: unsupported element type i16 (expected f32, f64, i32, i64, f16 or bf16)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [i16, i16], mda_size = [8, 4], out_types = [i32]}
    (%M, %v) : (memref<8x4xi16>, memref<4xi16>) -> memref<8xi32>
  func.return %w : memref<8xi32>
}

// -----

// A bf16 input is read as f32: a scalar function taking bf16 is refused.
func.func @mul(%a: bf16, %b: f32) -> f32 {
  %x = arith.extf %a : bf16 to f32
  %r = arith.mulf %x, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xbf16>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @mul takes (bf16, f32); expected one argument per input access (f32, f32; f16 and bf16 inputs are read as f32), optionally followed by 2 index arguments
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [bf16, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xbf16>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": precision: unknown precision "fp8" (expected one of ['ieee', 'tf32'])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32], precision = "fp8"}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf16>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": precision: "tf32" rounds f32 inputs, but input 1 has element type f16
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f16], mda_size = [8, 4], out_types = [f32], precision = "tf32"}
    (%M, %v) : (memref<8x4xf32>, memref<4xf16>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @cmp(%a: f32, %b: f32) -> i1 {
  %r = arith.cmpf olt, %a, %b : f32
  func.return %r : i1
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xi1> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": out_types: unsupported element type i1 (expected f32, f64, i32 or i64)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @cmp, combine_ops = ["cc", ["pw", "or"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [i1]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xi1>
  func.return %w : memref<8xi1>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": mda_size: sizes must be positive integers, got 0 : i64
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 0], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": mda_size: sizes must be positive integers, got -4 : i64
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, -4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": mda_size: sizes must be positive integers, got "4"
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, "4"], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @one() -> f32 {
  %r = arith.constant 1.0 : f32
  func.return %r : f32
}
func.func @none() -> memref<f32> {
  // CHECK-NEXT: {{.*}}verify_types.mlir:[[# @LINE + 1]]:3: error: mdh.compute "none": mda_size: at least one dimension is required
  %w = mdh.compute "none"
    {inp_view = [], md_hom = {scalar_func = @one, combine_ops = []}, out_view = [[affine_map<() -> ()>]]}
    {inp_types = [], mda_size = [], out_types = [f32]}
    () : () -> memref<f32>
  func.return %w : memref<f32>
}

// CHECK-NOT: {{.*}}Traceback{{.*}}
