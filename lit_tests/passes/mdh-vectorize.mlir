// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p mdh-vectorize | filecheck %s
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p 'mdh-vectorize{flush=false}' | filecheck %s --check-prefix=SCALAR

// mdh-vectorize applies vector_width N to the innermost element loop (the last dimension of
// loop_order[1]): the loop steps N elements (tile N), reads moving along it become
// N-lane view_loads, other reads are broadcast, the scalar function is called in an N-lane
// version, the accumulator is re-allocated with vector elements (the scalar code keeps a
// lowlevel.view of it), direct output writes become vector stores, and so does the flush
// where the output is contiguous along the vectorized dimension (unless flush=false, as
// lower-to-opencl sets for GPUs: SCALAR). unroll marks the
// computation's element loops. An innermost pw loop gives each lane its own accumulator:
// filled with the identity in every lane, combined lane by lane where the flush reads it.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}

// matmul: 2 x 8 register tile on (i, j), k outermost; j vectorized by 4, unroll 2.
func.func @matmul(%A: memref<4x80xf32>, %B: memref<80x16xf32>) -> memref<4x16xf32> {
  %C = mdh.compute "matmul"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (i, j)>]]}
    {inp_types = [f32, f32], mda_size = [4, 16, 80], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [1, 1, 1], lt_size = [2, 8, 80], pt_size = [2, 8, 80],
                          loop_order = [[0, 1, 2], [2, 0, 1]], vector_width = 4, unroll = 2>}
    (%A, %B) : (memref<4x80xf32>, memref<80x16xf32>) -> memref<4x16xf32>
  func.return %C : memref<4x16xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_0(
// CHECK-NEXT:    [[WIDE:%[0-9]+]] = memref.alloca() : memref<1x1x2x2xvector<4xf32>, "prv">
// CHECK-NEXT:    [[ACC:%[0-9]+]] = lowlevel.view [[WIDE]] : memref<1x1x2x2xvector<4xf32>, "prv"> to memref<1x1x2x8xf32, "prv">
// CHECK:         lowlevel.fill [[ACC]] with
// CHECK:         lowlevel.tile_for "el" dim 2({{.*}}) tile 1 parts 1 part %{{[0-9]+}} max 80 {
// CHECK:           lowlevel.tile_for "el" dim 0({{.*}}) tile 1 parts 1 part %{{[0-9]+}} max 2 {
// CHECK:             lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:        ^bb0([[STEP:%[0-9]+]]: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:          [[A:%[0-9]+]] = lowlevel.view_load %{{[0-9]+}}{{.*}} : memref<4x80xf32> -> f32
// CHECK-NEXT:          [[B:%[0-9]+]] = lowlevel.view_load %{{[0-9]+}}{{.*}} : memref<80x16xf32> -> vector<4xf32>
// CHECK-NEXT:          [[OLD:%[0-9]+]] = memref.load [[WIDE]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, [[STEP]]] : memref<1x1x2x2xvector<4xf32>, "prv">
// CHECK-NEXT:          [[AV:%[0-9]+]] = vector.broadcast [[A]] : f32 to vector<4xf32>
// CHECK-NEXT:          [[NEW:%[0-9]+]] = math.fma [[AV]], [[B]], [[OLD]] : vector<4xf32>
// CHECK-NEXT:          memref.store [[NEW]], [[WIDE]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, [[STEP]]] : memref<1x1x2x2xvector<4xf32>, "prv">
// CHECK-NEXT:        } {unroll = 2 : i64}
// CHECK-NEXT:      } {unroll = 2 : i64}
// CHECK-NEXT:    } {unroll = 2 : i64}
// The flush moves the accumulator to the output (contiguous along j) as vectors too.
// CHECK:         lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:    ^bb0([[FSTEP:%[0-9]+]]: index, [[J:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      [[R:%[0-9]+]] = memref.load [[WIDE]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, [[FSTEP]]] : memref<1x1x2x2xvector<4xf32>, "prv">
// CHECK-NEXT:      vector.store [[R]], %{{[0-9]+}}[%{{[0-9]+}}, [[J]]] : memref<4x16xf32>, vector<4xf32>
// SCALAR-LABEL: lowlevel.kernel @matmul_0(
// SCALAR-NEXT:    memref.alloca() : memref<1x1x2x2xvector<4xf32>, "prv">
// SCALAR-NEXT:    [[SACC:%[0-9]+]] = lowlevel.view
// SCALAR:         lowlevel.tile_for "el" dim 1({{.*}}) tile 1 parts 1 part %{{[0-9]+}} max 8 {
// SCALAR-NEXT:    ^bb0(%{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// SCALAR-NEXT:      [[SV:%[0-9]+]] = memref.load [[SACC]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<1x1x2x8xf32, "prv">
// SCALAR-NEXT:      memref.store [[SV]], %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}] : memref<4x16xf32>

// The same matmul writing C transposed: the output is not contiguous along j, so the
// flush stays scalar, through the view.
func.func @matmul_t(%A: memref<4x80xf32>, %B: memref<80x16xf32>) -> memref<16x4xf32> {
  %C = mdh.compute "matmul_t"
    {inp_view = [[affine_map<(i, j, k) -> (i, k)>], [affine_map<(i, j, k) -> (k, j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, j, k) -> (j, i)>]]}
    {inp_types = [f32, f32], mda_size = [4, 16, 80], out_types = [f32],
     config = #mdh.config<num_wg = [2, 2, 1], num_wi = [1, 1, 1], lt_size = [2, 8, 80], pt_size = [2, 8, 80],
                          loop_order = [[0, 1, 2], [2, 0, 1]], vector_width = 4>}
    (%A, %B) : (memref<4x80xf32>, memref<80x16xf32>) -> memref<16x4xf32>
  func.return %C : memref<16x4xf32>
}
// CHECK-LABEL: lowlevel.kernel @matmul_t_0(
// CHECK-NEXT:    [[TWIDE:%[0-9]+]] = memref.alloca() : memref<1x1x2x2xvector<4xf32>, "prv">
// CHECK-NEXT:    [[TACC:%[0-9]+]] = lowlevel.view [[TWIDE]]
// CHECK:         lowlevel.tile_for "el" dim 1({{.*}}) tile 1 parts 1 part %{{[0-9]+}} max 8 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, %{{[0-9]+}}: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      [[S:%[0-9]+]] = memref.load [[TACC]]{{\[}}%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}] : memref<1x1x2x8xf32, "prv">
// CHECK-NEXT:      memref.store [[S]], %{{[0-9]+}}[%{{[0-9]+}}, %{{[0-9]+}}] : memref<16x4xf32>

func.func @scaled(%x: f32, %b: f32) -> f32 {
  %c = arith.constant 2.0 : f32
  %p = arith.mulf %x, %c : f32
  %s = arith.addf %p, %b : f32
  func.return %s : f32
}

// bias_add-like (cc only): y[h, c] = 2 x[h, c] + b[c]; c vectorized by 8, direct vector stores.
func.func @bias(%x: memref<3x16xf32>, %b: memref<16xf32>) -> memref<3x16xf32> {
  %y = mdh.compute "bias"
    {inp_view = [[affine_map<(h, c) -> (h, c)>], [affine_map<(h, c) -> (c)>]],
     md_hom = {scalar_func = @scaled, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(h, c) -> (h, c)>]]}
    {inp_types = [f32, f32], mda_size = [3, 16], out_types = [f32],
     config = #mdh.config<num_wg = [3, 1], num_wi = [1, 1], lt_size = [1, 16], pt_size = [1, 16],
                          vector_width = 8>}
    (%x, %b) : (memref<3x16xf32>, memref<16xf32>) -> memref<3x16xf32>
  func.return %y : memref<3x16xf32>
}
// CHECK-LABEL: func.func @scaled_v8(
// CHECK-SAME:    [[X:%[0-9a-z]+]]: vector<8xf32>, [[BB:%[0-9a-z]+]]: vector<8xf32>) -> vector<8xf32> {
// CHECK-NEXT:    [[C:%[0-9a-z]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    [[CV:%[0-9]+]] = vector.broadcast [[C]] : f32 to vector<8xf32>
// CHECK-NEXT:    [[P:%[0-9a-z]+]] = arith.mulf [[X]], [[CV]] : vector<8xf32>
// CHECK-NEXT:    [[S:%[0-9a-z]+]] = arith.addf [[P]], [[BB]] : vector<8xf32>
// CHECK-NEXT:    func.return [[S]] : vector<8xf32>
// CHECK-LABEL: lowlevel.kernel @bias_0(
// CHECK-SAME:    [[Y:%[0-9]+]]: memref<3x16xf32>)
// CHECK:         lowlevel.tile_for "el" dim 1({{.*}}) tile 8 parts 1 part %{{[0-9]+}} max 2 {
// CHECK-NEXT:    ^bb0(%{{[0-9]+}}: index, [[C0:%[0-9]+]]: index, %{{[0-9]+}}: index):
// CHECK-NEXT:      [[XV:%[0-9]+]] = lowlevel.view_load {{.*}} -> vector<8xf32>
// CHECK-NEXT:      [[BV:%[0-9]+]] = lowlevel.view_load {{.*}} -> vector<8xf32>
// CHECK-NEXT:      [[YV:%[0-9]+]] = func.call @scaled_v8([[XV]], [[BV]]) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:      vector.store [[YV]], [[Y]]{{\[}}%{{[0-9]+}}, [[C0]]] : memref<3x16xf32>, vector<8xf32>

