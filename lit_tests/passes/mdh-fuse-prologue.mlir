// RUN: mdh-opt %s -p mdh-fuse 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err

// mdh-fuse folds a point-wise producer that its consumer cannot take as an epilogue
// (a matrix product reading a row-scaled A) into the consumer's reads: the result's
// input becomes the producer's inputs, read through the producer's views composed with
// the consumer's access, grouped under a `prologue` that calls the producer's scalar
// function on them; other prologues' input positions move with the inputs.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @relu(%c: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %c, %z : f32
  func.return %r : f32
}

// CHECK-LABEL: func.func @scaled_matmul
// CHECK-NEXT:  %C = mdh.compute "relu_rowscale_mm" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d0)>], [affine_map<(d0, d1, d2) -> (d1, d2)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d1)>]], prologue = [{func = @mul, inputs = [0 : i64, 1 : i64]}, {func = @relu, inputs = [2 : i64]}]} {inp_types = [f32, f32, f32], mda_size = [7, 5, 9], out_types = [f32]} (%A, %s, %Bt) : (memref<7x9xf32>, memref<7xf32>, memref<5x9xf32>) -> memref<7x5xf32>
// CHECK-NEXT:  func.return %C
func.func @scaled_matmul(%A: memref<7x9xf32>, %s: memref<7xf32>, %Bt: memref<5x9xf32>) -> memref<7x5xf32> {
  %As = mdh.compute "rowscale"
    {inp_view = [[affine_map<(i,k) -> (i,k)>], [affine_map<(i,k) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,k) -> (i,k)>]]}
    {inp_types = [f32, f32], mda_size = [7, 9], out_types = [f32]}
    (%A, %s) : (memref<7x9xf32>, memref<7xf32>) -> memref<7x9xf32>
  %B = mdh.compute "relu"
    {inp_view = [[affine_map<(j,k) -> (j,k)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(j,k) -> (k,j)>]]}
    {inp_types = [f32], mda_size = [5, 9], out_types = [f32]}
    (%Bt) : (memref<5x9xf32>) -> memref<9x5xf32>
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [7, 5, 9], out_types = [f32]}
    (%As, %B) : (memref<7x9xf32>, memref<9x5xf32>) -> memref<7x5xf32>
  func.return %C : memref<7x5xf32>
}

// Refused as a prologue: a consumer reading the result with a boundary mode (the
// producer's function of a zero read outside is not zero), a producer reading an input
// with several accesses.

// REMARK-DAG: mdh-fuse: remark: mdh.compute "shift" not fused: the consumer is not point-wise (it has a pw or ps dimension); as a prologue: the consumer reads the result with boundary mode 'zero' (the producer's function of a read outside differs)
// REMARK-DAG: mdh-fuse: remark: mdh.compute "pairs" not fused: the consumer is not point-wise (it has a pw or ps dimension); as a prologue: the producer reads an input with several accesses

// CHECK-LABEL: func.func @refused
// CHECK:       mdh.compute "shift"
// CHECK:       mdh.compute "sum_shifted"
// CHECK:       mdh.compute "pairs"
// CHECK:       mdh.compute "sum_pairs"
func.func @refused(%x: memref<8xf32>) -> (memref<f32>, memref<f32>) {
  %r = mdh.compute "shift"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%x) : (memref<8xf32>) -> memref<8xf32>
  %s = mdh.compute "sum_shifted"
    {inp_view = [[affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @relu, combine_ops = [["pw", @add]]}, out_view = [[affine_map<(i) -> ()>]],
     boundary = ["zero"]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%r) : (memref<8xf32>) -> memref<f32>
  %p = mdh.compute "pairs"
    {inp_view = [[affine_map<(i) -> (i)>, affine_map<(i) -> (7 - i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%x) : (memref<8xf32>) -> memref<8xf32>
  %q = mdh.compute "sum_pairs"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = [["pw", @add]]}, out_view = [[affine_map<(i) -> ()>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%p) : (memref<8xf32>) -> memref<f32>
  func.return %s, %q : memref<f32>, memref<f32>
}
