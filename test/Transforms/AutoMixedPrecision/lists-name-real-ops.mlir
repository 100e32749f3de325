// A list entry that cannot take effect is an error, never silently ignored:
// a misspelt op, an unknown dialect, an empty name, a key given twice in a
// lists-file, or a terminator (its types follow its parent op or its
// successors, so retyping it would break them).
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=tg.matmull" 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=foo.bar" 2>&1 | FileCheck %s --check-prefix=DIALECT
// RUN: echo '{"allow": [""]}' > %t.empty.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.empty.json" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: echo '{"allow": ["tg.matmul"], "deny": ["tg.exp"], "allow": ["tg.add"]}' > %t.dup.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.dup.json" 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not amp-opt %s --amp-auto-mixed-precision="clear=scf.yield" 2>&1 | FileCheck %s --check-prefix=YIELD
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=func.return" 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not amp-opt %s --amp-auto-mixed-precision="infer=cf.br" 2>&1 | FileCheck %s --check-prefix=BRANCH
// RUN: not amp-opt %s --amp-auto-mixed-precision="cast-op=fp16" 2>&1 | FileCheck %s --check-prefix=CASTOP
// Ops of dialects registered but not used by the module cannot be checked
// and cannot occur: a shared lists-file may name them.
// RUN: echo '{"allow": ["tosa.conv2d"]}' > %t.tosa.json
// RUN: amp-opt %s --amp-auto-mixed-precision="lists-file=%t.tosa.json" | FileCheck %s --check-prefix=UNUSED

// TYPO: error: amp-auto-mixed-precision: 'tg.matmull' in the pass options names no op of dialect 'tg'
// DIALECT: error: amp-auto-mixed-precision: 'foo.bar' in the pass options names no known dialect ('foo')
// EMPTY: error: amp-auto-mixed-precision: '' in lists-file '{{.*}}' is an empty op name
// DUP: error: amp-auto-mixed-precision: lists-file '{{.*}}' names the key "allow" twice
// YIELD: error: amp-auto-mixed-precision: 'scf.yield' in the pass options is a terminator: its types follow its parent op or successors, so it cannot be listed
// RETURN: error: amp-auto-mixed-precision: 'func.return' in the pass options is a terminator
// BRANCH: error: amp-auto-mixed-precision: 'cf.br' in the pass options is a terminator
// CASTOP: for the --cast-op option: Cannot find option named 'fp16'!
// UNUSED: tg.matmul {{.*}} : tensor<4x4xf16>

func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %x, %x : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
