// A file without operations, an empty file and a file that is not UTF-8: each gives one
// diagnostic and exit status 1.

// RUN: not mdh-opt %s 2>&1 | filecheck %s --check-prefix=COMMENTS --match-full-lines
// COMMENTS: {{.*}}input_errors.mlir:1:1: error: the input holds no operation
// COMMENTS-NOT: {{.*}}Traceback{{.*}}

// RUN: printf '' > %t.empty.mlir
// RUN: not mdh-opt %t.empty.mlir 2>&1 | filecheck %s --check-prefix=EMPTY --match-full-lines
// EMPTY: {{.*}}.empty.mlir:1:1: error: the input holds no operation
// EMPTY-NOT: {{.*}}Traceback{{.*}}

// The invalid byte \377 is the 6th character of line 4 ('é' is one character).
// RUN: printf 'func.func @f() {\n  func.return\n}\n// \303\251 \377\n' > %t.latin1.mlir
// RUN: not mdh-opt %t.latin1.mlir 2>&1 | filecheck %s --check-prefix=UTF8 --match-full-lines
// UTF8: {{.*}}.latin1.mlir:4:6: error: input is not valid UTF-8
// UTF8-NOT: {{.*}}Traceback{{.*}}