func.func @max(%a: f32, %b: f32) -> f32 {
  %r = arith.maximumf %a, %b : f32
  func.return %r : f32
}

// matvec combining with max: 4 rows per work-group, k (pw) innermost and vectorized by 4.
func.func @maxvec(%M: memref<8x64xf32>, %v: memref<64xf32>) -> memref<8xf32> {
  %w = mdh.compute "maxvec"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", @max]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f32, f32], mda_size = [8, 64], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [4, 64], pt_size = [4, 64],
                          loop_order = [[0, 1], [0, 1]], vector_width = 4>}
    (%M, %v) : (memref<8x64xf32>, memref<64xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
// CHECK-LABEL: lowlevel.kernel @maxvec_0(
// CHECK-SAME:    [[OUT:%[0-9]+]]: memref<8xf32>)
// CHECK-NEXT:    [[LANES:%[0-9]+]] = memref.alloca() : memref<1x4xvector<4xf32>, "prv">
// CHECK:         [[NEG:%[0-9]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    [[NEGV:%[0-9]+]] = vector.broadcast [[NEG]] : f32 to vector<4xf32>
// CHECK-NEXT:    lowlevel.fill [[LANES]] with [[NEGV]] : memref<1x4xvector<4xf32>, "prv">, vector<4xf32>
// CHECK:         lowlevel.tile_for "el" dim 1({{.*}}) tile 4 parts 1 part %{{[0-9]+}} max 16 {
// CHECK:           [[MV:%[0-9]+]] = lowlevel.view_load {{.*}} -> vector<4xf32>
// CHECK-NEXT:      [[VV:%[0-9]+]] = lowlevel.view_load {{.*}} -> vector<4xf32>
// CHECK-NEXT:      [[P:%[0-9]+]] = func.call @mul_v4([[MV]], [[VV]])
// CHECK-NEXT:      [[OLD:%[0-9]+]] = memref.load [[LANES]]{{\[}}[[ROW:%[0-9]+, %[0-9]+]]] : memref<1x4xvector<4xf32>, "prv">
// CHECK-NEXT:      [[NEW:%[0-9]+]] = func.call @max_v4([[OLD]], [[P]])
// CHECK-NEXT:      memref.store [[NEW]], [[LANES]]{{\[}}[[ROW]]] : memref<1x4xvector<4xf32>, "prv">
// The flush combines the lanes in a tree.
// CHECK:         [[L:%[0-9]+]] = memref.load [[LANES]]{{.*}} : memref<1x4xvector<4xf32>, "prv">
// CHECK-NEXT:    [[L0:%[0-9]+]] = vector.extract [[L]][0] : f32 from vector<4xf32>
// CHECK-NEXT:    [[L1:%[0-9]+]] = vector.extract [[L]][1] : f32 from vector<4xf32>
// CHECK-NEXT:    [[L2:%[0-9]+]] = vector.extract [[L]][2] : f32 from vector<4xf32>
// CHECK-NEXT:    [[L3:%[0-9]+]] = vector.extract [[L]][3] : f32 from vector<4xf32>
// CHECK-NEXT:    [[M01:%[0-9]+]] = func.call @max([[L0]], [[L1]])
// CHECK-NEXT:    [[M23:%[0-9]+]] = func.call @max([[L2]], [[L3]])
// CHECK-NEXT:    [[M:%[0-9]+]] = func.call @max([[M01]], [[M23]])
// CHECK-NEXT:    memref.store [[M]], [[OUT]]

// relu through a compare at f64, plus the compare's truth as 1.0: on 4 lanes the compare
// gives an i64 mask, narrowed to select f32 lanes, and its truth is the mask and 1.
func.func @relu_plus(%x: f32) -> f32 {
  %z = arith.constant 0.0 : f64
  %w = arith.extf %x : f32 to f64
  %c = arith.cmpf ogt, %w, %z : f64
  %zero = arith.constant 0.0 : f32
  %r = arith.select %c, %x, %zero : f32
  %one = arith.uitofp %c : i1 to f32
  %s = arith.addf %r, %one : f32
  func.return %s : f32
}
func.func @act(%x: memref<2x8xf32>) -> memref<2x8xf32> {
  %y = mdh.compute "act"
    {inp_view = [[affine_map<(i, j) -> (i, j)>]],
     md_hom = {scalar_func = @relu_plus, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i, j) -> (i, j)>]]}
    {inp_types = [f32], mda_size = [2, 8], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [1, 1], lt_size = [1, 8], pt_size = [1, 8],
                          vector_width = 4>}
    (%x) : (memref<2x8xf32>) -> memref<2x8xf32>
  func.return %y : memref<2x8xf32>
}

