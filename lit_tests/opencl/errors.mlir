// RUN: not mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm' -t opencl 2>&1 | filecheck %s --check-prefix=UNLOWERED
// RUN: sed -e 's/lt_size = \[2, 64\]/lt_size = [2, 65]/' %s | not mdh-opt --lower-to-opencl 2>&1 | filecheck %s --check-prefix=RULE

// The OpenCL printer refuses IR that still holds an op it has no rule for, and
// --lower-to-opencl refuses a configuration that breaks a rule, with one line on stderr
// and nothing on stdout.

// UNLOWERED: {{.*}}errors.mlir: error: no OpenCL rule for lowlevel.tile_for
// UNLOWERED-NOT: kernel

// RULE: stdin:[[# @LINE + 8]]:3: error: mdh.compute "matvec": configuration breaks rule 'tile-sizes': dim 1: need pt_size 64 <= lt_size 65 <= 64
// RULE-NOT: OpenCL

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @matvec(%M: memref<8x64xf32>, %v: memref<64xf32>) -> memref<8xf32> {
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 1], num_wi = [1, 1], lt_size = [2, 64], pt_size = [2, 64]>}
    (%M, %v) : (memref<8x64xf32>, memref<64xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
