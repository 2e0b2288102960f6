// Comments only: no operation.
// EXPECT: 1:1: the input holds no operation
// nothing else

