// Valid IR without an mdh.compute: mdh-opt accepts it, mdh-run and mdh-tune have nothing to run.
// EXPECT: expected one mdh.compute in the module, found 0
// EXPECT-OPT: ok
// EXPECT-LOWER: ok
// EXPECT-RUN: the module holds no mdh.compute
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith.mulf %a, %b : f32
  func.return %r : f32
}
