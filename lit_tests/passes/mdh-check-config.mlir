// RUN: not mdh-opt %s --split-input-file -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu}' 2>&1 | filecheck %s --match-full-lines

// mdh-check-config refuses, before anything is generated, a configuration that breaks a
// rule of mdh_ir/schedule/constraints.py, with one line naming the op, the rule and the reason.
// Each chunk breaks one rule (device limits: the gpu class); keys a chunk does not give
// come from mdh-default-config, which keeps the given ones.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// tile-sizes: 1 <= pt_size <= lt_size <= N in every dimension.
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'tile-sizes': dim 1: need pt_size 65 <= lt_size 64 <= 64
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 1], num_wi = [8, 1], lt_size = [32, 64], pt_size = [4, 65]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wg-tiles: num_wg <= ceil(N / lt_size) (4 local tiles of 32 rows).
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wg-tiles': dim 0: num_wg 5 > 4 local tiles
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [5, 1], num_wi = [8, 1], lt_size = [32, 64], pt_size = [4, 64]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wi-tiles: num_wi <= ceil(lt_size / pt_size) (8 private tiles of 4 rows).
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wi-tiles': dim 0: num_wi 9 > 8 private tiles
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 1], num_wi = [9, 1], lt_size = [32, 64], pt_size = [4, 64]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wg-size: 32 x 64 = 2048 work-items per work-group; the gpu class allows 1024.
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wg-size': 2048 work-items per work-group > device limit 1024 (preset gpu)
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [4, 1], num_wi = [32, 64], lt_size = [32, 64], pt_size = [1, 1], ocl_dim = [[0, 2], [1, 0]]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wg-size, per OpenCL dimension: 128 work-items on OpenCL dimension 2 (gpu limit 64).
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wg-size': OpenCL dim 2: 128 work-items > device limit 64 (preset gpu)
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [128, 1], lt_size = [128, 64], pt_size = [1, 64], ocl_dim = [[0, 1], [2, 0]]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// index-range: two dimensions folded onto OpenCL dimension 0 give 65536 x 32768 = 2^31
// work-groups there, too many for 32-bit indices.
func.func @outer(%x: memref<65536xf32>, %y: memref<65536xf32>) -> memref<65536xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "outer": configuration breaks rule 'index-range': OpenCL dim 0: global size 2147483648 >= 2^31
  %w = mdh.compute "outer"
    {inp_view = [[affine_map<(i, k) -> (i)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [65536, 65536], out_types = [f32],
     config = #mdh.config<num_wg = [65536, 32768], num_wi = [1, 1], lt_size = [1, 2], pt_size = [1, 2],
                          ocl_dim = [[0, 0], [2, 2]]>}
    (%x, %y) : (memref<65536xf32>, memref<65536xf32>) -> memref<65536xf32>
  func.return %w : memref<65536xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// index-range, for a buffer: x has 2^31 elements.
func.func @big(%x: memref<2147483648xf32>, %y: memref<2147483648xf32>) -> memref<2147483648xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "big": configuration breaks rule 'index-range': a buffer of 2147483648 elements >= 2^31
  %w = mdh.compute "big"
    {inp_view = [[affine_map<(i) -> (i)>], [affine_map<(i) -> (i)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [2147483648], out_types = [f32],
     config = #mdh.config<num_wg = [8388608], num_wi = [128], lt_size = [256], pt_size = [2]>}
    (%x, %y) : (memref<2147483648xf32>, memref<2147483648xf32>) -> memref<2147483648xf32>
  func.return %w : memref<2147483648xf32>
}

// -----

func.func @add2(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}

// cache-box: x is read at i and at 2 * i; no box of constant offsets holds both, so x
// cannot be cached in local memory.
func.func @slopes(%x: memref<16xf32>) -> memref<8xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "slopes": configuration breaks rule 'cache-box': input 0 is cached at lt but its accesses differ by more than constants
  %w = mdh.compute "slopes"
    {inp_view = [[affine_map<(i) -> (i)>, affine_map<(i) -> (2 * i)>]],
     md_hom = {scalar_func = @add2, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]]}
    {inp_types = [f32], mda_size = [8], out_types = [f32],
     config = #mdh.config<num_wg = [2], num_wi = [4], lt_size = [4], pt_size = [1], inp_mem = [["lcl"], ["glb"]]>}
    (%x) : (memref<16xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// local-memory: local tiles of A (128 x 64) and B (64 x 128), their rows padded by the
// default's 4 elements (lcl_pad), take 66 KiB; the gpu class has 48 KiB.
func.func @matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>) -> memref<256x256xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matmul": configuration breaks rule 'local-memory': 67584 bytes > device limit 49152 (preset gpu)
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [256, 256, 256], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [16, 16, 1], lt_size = [128, 128, 64], pt_size = [8, 8, 64],
                          inp_mem = [["lcl", "lcl"], ["glb", "glb"]], ocl_dim = [[1, 0, 2], [1, 0, 2]]>}
    (%A, %B) : (memref<256x256xf32>, memref<256x256xf32>) -> memref<256x256xf32>
  func.return %C : memref<256x256xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// private-memory: private tiles of A (32 x 8), B (8 x 32) and the 32 x 32 accumulator
// take 1536 elements; the gpu class budget is 512.
func.func @matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>) -> memref<256x256xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matmul": configuration breaks rule 'private-memory': 1536 elements > budget 512 (preset gpu)
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [256, 256, 256], out_types = [f32],
     config = #mdh.config<num_wg = [8, 8, 1], num_wi = [1, 1, 1], lt_size = [32, 32, 256], pt_size = [32, 32, 8],
                          inp_mem = [["glb", "glb"], ["prv", "prv"]], ocl_dim = [[1, 0, 2], [2, 2, 2]]>}
    (%A, %B) : (memref<256x256xf32>, memref<256x256xf32>) -> memref<256x256xf32>
  func.return %C : memref<256x256xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wi-combine: the pw dimension has 64 work-items, whose partial results cannot be
// combined after every private tile (combine_layer "pt").
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wi-combine': a pw dimension has num_wi > 1, which needs combine_layer 'end' or 'lt' and no res_mem 'glb'
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [128, 1], num_wi = [1, 64], lt_size = [1, 64], pt_size = [1, 1], combine_layer = "pt">}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// wi-combine, with res_mem "glb".
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'wi-combine': a pw dimension has num_wi > 1, which needs combine_layer 'end' or 'lt' and no res_mem 'glb'
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [128, 1], num_wi = [1, 64], lt_size = [1, 64], pt_size = [1, 1], res_mem = ["glb"]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @id(%x: f32) -> f32 {
  func.return %x : f32
}

