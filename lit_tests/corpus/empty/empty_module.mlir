// An empty module.
// EXPECT: expected one mdh.compute in the module, found 0
// EXPECT-OPT: ok
// EXPECT-LOWER: ok
builtin.module {
}
