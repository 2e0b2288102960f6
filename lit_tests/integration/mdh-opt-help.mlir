// RUN: mdh-opt --help | filecheck %s

// `mdh-opt --help` ends with our passes, one line each: the first line of the pass
// module's docstring.

// CHECK:      mdh_ir passes (xDSL's passes are available too):
// CHECK-NEXT:   mdh-default-config      give every `mdh.compute` a complete tuning configuration.
// CHECK-NEXT:   mdh-check-config        refuse a configuration
// CHECK-NEXT:   mdh-tile                de-compose each `mdh.compute` into tile loops
// CHECK-NEXT:   mdh-assign-asm          bind the de-composition to the OpenCL system model
// CHECK-NEXT:   mdh-promote-memory      cache input tiles in local and private memory
// CHECK-NEXT:   mdh-place-combine       spell out the re-composition
// CHECK-NEXT:   mdh-mma                 compute private tiles of a sum of products on tensor-core fragments.
// CHECK-NEXT:   mdh-vectorize           apply `vector_width` and `unroll`
// CHECK-NEXT:   mdh-keep-rows           a kernel group's row statistics and rows kept on chip across its phases.
// CHECK-NEXT:   lowlevel-prefetch       apply `prefetch`, loading the next local tile during this one.
// CHECK-NEXT:   lowlevel-expand         rewrite the structured `lowlevel` ops into scf/arith/memref.
// CHECK-NEXT:   lowlevel-expand-mma     `lowlevel.mma` as multiply-adds and `lowlevel.ldmatrix` as loads, for devices without tensor cores.
// CHECK-NEXT:   lowlevel-tf32-ptx       TF32 rounding by the device's conversion instruction.
// CHECK-NEXT:   lowlevel-hoist-loads    issue input reads before the barriers that precede them.
// CHECK-NEXT:   lowlevel-align-vectors  mark the vector loads and stores aligned to their size.
// CHECK-NEXT:   lowlevel-async-copies   the moves of asynchronous copies as `cp.async`, or as they are.
// CHECK-NEXT:   lowlevel-swizzle-local  the accesses of swizzled local buffers, rows' chunks permuted.
// CHECK-NEXT:   lower-to-opencl         the whole pipeline from `mdh.compute` to printable low-level IR.
// CHECK-NEXT:   convert-linalg-to-mdh   rewrite `linalg.generic` and named linalg ops into `mdh.compute`.
// CHECK-NEXT:   mdh-bufferize           give the host functions of `mdh.compute` ops buffers instead of tensors.
// CHECK-NEXT:   mdh-fuse                fuse chained ops: epilogues, prologues and row statistics.
// CHECK-NEXT:   mdh-split-stats         an op with row statistics into one op per phase, of one kernel group.
// CHECK-NEXT:   lowlevel-merge-kernels  the kernels of one kernel group become one kernel.
