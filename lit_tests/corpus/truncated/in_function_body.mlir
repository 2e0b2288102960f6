// Only the first line of the scalar function survives.
// EXPECT: 4:3: Operation arith is not registered
func.func @mul(%a: f32, %b: f32) -> f32 {
  %r = arith