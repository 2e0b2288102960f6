// RUN: not mdh-opt %s --split-input-file 2>&1 | filecheck %s --match-full-lines

// Every rule of the verifier about `inp_view` and `boundary`: one diagnostic per chunk,
// pointing at the op. The views that leave their buffer are accepted with a boundary
// mode in boundary_accepted.mlir.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  // CHECK: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: entry 0: map (d0) -> (d0, d0) has 1 dimensions and 0 symbols; expected 2 dimensions (mda_size)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i) -> (i, i)>], [affine_map<(i, k) -> (k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: entry 1: map (d0, d1)[s0] -> ((d1 + s0)) has 2 dimensions and 1 symbols; expected 2 dimensions (mda_size)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k)[s] -> (k + s)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: 1 entries for 2 input buffers
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: entry 0 must be a non-empty list of affine maps
  %w = mdh.compute "mv"
    {inp_view = [[], [affine_map<(i, k) -> (k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: entry 1: expected an affine map, got "k"
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], ["k"]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: buffer 0: map (d0, d1) -> (d0) has 1 results for a rank-2 buffer
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i)>], [affine_map<(i, k) -> (k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: buffer 1: map (d0, d1) -> ((d1 mod 4)) is not linear (mod, floordiv and ceildiv are not supported)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k mod 4)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: buffer 0: map (d0, d1) -> ((d0 floordiv 2), d1) is not linear (mod, floordiv and ceildiv are not supported)
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i floordiv 2, k)>], [affine_map<(i, k) -> (k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: buffer 1: map (d0, d1) -> ((d1 + -1)) reads index -1 of axis 0 (size 4); set a boundary mode to allow it
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k - 1)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": inp_view: buffer 0: map (d0, d1) -> (d0, (d1 * 2)) reads index 6 of axis 1 (size 4); set a boundary mode to allow it
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, 2 * k)>], [affine_map<(i, k) -> (k)>]],
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": boundary: 1 entries for 2 input buffers
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]], boundary = ["clamp"]}
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": boundary: unknown mode "reflect" (expected one of ['none', 'clamp', 'zero', 'wrap', 'mirror'])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]], boundary = ["none", "reflect"]}
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
  // CHECK-NEXT: {{.*}}verify_inp_view.mlir:[[# @LINE + 1]]:3: error: mdh.compute "mv": boundary: unknown mode 0 : i64 (expected one of ['none', 'clamp', 'zero', 'wrap', 'mirror'])
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]], boundary = ["none", 0]}
    {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32]}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// CHECK-NOT: {{.*}}Traceback{{.*}}