// CHECK-LABEL: func.func @relu_plus_v4(
// CHECK-SAME:      [[X:%[0-9]+]]: vector<4xf32>) -> vector<4xf32> {
// CHECK:         [[W:%[0-9]+]] = lowlevel.convert [[X]] : vector<4xf32> to vector<4xf64>
// CHECK:         [[C:%[0-9]+]] = lowlevel.mask_compare "ogt", [[W]], {{%[0-9]+}} : vector<4xf64> to vector<4xi64>
// CHECK:         [[C32:%[0-9]+]] = lowlevel.convert [[C]] : vector<4xi64> to vector<4xi32>
// CHECK-NEXT:    [[R:%[0-9]+]] = lowlevel.mask_select [[C32]], [[X]], {{%[0-9]+}} : vector<4xi32>, vector<4xf32>
// CHECK:         [[ONES:%[0-9]+]] = vector.broadcast {{%[0-9]+}} : i64 to vector<4xi64>
// CHECK-NEXT:    [[BIT:%[0-9]+]] = arith.andi [[C]], [[ONES]] : vector<4xi64>
// CHECK-NEXT:    [[ONE:%[0-9]+]] = lowlevel.convert [[BIT]] : vector<4xi64> to vector<4xf32>
// CHECK-NEXT:    [[S:%[0-9]+]] = arith.addf [[R]], [[ONE]] : vector<4xf32>
// CHECK-NEXT:    func.return [[S]] : vector<4xf32>
