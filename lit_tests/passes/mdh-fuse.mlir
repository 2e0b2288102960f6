// RUN: mdh-opt %s -p mdh-fuse 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK --input-file %t.err

// mdh-fuse folds a point-wise consumer into the op whose single result it reads: the
// fused op keeps the producer's views and md_hom, takes the consumer's output view
// (over the producer's dimensions) and gets an epilogue: the consumer's function, the
// consumer's other inputs as trailing operands, their views re-expressed over the
// producer's dimensions. A consumer whose function takes the value elsewhere than
// first, or a second consumer, gets a wrapper function (`<f>_epilogue`).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @bias(%b: f32, %c: f32) -> f32 {
  %r = arith.addf %c, %b : f32
  func.return %r : f32
}
func.func @relu(%c: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %c, %z : f32
  func.return %r : f32
}
func.func @sum3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s = arith.addf %l, %c : f32
  %t = arith.addf %s, %r : f32
  func.return %t : f32
}

// CHECK:      func.func @bias_epilogue(%0: f32, %1: f32) -> f32 {
// CHECK-NEXT:   %2 = func.call @bias(%1, %0) : (f32, f32) -> f32
// CHECK:      func.func @relu_epilogue(%0: f32, %1: f32) -> f32 {
// CHECK-NEXT:   %2 = func.call @bias_epilogue(%0, %1) : (f32, f32) -> f32
// CHECK-NEXT:   %3 = func.call @relu(%2) : (f32) -> f32

// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-NEXT:  %R = mdh.compute "mm_bias_relu" {inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d0, d2)>], [affine_map<(d0, d1, d2) -> (d2, d1)>]], md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d1, d0)>]], epilogue = {func = @relu_epilogue, inp_view = {{\[\[}}affine_map<(d0, d1, d2) -> (d1)>]]}} {inp_types = [f32, f32], mda_size = [4, 5, 6], out_types = [f32]} (%A, %B, %b) : (memref<4x6xf32>, memref<6x5xf32>, memref<5xf32>) -> memref<5x4xf32>
// CHECK-NEXT:  func.return %R
func.func @matmul_bias_relu(%A: memref<4x6xf32>, %B: memref<6x5xf32>, %b: memref<5xf32>) -> memref<5x4xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [4, 5, 6], out_types = [f32]}
    (%A, %B) : (memref<4x6xf32>, memref<6x5xf32>) -> memref<4x5xf32>
  %D = mdh.compute "bias"
    {inp_view = [[affine_map<(i,j) -> (j)>], [affine_map<(i,j) -> (i,j)>]],
     md_hom = {scalar_func = @bias, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [4, 5], out_types = [f32]}
    (%b, %C) : (memref<5xf32>, memref<4x5xf32>) -> memref<4x5xf32>
  %R = mdh.compute "relu"
    {inp_view = [[affine_map<(i,j) -> (i,j)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (j,i)>]]}
    {inp_types = [f32], mda_size = [4, 5], out_types = [f32]}
    (%D) : (memref<4x5xf32>) -> memref<5x4xf32>
  func.return %R : memref<5x4xf32>
}

// Refused as epilogues: a consumer that is not point-wise (a stencil over the result,
// a reduction), a result used twice, a consumer reading a part of the result only.
// The stencil reads with a boundary mode and the result used twice stay as they are,
// with a remark naming the producer and the reasons; the part and the reduction take
// their point-wise producer as a prologue (mdh-fuse-prologue.mlir).

// REMARK-DAG: mdh-fuse: remark: mdh.compute "row" not fused: the consumer reads the result with 3 accesses, not point-wise; as a prologue: the consumer reads the result with boundary mode 'clamp' (the producer's function of a read outside differs)
// REMARK-DAG: mdh-fuse: remark: mdh.compute "twice" not fused: its result is used 2 times (mdh.compute, mdh.compute)
// REMARK-NOT: "whole"
// REMARK-NOT: "summed"

// CHECK-LABEL: func.func @refused
// CHECK:       mdh.compute "row"
// CHECK:       mdh.compute "blur"
// CHECK:       mdh.compute "twice"
// CHECK:       mdh.compute "left"
// CHECK:       mdh.compute "right"
// CHECK:       mdh.compute "whole_half" {{.*}} prologue = [{func = @mul, inputs = [0 : i64, 1 : i64]}]}
// CHECK:       mdh.compute "summed_total" {{.*}} prologue = [{func = @mul, inputs = [0 : i64, 1 : i64]}]}
func.func @refused(%x: memref<8xf32>, %y: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<4xf32>, memref<f32>) {
  %r = mdh.compute "row"
    {inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32]}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
  %s = mdh.compute "blur"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @sum3, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]],
     boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%r) : (memref<8xf32>) -> memref<8xf32>
  %t = mdh.compute "twice"
    {inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32]}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
  %u = mdh.compute "left"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%t) : (memref<8xf32>) -> memref<8xf32>
  %v = mdh.compute "right"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%t) : (memref<8xf32>) -> memref<8xf32>
  %w = mdh.compute "whole"
    {inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32]}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
  %h = mdh.compute "half"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [4], out_types = [f32]}
    (%w) : (memref<8xf32>) -> memref<4xf32>
  %m = mdh.compute "summed"
    {inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]}, out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32]}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<8xf32>
  %n = mdh.compute "total"
    {inp_view = [[affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @relu, combine_ops = [["pw", @add]]}, out_view = [[affine_map<(i) -> ()>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32]}
    (%m) : (memref<8xf32>) -> memref<f32>
  func.return %s, %u, %v, %h, %n : memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<4xf32>, memref<f32>
}
