// RUN: mdh-opt %s --lower-to-opencl | filecheck %s

// Every name in the OpenCL source is a valid C identifier. A symbol that is one (and no
// keyword, builtin or printer name) keeps it; any other is spelled out as mdhq_ + its
// letters and digits, `_` as `__`, other characters as `_x<hex>_`, after a comment that
// holds the symbol quoted, so no symbol can end the comment or reach the source: here a
// host function whose name would have included /etc/passwd.

// CHECK-NOT:   {{^ *}}#include
// CHECK:       // "k\n#include \"/etc/passwd\"\n//_f"
// CHECK-NEXT:  static float mdh_mdhq_k_xa__x23_include_x20__x22__x2f_etc_x2f_passwd_x22__xa__x2f__x2f___f(float v0, float v1) {
// CHECK:       // "k\n#include \"/etc/passwd\"\n//_0"
// CHECK-NEXT:  __kernel {{.*}} void mdhq_k_xa__x23_include_x20__x22__x2f_etc_x2f_passwd_x22__xa__x2f__x2f___0(
// CHECK:       // "k\n#include \"/etc/passwd\"\n//_0_combine"
// CHECK-NEXT:  __kernel {{.*}} void mdhq_k_xa__x23_include_x20__x22__x2f_etc_x2f_passwd_x22__xa__x2f__x2f___0__combine(
// CHECK:       // host "k\n#include \"/etc/passwd\"\n//"(
// CHECK:       //   launch mdhq_k_xa__x23_include_x20__x22__x2f_etc_x2f_passwd_x22__xa__x2f__x2f___0(
// CHECK-NOT:   {{^ *}}#include

func.func @"k\n#include \"/etc/passwd\"\n//_f"(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @"k\n#include \"/etc/passwd\"\n//"(%M: memref<8x4xf32>, %v: memref<4xf32>) -> memref<8xf32> {
  %w = mdh.compute "k" {
    inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
    md_hom = {scalar_func = @"k\n#include \"/etc/passwd\"\n//_f", combine_ops = ["cc", ["pw", "add"]]},
    out_view = [[affine_map<(i, k) -> (i)>]]
  } {inp_types = [f32, f32], mda_size = [8, 4], out_types = [f32],
     config = #mdh.config<num_wg = [1, 4], num_wi = [1, 1], lt_size = [8, 1], pt_size = [8, 1],
                          inp_mem = [["glb", "glb"], ["glb", "glb"]], ocl_dim = [[2, 0], [2, 2]]>}
    (%M, %v) : (memref<8x4xf32>, memref<4xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
