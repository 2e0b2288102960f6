// RUN: mdh-opt %s -p mdh-fuse | mdh-opt -p 'mdh-default-config{device=gpu},mdh-check-config{device=gpu},mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine,mdh-vectorize,lowlevel-expand,dce,cse' | mdh-opt -p lowlevel-hoist-loads | filecheck %s
// RUN: mdh-opt %s -p mdh-fuse | mdh-opt -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s --check-prefix=CL

// lowlevel-hoist-loads: a matrix product whose 16 work-items share k (a tree of
// barriers in local memory), with the epilogue bias + ReLU, read by work-item 0 where
// it writes the output, after the tree. The bias read's index (the work-group's column)
// is known at the kernel's start: the read moves there, before the first barrier, its
// index clamped into the bias's 6 elements; the reads of A and B in the reduction and
// the tree's reads of local memory stay where they are.
//
// @mm_bias_relu_loop: each work-item computes 2 columns, written (with their bias) in a
// loop of 2 trips after the tree. The loop is unrolled, and each bias read moves to the
// kernel's start with the index it computes (the work-group's first column + 0 or 1).

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @add(%a: f32, %b: f32) -> f32 {
  %r = arith.addf %a, %b : f32
  func.return %r : f32
}
func.func @bias_relu(%c: f32, %b: f32) -> f32 {
  %s = arith.addf %c, %b : f32
  %z = arith.constant 0.0 : f32
  %r = arith.maximumf %s, %z : f32
  func.return %r : f32
}
func.func @mm_bias_relu_loop(%A: memref<3x32xf32>, %B: memref<32x8xf32>, %b: memref<8xf32>) -> memref<3x8xf32> {
  %C = mdh.compute "mm2"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [3, 8, 32], out_types = [f32],
     config = #mdh.config<num_wg = [3, 4, 1], num_wi = [1, 1, 16], lt_size = [1, 2, 32], pt_size = [1, 2, 2],
       inp_mem = [["glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], combine_layer = "end", vector_width = 1>}
    (%A, %B) : (memref<3x32xf32>, memref<32x8xf32>) -> memref<3x8xf32>
  %R = mdh.compute "bias_relu2"
    {inp_view = [[affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (j)>]],
     md_hom = {scalar_func = @bias_relu, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [3, 8], out_types = [f32]}
    (%C, %b) : (memref<3x8xf32>, memref<8xf32>) -> memref<3x8xf32>
  func.return %R : memref<3x8xf32>
}

func.func @mm_bias_relu(%A: memref<3x32xf32>, %B: memref<32x6xf32>, %b: memref<6xf32>) -> memref<3x6xf32> {
  %C = mdh.compute "mm"
    {inp_view = [[affine_map<(i,j,k) -> (i,k)>], [affine_map<(i,j,k) -> (k,j)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", "cc", ["pw", @add]]},
     out_view = [[affine_map<(i,j,k) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [3, 6, 32], out_types = [f32],
     config = #mdh.config<num_wg = [3, 6, 1], num_wi = [1, 1, 16], lt_size = [1, 1, 32], pt_size = [1, 1, 2],
       inp_mem = [["glb", "glb"], ["glb", "glb"]], res_mem = ["prv"], combine_layer = "end", vector_width = 1>}
    (%A, %B) : (memref<3x32xf32>, memref<32x6xf32>) -> memref<3x6xf32>
  %R = mdh.compute "bias_relu"
    {inp_view = [[affine_map<(i,j) -> (i,j)>], [affine_map<(i,j) -> (j)>]],
     md_hom = {scalar_func = @bias_relu, combine_ops = ["cc", "cc"]},
     out_view = [[affine_map<(i,j) -> (i,j)>]]}
    {inp_types = [f32, f32], mda_size = [3, 6], out_types = [f32]}
    (%C, %b) : (memref<3x6xf32>, memref<6xf32>) -> memref<3x6xf32>
  func.return %R : memref<3x6xf32>
}

// CHECK:       lowlevel.kernel @mm_bias_relu_loop_0(%{{.*}}: memref<3x32xf32>, %{{.*}}: memref<32x8xf32>, %{{.*}}: memref<3x8xf32>, %[[BIAS2:.*]]: memref<8xf32>)
// CHECK:         %[[FIRST:.*]] = arith.muli
// CHECK:         %[[COL0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:         %[[B0:.*]] = memref.load %[[BIAS2]][%{{.*}}] : memref<8xf32>
// CHECK:         %[[COL1:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:         %[[B1:.*]] = memref.load %[[BIAS2]][%{{.*}}] : memref<8xf32>
// CHECK:         lowlevel.barrier
// CHECK-NOT:     memref.load %[[BIAS2]]
// CHECK:         func.call @bias_relu(%{{.*}}, %[[B0]])
// CHECK-NEXT:    memref.store
// CHECK-NOT:     memref.load %[[BIAS2]]
// CHECK:         func.call @bias_relu(%{{.*}}, %[[B1]])

// CHECK:       lowlevel.kernel @mm_bias_relu_0(%{{.*}}: memref<3x32xf32>, %{{.*}}: memref<32x6xf32>, %{{.*}}: memref<3x6xf32>, %[[BIAS:.*]]: memref<6xf32>)
// CHECK:         %[[COL:.*]] = lowlevel.group_id 0
// CHECK-NEXT:    %[[LAST:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[COL]], %[[LAST]] : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[AT:.*]] = arith.maxsi %[[MIN]], %[[ZERO]] : index
// CHECK-NEXT:    %[[B:.*]] = memref.load %[[BIAS]][%[[AT]]] : memref<6xf32>
// CHECK:         scf.for
// CHECK:           memref.load %{{.*}} : memref<3x32xf32>
// CHECK-NEXT:      memref.load %{{.*}} : memref<32x6xf32>
// CHECK:         lowlevel.barrier
// CHECK-NOT:     memref.load %[[BIAS]]
// CHECK:         func.call @bias_relu(%{{.*}}, %[[B]])

// CL: __kernel {{.*}} void mm_bias_relu_0(
// CL: const float [[B:v[0-9]+]] = {{v[0-9]+}}[{{v[0-9]+}}];
// CL: barrier(CLK_LOCAL_MEM_FENCE);
// CL: mdh_bias_relu({{v[0-9]+}}, [[B]]);
