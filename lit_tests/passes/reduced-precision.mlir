// RUN: mdh-opt %s -p 'mdh-default-config,mdh-check-config' | mdh-opt -p mdh-tile | filecheck %s --check-prefix=TILE
// RUN: mdh-opt %s -p 'mdh-default-config,mdh-check-config,mdh-tile,mdh-assign-asm,mdh-promote-memory,mdh-place-combine' | mdh-opt -p lowlevel-expand | filecheck %s --check-prefix=EXPAND

// Reduced-precision inputs through the passes:
// - mdh-tile: a view_load of an f16 (or bf16) buffer gives the f32 of the element, which
//   the scalar function takes; with precision "tf32" each read is rounded by
//   lowlevel.round_tf32 before the scalar function sees it;
// - mdh-promote-memory keeps the 16-bit element type in the local copy;
// - lowlevel-expand moves the copy's elements as f16 (memref.load / store) and reads the
//   computation's values with lowlevel.load_widened.

func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
func.func @mv(%M: memref<8x6xf16>, %v: memref<6xf32>) -> memref<8xf32> {
  %w = mdh.compute "mv"
    {inp_view = [[affine_map<(i, k) -> (i, k)>], [affine_map<(i, k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = ["cc", ["pw", "add"]]},
     out_view = [[affine_map<(i, k) -> (i)>]]}
    {inp_types = [f16, f32], mda_size = [8, 6], out_types = [f32],
     config = #mdh.config<num_wg = [2, 1], num_wi = [2, 1], lt_size = [4, 6], pt_size = [2, 6],
                          inp_mem = [["lcl", "glb"], ["glb", "glb"]]>}
    (%M, %v) : (memref<8x6xf16>, memref<6xf32>) -> memref<8xf32>
  func.return %w : memref<8xf32>
}
// TILE-LABEL: func.func @mv(
// TILE:         %[[M:.*]] = lowlevel.view_load %{{.*}} affine_map<(d0, d1) -> (d0, d1)> boundary "none" : memref<8x6xf16> -> f32
// TILE-NEXT:    %[[V:.*]] = lowlevel.view_load %{{.*}} affine_map<(d0, d1) -> (d1)> boundary "none" : memref<6xf32> -> f32
// TILE-NEXT:    func.call @mul(%[[M]], %[[V]]) : (f32, f32) -> f32

// EXPAND-LABEL: lowlevel.kernel @mv_0(
// EXPAND:         %[[LCL:.*]] = memref.alloca() : memref<4x6xf16, "lcl">
// EXPAND:         %[[E:.*]] = memref.load %{{.*}} : memref<8x6xf16>
// EXPAND-NEXT:    memref.store %[[E]], %[[LCL]][%{{.*}}, %{{.*}}] : memref<4x6xf16, "lcl">
// EXPAND:         lowlevel.load_widened %[[LCL]][%{{.*}}, %{{.*}}] : memref<4x6xf16, "lcl"> -> f32

func.func @dot(%x: memref<8xf32>, %y: memref<8xf32>) -> memref<f32> {
  %d = mdh.compute "dot"
    {inp_view = [[affine_map<(k) -> (k)>], [affine_map<(k) -> (k)>]],
     md_hom = {scalar_func = @mul, combine_ops = [["pw", "add"]]},
     out_view = [[affine_map<(k) -> ()>]]}
    {inp_types = [f32, f32], mda_size = [8], out_types = [f32], precision = "tf32"}
    (%x, %y) : (memref<8xf32>, memref<8xf32>) -> memref<f32>
  func.return %d : memref<f32>
}
// TILE-LABEL: func.func @dot(
// TILE:         %[[X:.*]] = lowlevel.view_load %{{.*}} : memref<8xf32> -> f32
// TILE-NEXT:    %[[Y:.*]] = lowlevel.view_load %{{.*}} : memref<8xf32> -> f32
// TILE-NEXT:    %[[RX:.*]] = lowlevel.round_tf32 %[[X]] : f32
// TILE-NEXT:    %[[RY:.*]] = lowlevel.round_tf32 %[[Y]] : f32
// TILE-NEXT:    func.call @mul(%[[RX]], %[[RY]]) : (f32, f32) -> f32