// pw-functions: the two pw dimensions combine with add and max.
func.func @sum_max(%x: memref<8x4xf32>) -> memref<f32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "sum_max": configuration breaks rule 'pw-functions': pw dimensions with different combine functions
  %w = mdh.compute "sum_max"
    {inp_view = [[affine_map<(i, k) -> (i, k)>]],
     md_hom = {scalar_func = @id, combine_ops = [["pw", "add"], ["pw", "max"]]},
     out_view = [[affine_map<(i, k) -> ()>]]}
    {inp_types = [f32], mda_size = [8, 4], out_types = [f32],
     config = #mdh.config<num_wg = [1, 1], num_wi = [1, 1], lt_size = [8, 4], pt_size = [8, 4]>}
    (%x) : (memref<8x4xf32>) -> memref<f32>
  func.return %w : memref<f32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

func.func @absmax(%a: f32, %b: f32) -> f32 {
  %x = math.absf %a : f32
  %y = math.absf %b : f32
  %m = arith.maximumf %x, %y : f32
  func.return %m : f32
}

// vector-width: an innermost pw loop needs a combine function with a known identity
// (each lane starts from it).
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'vector-width': the innermost loop is over pw dim 1, whose combine function has no known identity
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @absmax]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [128, 1], num_wi = [1, 1], lt_size = [1, 64], pt_size = [1, 64], vector_width = 4>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// vector-width: the vectorized dimension's private tiles must be multiples of the width.
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'vector-width': pt_size 1 of dim 0 is not a multiple of 4
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [32, 1], num_wi = [1, 64], lt_size = [4, 64], pt_size = [1, 1], loop_order = [[0, 1], [1, 0]], vector_width = 4>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// -----

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// implemented: accumulators in local memory are not generated.
func.func @matvec(%M: memref<128x64xf32>, %v: memref<64xf32>) -> memref<128xf32> {
  // CHECK-NEXT: {{.*}}mdh-check-config.mlir:[[# @LINE + 1]]:3: error: mdh.compute "matvec": configuration breaks rule 'implemented': res_mem 'lcl' is not generated yet
  %w = mdh.compute "matvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [128, 64], out_types = [f32],
     config = #mdh.config<num_wg = [128, 1], num_wi = [1, 1], lt_size = [1, 64], pt_size = [1, 64], res_mem = ["lcl"]>}
    (%M, %v) : (memref<128x64xf32>, memref<64xf32>) -> memref<128xf32>
  func.return %w : memref<128xf32>
}

// CHECK-NOT: error
