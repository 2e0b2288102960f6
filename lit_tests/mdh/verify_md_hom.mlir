// RUN: not mdh-opt %s --split-input-file 2>&1 | filecheck %s --match-full-lines

// Every rule of the verifier about `md_hom`: its keys, the combine operators, and the
// signatures of the scalar and combine functions.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: expected exactly the keys scalar_func and combine_ops
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]], combine = "add"},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: expected exactly the keys scalar_func and combine_ops
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func must be a function symbol, got "mul"
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = "mul", combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: 1 combine operators for 2 dimensions
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: combine_ops must be a list, got "cc"
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = "cc"},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: malformed combine operator ["pw"] (expected "cc", ["pw", @f] or ["ps", @f])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: malformed combine operator ["reduce", "add"] (expected "cc", ["pw", @f] or ["ps", @f])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["reduce", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: unknown combine operator "sum" (expected "cc", a builtin ['add', 'mul', 'max', 'min', 'and', 'or', 'xor'], ["pw", @f] or ["ps", @f])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "sum"]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: combine function must be a symbol (@f) or a builtin ['add', 'mul', 'max', 'min', 'and', 'or', 'xor'], got "sum"
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "sum"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: builtin combine "xor" needs integer outputs
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "xor"]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @mul is not a func.func in this module
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @neg(%a: f32) -> f32 {
  %r = arith.negf %a : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @neg takes (f32); expected one argument per input access (f32, f32), optionally followed by 2 index arguments
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @neg, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f64, %b: f32) -> f32 {
  %c = arith.truncf %a : f64 to f32
  %r = arith.mulf %c, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @mul takes (f64, f32); expected one argument per input access (f32, f32), optionally followed by 2 index arguments
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32, %i: index) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @mul takes (f32, f32, index); expected one argument per input access (f32, f32), optionally followed by 2 index arguments
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f64 {
  %r = arith.mulf %a, %b : f32
  %e = arith.extf %r : f32 to f64
  func.return %e : f64
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: scalar_func @mul returns (f64); expected out_types (f32)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: combine function @plus is not a func.func in this module
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @plus]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @plus(%a: f64, %b: f64) -> f64 {
  %r = arith.addf %a, %b : f64
  func.return %r : f64
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8x4xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": md_hom: combine function @plus must have type (f32, f32) -> (f32)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["ps", @plus]]},
     out_view = [[affine_map<(i, k) -> (i, k)>]]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8x4xf32>
  func.return %w : memref<8x4xf32>
}

// -----

func.func @relu(%x: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %c = arith.cmpf ogt, %x, %z : f32
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
    scf.yield %z : f32
  }
  func.return %r : f32
}
func.func @act(%x: memref<16xf32>) -> memref<16xf32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "act": md_hom: @relu: scf.if is not a scalar op (arith and math ops, func.call; no regions)
  %y = mdh.compute "act"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [16], out_types = [f32]}
    (%x) : (memref<16xf32>) -> memref<16xf32>
  func.return %y : memref<16xf32>
}

// -----

func.func @count(%x: f32) -> i32 {
  %z = arith.constant 0.0 : f32
  %c = arith.cmpf ogt, %x, %z : f32
  %r = func.call @widen(%c) : (i1) -> i32
  func.return %r : i32
}
func.func @widen(%c: i1) -> i32 {
  %r = arith.extui %c : i1 to i32
  %s = arith.addi %r, %r : i32
  %t = arith.addi %c, %c : i1
  func.return %s : i32
}
func.func @positive(%x: memref<16xf32>) -> memref<16xi32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "positive": md_hom: @count: func.call takes an i1 (an i1 is only selected on, combined by andi/ori/xori or converted)
  %y = mdh.compute "positive"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @count, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [16], out_types = [i32]}
    (%x) : (memref<16xf32>) -> memref<16xi32>
  func.return %y : memref<16xi32>
}

// -----

func.func @count(%x: f32) -> i32 {
  %r = func.call @ones(%x) : (f32) -> i32
  func.return %r : i32
}
func.func @ones(%x: f32) -> i32 {
  %i = arith.fptosi %x : f32 to i32
  %b = arith.trunci %i : i32 to i1
  %t = arith.addi %b, %b : i1
  %r = arith.extui %t : i1 to i32
  func.return %r : i32
}
func.func @odd(%x: memref<16xf32>) -> memref<16xi32> {
  // CHECK-NEXT: {{.*}}verify_md_hom.mlir:[[# @LINE + 1]]:3: error: mdh.compute "odd": md_hom: @ones: arith.addi takes an i1 (an i1 is only selected on, combined by andi/ori/xori or converted)
  %y = mdh.compute "odd"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @count, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [16], out_types = [i32]}
    (%x) : (memref<16xf32>) -> memref<16xi32>
  func.return %y : memref<16xi32>
}

// CHECK-NOT: {{.*}}Traceback{{.*}}
