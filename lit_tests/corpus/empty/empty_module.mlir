// An empty module.
// EXPECT: expected one mdh.compute in the module, found 0
// EXPECT-OPT: ok
// EXPECT-LOWER: ok
// EXPECT-RUN: the module holds no mdh.compute
builtin.module {
}
