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
// CHECK-NEXT:   mdh-vectorize           apply `vector_width` and `unroll`
// CHECK-NEXT:   lowlevel-prefetch       apply `prefetch`, loading the next local tile during this one.
// CHECK-NEXT:   lowlevel-expand         rewrite the structured `lowlevel` ops into scf/arith/memref.
// CHECK-NEXT:   lowlevel-align-vectors  mark the vector loads and stores aligned to their size.
// CHECK-NEXT:   lower-to-opencl         the whole pipeline from `mdh.compute` to printable low-level IR.
// CHECK-NEXT:   convert-linalg-to-mdh   rewrite `linalg.generic` and named linalg ops into `mdh.compute`.
// CHECK-NEXT:   mdh-bufferize           give the host functions of `mdh.compute` ops buffers instead of tensors.
