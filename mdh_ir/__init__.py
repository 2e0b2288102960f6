"""mdh_ir: Multi-Dimensional Homomorphisms as a multi-level compiler on xDSL."""
