// RUN: mdh-opt %s | filecheck %s
// RUN: mdh-opt %s -o %t.custom && mdh-opt %t.custom | diff %t.custom -
// RUN: mdh-opt --print-op-generic %s -o %t.generic && mdh-opt --print-op-generic %t.generic | diff %t.generic -
// RUN: mdh-opt %t.generic | diff %t.custom -
// RUN: filecheck %s --check-prefix=GENERIC --input-file %t.generic

// The syntax features of mdh.compute print as they parse, in custom and generic form:
// printing, parsing and printing again gives the same text, and the generic form
// parses back to the custom one. Affine maps print with d0, d1, ... as dimension names.

// A 3-point stencil: one buffer read through three views, reads outside the buffer clamped.
func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s = arith.addf %l, %c : f32
  %t = arith.addf %s, %r : f32
  func.return %t : f32
}
func.func @blur(%x: memref<16xf32>) -> memref<16xf32> {
  %y = mdh.compute "blur"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]],
     boundary = ["clamp"]}
    {inp_types = [f32], mda_size = [16], out_types = [f32]}
    (%x) : (memref<16xf32>) -> memref<16xf32>
  func.return %y : memref<16xf32>
}
// CHECK: %y = mdh.compute "blur" {inp_view = {{\[\[}}affine_map<(d0) -> ((d0 + -1))>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ((d0 + 1))>]], md_hom = {scalar_func = @avg3, combine_ops = ["cc"]}, out_view = {{\[\[}}affine_map<(d0) -> (d0)>]], boundary = ["clamp"]} {inp_types = [f32], mda_size = [16], out_types = [f32]} (%x) : (memref<16xf32>) -> memref<16xf32>
// GENERIC: %y = "mdh.compute"(%x) <{comp_name = "blur", inp_view = {{\[\[}}affine_map<(d0) -> ((d0 + -1))>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ((d0 + 1))>]], md_hom = {scalar_func = @avg3, combine_ops = ["cc"]}, out_view = {{\[\[}}affine_map<(d0) -> (d0)>]], boundary = ["clamp"], inp_types = [f32], mda_size = [16 : i64], out_types = [f32]}> : (memref<16xf32>) -> memref<16xf32>

// Two inputs, two outputs of different types, a user combine function, a 0-d output.
func.func @prod_count(%a: f64, %b: f64) -> (f64, i64) {
  %p = arith.mulf %a, %b : f64
  %one = arith.constant 1 : i64
  func.return %p, %one : f64, i64
}
func.func @add_both(%p1: f64, %n1: i64, %p2: f64, %n2: i64) -> (f64, i64) {
  %p = arith.addf %p1, %p2 : f64
  %n = arith.addi %n1, %n2 : i64
  func.return %p, %n : f64, i64
}
func.func @dot_count(%x: memref<10xf64>, %y: memref<10xf64>) -> (memref<f64>, memref<i64>) {
  %d, %n = mdh.compute "dot_count"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @prod_count, combine_ops = [["pw", @add_both]]},
     out_view = [[affine_map<(k) -> ()>], [affine_map<(k) -> ()>]]}
    {inp_types = [f64, f64], mda_size = [10], out_types = [f64, i64]}
    (%x, %y) : (memref<10xf64>, memref<10xf64>) -> (memref<f64>, memref<i64>)
  func.return %d, %n : memref<f64>, memref<i64>
}
// CHECK: %d, %n = mdh.compute "dot_count" {inp_view = {{\[\[}}affine_map<(d0) -> (d0)>], [affine_map<(d0) -> (d0)>]], md_hom = {scalar_func = @prod_count, combine_ops = {{\[\[}}"pw", @add_both]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>], [affine_map<(d0) -> ()>]]} {inp_types = [f64, f64], mda_size = [10], out_types = [f64, i64]} (%x, %y) : (memref<10xf64>, memref<10xf64>) -> (memref<f64>, memref<i64>)
// GENERIC: %d, %n = "mdh.compute"(%x, %y) <{comp_name = "dot_count", inp_view = {{\[\[}}affine_map<(d0) -> (d0)>], [affine_map<(d0) -> (d0)>]], md_hom = {scalar_func = @prod_count, combine_ops = {{\[\[}}"pw", @add_both]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>], [affine_map<(d0) -> ()>]], inp_types = [f64, f64], mda_size = [10 : i64], out_types = [f64, i64]}> : (memref<10xf64>, memref<10xf64>) -> (memref<f64>, memref<i64>)

// A prefix sum with a user function (ps), the point's indices as trailing arguments.
func.func @weighted(%x: i32, %r: index, %c: index) -> i32 {
  %w = arith.index_cast %c : index to i32
  %p = arith.muli %x, %w : i32
  func.return %p : i32
}
func.func @addi(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  func.return %s : i32
}
func.func @row_scan(%x: memref<4x6xi32>) -> memref<4x6xi32> {
  %y = mdh.compute "row_scan"
    {inp_view = [[affine_map<(r, c) -> (r, c)>]],
     md_hom = {scalar_func = @weighted, combine_ops = ["cc", ["ps", @addi]]},
     out_view = [[affine_map<(r, c) -> (r, c)>]]}
    {inp_types = [i32], mda_size = [4, 6], out_types = [i32]}
    (%x) : (memref<4x6xi32>) -> memref<4x6xi32>
  func.return %y : memref<4x6xi32>
}
// CHECK: %y = mdh.compute "row_scan" {inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @weighted, combine_ops = ["cc", ["ps", @addi]]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]]} {inp_types = [i32], mda_size = [4, 6], out_types = [i32]} (%x) : (memref<4x6xi32>) -> memref<4x6xi32>
// GENERIC: %y = "mdh.compute"(%x) <{comp_name = "row_scan", inp_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], md_hom = {scalar_func = @weighted, combine_ops = ["cc", ["ps", @addi]]}, out_view = {{\[\[}}affine_map<(d0, d1) -> (d0, d1)>]], inp_types = [i32], mda_size = [4 : i64, 6 : i64], out_types = [i32]}> : (memref<4x6xi32>) -> memref<4x6xi32>

