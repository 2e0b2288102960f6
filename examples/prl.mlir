// Probabilistic record linkage: for each record i of A, its best match j in B and the match
// weight. The weight adds, per integer field, an agree/disagree weight, and for the date
// field a weight for |a - b| <= 0.25 or not. md_hom: weight, (cc, best) where @best keeps
// the heavier (weight, index) pair, the smaller index on ties.
func.func @weight(%a0: i32, %a1: i32, %a2: i32, %b0: i32, %b1: i32, %b2: i32,
                  %ad: f32, %bd: f32, %i: index, %j: index) -> (f32, i32) {
  %diff = arith.subf %ad, %bd : f32
  %dist = math.absf %diff : f32
  %tol = arith.constant 0.25 : f32
  %close = arith.cmpf ole, %dist, %tol : f32
  %w_close = arith.constant 2.5 : f32
  %w_far = arith.constant -0.5 : f32
  %w0 = arith.select %close, %w_close, %w_far : f32
  %eq0 = arith.cmpi eq, %a0, %b0 : i32
  %agree0 = arith.constant 4.0 : f32
  %disagree0 = arith.constant -2.0 : f32
  %f0 = arith.select %eq0, %agree0, %disagree0 : f32
  %w1 = arith.addf %w0, %f0 : f32
  %eq1 = arith.cmpi eq, %a1, %b1 : i32
  %agree1 = arith.constant 3.0 : f32
  %disagree1 = arith.constant -1.5 : f32
  %f1 = arith.select %eq1, %agree1, %disagree1 : f32
  %w2 = arith.addf %w1, %f1 : f32
  %eq2 = arith.cmpi eq, %a2, %b2 : i32
  %agree2 = arith.constant 2.0 : f32
  %disagree2 = arith.constant -1.0 : f32
  %f2 = arith.select %eq2, %agree2, %disagree2 : f32
  %w3 = arith.addf %w2, %f2 : f32
  %id = arith.index_cast %j : index to i32
  func.return %w3, %id : f32, i32
}
func.func @best(%w1: f32, %j1: i32, %w2: f32, %j2: i32) -> (f32, i32) {
  %heavier = arith.cmpf ogt, %w2, %w1 : f32
  %tie = arith.cmpf oeq, %w2, %w1 : f32
  %smaller = arith.cmpi slt, %j2, %j1 : i32
  %tie_smaller = arith.andi %tie, %smaller : i1
  %second = arith.ori %heavier, %tie_smaller : i1
  %w = arith.select %second, %w2, %w1 : f32
  %j = arith.select %second, %j2, %j1 : i32
  func.return %w, %j : f32, i32
}
func.func @prl(%A: memref<13x3xi32>, %B: memref<40x3xi32>, %A_date: memref<13xf32>, %B_date: memref<40xf32>)
    -> (memref<13xf32>, memref<13xi32>) {
  %weight, %match = mdh.compute "mdh_prl"
  {
    inp_view = [ [ affine_map<(i,j) -> (i,0)>, affine_map<(i,j) -> (i,1)>, affine_map<(i,j) -> (i,2)> ],
                 [ affine_map<(i,j) -> (j,0)>, affine_map<(i,j) -> (j,1)>, affine_map<(i,j) -> (j,2)> ],
                 [ affine_map<(i,j) -> (i)> ], [ affine_map<(i,j) -> (j)> ] ],
    md_hom   = { scalar_func = @weight, combine_ops = [ "cc", ["pw", @best] ] },
    out_view = [ [ affine_map<(i,j) -> (i)> ], [ affine_map<(i,j) -> (i)> ] ]
  }
  { inp_types = [ i32, i32, f32, f32 ], mda_size = [ 13, 40 ], out_types = [ f32, i32 ] }
  (%A, %B, %A_date, %B_date) : (memref<13x3xi32>, memref<40x3xi32>, memref<13xf32>, memref<40xf32>)
    -> (memref<13xf32>, memref<13xi32>)
  func.return %weight, %match : memref<13xf32>, memref<13xi32>
}
