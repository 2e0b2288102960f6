// Histogram: count[b] = number of elements e with x[e] == b  (md_hom: counting, (+, cc));
// the scalar function receives the point's indices (e, b).
func.func @count(%x: i32, %e: index, %b: index) -> i32 {
  %bin = arith.index_cast %b : index to i32
  %hit = arith.cmpi eq, %x, %bin : i32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %r = arith.select %hit, %one, %zero : i32
  func.return %r : i32
}
func.func @add(%a: i32, %b: i32) -> i32 {
  %r = arith.addi %a, %b : i32
  func.return %r : i32
}
func.func @histogram(%x: memref<1000xi32>) -> memref<16xi32> {
  %count = mdh.compute "mdh_histogram"
  {
    inp_view = [ [ affine_map<(e,b) -> (e)> ] ],
    md_hom   = { scalar_func = @count, combine_ops = [ ["pw", @add], "cc" ] },
    out_view = [ [ affine_map<(e,b) -> (b)> ] ]
  }
  { inp_types = [ i32 ], mda_size = [ 1000, 16 ], out_types = [ i32 ] }
  (%x) : (memref<1000xi32>) -> memref<16xi32>
  func.return %count : memref<16xi32>
}