// Four dimensions, builtin sugar (["pw", "add"] and a bare "max"), a transposed output.
func.func @mulf(%a: f32, %b: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  func.return %p : f32
}
func.func @bmm_max(%a: memref<2x3x5x7xf32>, %b: memref<3x7xf32>) -> memref<3x2xf32> {
  %y = mdh.compute "bmm_max"
    {inp_view = [[affine_map<(n, i, j, k) -> (n, i, j, k)>], [affine_map<(n, i, j, k) -> (i, k)>]],
     md_hom = {scalar_func = @mulf, combine_ops = ["cc", "cc", "max", ["pw", "add"]]},
     out_view = [[affine_map<(n, i, j, k) -> (i, n)>]]}
    {inp_types = [f32, f32], mda_size = [2, 3, 5, 7], out_types = [f32]}
    (%a, %b) : (memref<2x3x5x7xf32>, memref<3x7xf32>) -> memref<3x2xf32>
  func.return %y : memref<3x2xf32>
}
// CHECK: %y = mdh.compute "bmm_max" {inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], [affine_map<(d0, d1, d2, d3) -> (d1, d3)>]], md_hom = {scalar_func = @mulf, combine_ops = ["cc", "cc", "max", ["pw", "add"]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d1, d0)>]]} {inp_types = [f32, f32], mda_size = [2, 3, 5, 7], out_types = [f32]} (%a, %b) : (memref<2x3x5x7xf32>, memref<3x7xf32>) -> memref<3x2xf32>
// GENERIC: %y = "mdh.compute"(%a, %b) <{comp_name = "bmm_max", inp_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], [affine_map<(d0, d1, d2, d3) -> (d1, d3)>]], md_hom = {scalar_func = @mulf, combine_ops = ["cc", "cc", "max", ["pw", "add"]]}, out_view = {{\[\[}}affine_map<(d0, d1, d2, d3) -> (d1, d0)>]], inp_types = [f32, f32], mda_size = [2 : i64, 3 : i64, 5 : i64, 7 : i64], out_types = [f32]}> : (memref<2x3x5x7xf32>, memref<3x7xf32>) -> memref<3x2xf32>

// Integer-only builtins on integer outputs; wrap, zero and mirror boundaries.
func.func @xor3(%a: i64, %b: i64, %c: i64) -> i64 {
  %x = arith.xori %a, %b : i64
  %y = arith.xori %x, %c : i64
  func.return %y : i64
}
func.func @checksum(%a: memref<8xi64>, %b: memref<8xi64>, %c: memref<8xi64>) -> memref<i64> {
  %y = mdh.compute "checksum"
    {inp_view = [[affine_map<(i) -> (i + 3)>], [affine_map<(i) -> (i - 2)>], [affine_map<(i) -> (i * 2)>]],
     md_hom = {scalar_func = @xor3, combine_ops = [["pw", "xor"]]},
     out_view = [[affine_map<(i) -> ()>]],
     boundary = ["wrap", "zero", "mirror"]}
    {inp_types = [i64, i64, i64], mda_size = [8], out_types = [i64]}
    (%a, %b, %c) : (memref<8xi64>, memref<8xi64>, memref<8xi64>) -> memref<i64>
  func.return %y : memref<i64>
}
// CHECK: %y = mdh.compute "checksum" {inp_view = {{\[\[}}affine_map<(d0) -> ((d0 + 3))>], [affine_map<(d0) -> ((d0 + -2))>], [affine_map<(d0) -> ((d0 * 2))>]], md_hom = {scalar_func = @xor3, combine_ops = {{\[\[}}"pw", "xor"]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>]], boundary = ["wrap", "zero", "mirror"]} {inp_types = [i64, i64, i64], mda_size = [8], out_types = [i64]} (%a, %b, %c) : (memref<8xi64>, memref<8xi64>, memref<8xi64>) -> memref<i64>
// GENERIC: %y = "mdh.compute"(%a, %b, %c) <{comp_name = "checksum", inp_view = {{\[\[}}affine_map<(d0) -> ((d0 + 3))>], [affine_map<(d0) -> ((d0 + -2))>], [affine_map<(d0) -> ((d0 * 2))>]], md_hom = {scalar_func = @xor3, combine_ops = {{\[\[}}"pw", "xor"]]}, out_view = {{\[\[}}affine_map<(d0) -> ()>]], boundary = ["wrap", "zero", "mirror"], inp_types = [i64, i64, i64], mda_size = [8 : i64], out_types = [i64]}> : (memref<8xi64>, memref<8xi64>, memref<8xi64>) -> memref<i64>
