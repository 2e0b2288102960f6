// Valid tokens in an invalid order.
// EXPECT: 3:13: string literal expected (the computation's name)
mdh.compute func.func %w = @mul affine_map<(i) -> (i)> { } ( ) : -> memref<8xf32>
