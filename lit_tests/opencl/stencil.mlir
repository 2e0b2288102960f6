// RUN: mdh-opt %s -p 'lower-to-opencl{device=gpu}' -t opencl | filecheck %s

// A stencil with boundary "zero", cached in local memory (18 elements per 16-point local
// tile) and in private memory (6 elements per 4-point private tile); 3 work-groups of 4
// work-items, both on OpenCL dimension 0. Checked: min/max for index arithmetic, the
// zero boundary as a select, the copy from local to private memory clamped into the
// local box (only discarded points read outside it), the padded private tiles (one whole tile of 4 a work-item, 37 not being a
// multiple of 16: constant trip counts, the store guarded by the local tile's end), and
// the private-memory reads of the three accesses.

// CHECK-LABEL: static float mdh_avg3(
// CHECK-SAME:  float [[L:v[0-9]+]], float [[C:v[0-9]+]], float [[R:v[0-9]+]]) {
// CHECK-NEXT:    const float [[S0:v[0-9]+]] = [[L]] + [[C]];
// CHECK-NEXT:    const float [[S1:v[0-9]+]] = [[S0]] + [[R]];
// CHECK-NEXT:    const float [[A:v[0-9]+]] = [[S1]] / 3.0f;
// CHECK-NEXT:    return [[A]];
// CHECK-NEXT:  }
// CHECK-LABEL: __kernel __attribute__((reqd_work_group_size(4, 1, 1))) void jacobi1d_0(
// CHECK-SAME:  __global const float* restrict [[X:v[0-9]+]], __global float* restrict [[Y:v[0-9]+]]) {
// CHECK-NEXT:    float [[XP:v[0-9]+]][6];
// CHECK-NEXT:    __local float [[XL:v[0-9]+]][18] __attribute__((aligned(16)));
// CHECK-NEXT:    const int [[G:v[0-9]+]] = (int)get_group_id(0);
// CHECK-NEXT:    const int [[WI:v[0-9]+]] = (int)get_local_id(0);
// CHECK-NEXT:    const int [[OFF:v[0-9]+]] = [[G]] * 16;
// CHECK-NEXT:    const int [[REST:v[0-9]+]] = 37 - [[OFF]];
// CHECK-NEXT:    const int [[SIZE:v[0-9]+]] = min(16, [[REST]]);
// CHECK-NEXT:    const int [[ORG:v[0-9]+]] = [[OFF]] + (-1);
// CHECK-NEXT:    for (int [[F:v[0-9]+]] = [[WI]]; [[F]] < 18; [[F]] += 4) {
// CHECK-NEXT:      const int [[J:v[0-9]+]] = [[ORG]] + [[F]];
// CHECK-NEXT:      const int [[LO:v[0-9]+]] = max([[J]], 0);
// CHECK-NEXT:      const int [[K:v[0-9]+]] = min([[LO]], 36);
// CHECK-NEXT:      const float [[E:v[0-9]+]] = [[X]][[[K]]];
// CHECK-NEXT:      const bool [[GE:v[0-9]+]] = [[J]] >= 0;
// CHECK-NEXT:      const bool [[LT:v[0-9]+]] = [[J]] < 37;
// CHECK-NEXT:      const bool [[IN:v[0-9]+]] = [[GE]] & [[LT]];
// CHECK-NEXT:      const float [[Z:v[0-9]+]] = [[IN]] ? [[E]] : 0.0f;
// CHECK-NEXT:      [[XL]][[[F]]] = [[Z]];
// CHECK-NEXT:    }
// CHECK-NEXT:    barrier(CLK_LOCAL_MEM_FENCE);
// CHECK-NEXT:    const int [[PO:v[0-9]+]] = [[WI]] * 4;
// CHECK-NEXT:    const int [[PS:v[0-9]+]] = [[OFF]] + [[PO]];
// CHECK-NEXT:    const int [[PORG:v[0-9]+]] = [[PS]] + (-1);
// CHECK-NEXT:    const int [[BASE:v[0-9]+]] = [[PORG]] - [[ORG]];
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int [[C2:v[0-9]+]] = 0; [[C2]] < 6; [[C2]] += 1) {
// CHECK-NEXT:      const int [[Q:v[0-9]+]] = [[BASE]] + [[C2]];
// CHECK-NEXT:      const int [[Q0:v[0-9]+]] = max([[Q]], 0);
// CHECK-NEXT:      const int [[Q1:v[0-9]+]] = min([[Q0]], 17);
// CHECK-NEXT:      const float [[QE:v[0-9]+]] = [[XL]][[[Q1]]];
// CHECK-NEXT:      [[XP]][[[C2]]] = [[QE]];
// CHECK-NEXT:    }
// CHECK-NEXT:    #pragma unroll
// CHECK-NEXT:    for (int [[EL:v[0-9]+]] = 0; [[EL]] < 4; [[EL]] += 1) {
// CHECK-NEXT:      const int [[I:v[0-9]+]] = [[PS]] + [[EL]];
// CHECK:           const float [[VL:v[0-9]+]] = [[XP]][v{{[0-9]+}}];
// CHECK:           const float [[VC:v[0-9]+]] = [[XP]][v{{[0-9]+}}];
// CHECK:           const float [[VR:v[0-9]+]] = [[XP]][v{{[0-9]+}}];
// CHECK-NEXT:      const float [[OUT:v[0-9]+]] = mdh_avg3([[VL]], [[VC]], [[VR]]);
// CHECK-NEXT:      const int [[END:v[0-9]+]] = [[OFF]] + [[SIZE]];
// CHECK-NEXT:      const bool [[INSIDE:v[0-9]+]] = [[I]] < [[END]];
// CHECK-NEXT:      if ([[INSIDE]]) {
// CHECK-NEXT:        [[Y]][[[I]]] = [[OUT]];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    barrier(CLK_LOCAL_MEM_FENCE);
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  // host jacobi1d([[HX:v[0-9]+]]: memref<37xf32>)
// CHECK-NEXT:  //   [[HY:v[0-9]+]] = buffer memref<37xf32>
// CHECK-NEXT:  //   launch jacobi1d_0([[HX]], [[HY]]) global [12, 1, 1] local [4, 1, 1]
// CHECK-NEXT:  //   return [[HY]]

func.func @avg3(%l: f32, %c: f32, %r: f32) -> f32 {
  %s0 = arith.addf %l, %c : f32
  %s1 = arith.addf %s0, %r : f32
  %three = arith.constant 3.0 : f32
  %avg = arith.divf %s1, %three : f32
  func.return %avg : f32
}
func.func @jacobi1d(%x: memref<37xf32>) -> memref<37xf32> {
  %y = mdh.compute "jacobi1d"
    {inp_view = [[affine_map<(i) -> (i - 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>]],
     md_hom = {scalar_func = @avg3, combine_ops = ["cc"]},
     out_view = [[affine_map<(i) -> (i)>]], boundary = ["zero"]}
    {inp_types = [f32], mda_size = [37], out_types = [f32],
     config = #mdh.config<num_wg = [3], num_wi = [4], lt_size = [16], pt_size = [4], inp_mem = [["lcl"], ["prv"]],
                          ocl_dim = [[0], [0]]>}
    (%x) : (memref<37xf32>) -> memref<37xf32>
  func.return %y : memref<37xf32>
}
