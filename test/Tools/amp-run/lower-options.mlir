// --lower-options passes options to amp-lower-to-runtime. Adding a
// product's bias in its epilogue (the default) trains exactly as the
// separate bias add does: the same per-step losses, bit for bit, for the
// CNN (convolutions and a dense layer) in f32 and f16. An unknown option is
// an error.
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f32 --steps=4 --log-every=4 --report=%t.f32.fused.json
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f32 --steps=4 --log-every=4 --report=%t.f32.apart.json --lower-options=fuse-bias-epilogues=0
// RUN: %python %S/check_same_losses.py %t.f32.fused.json %t.f32.apart.json | FileCheck %s
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.f16.fused.json
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.f16.apart.json --lower-options="fuse-bias-epilogues=0 reshape-views=0"
// RUN: %python %S/check_same_losses.py %t.f16.fused.json %t.f16.apart.json | FileCheck %s
// RUN: not amp-run %S/../../../python-bindings-free-examples/cnn.mlir --steps=1 --lower-options=fuse-everything=1 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not amp-run %S/../../../python-bindings-free-examples/cnn.mlir --steps=1 --lower-options=reshape-views=maybe 2>&1 | FileCheck %s --check-prefix=VALUE
// CHECK: ok: same losses, 4 steps
// BAD: amp-run: error: --lower-options: no such option fuse-everything{{$}}
// BAD-NOT: {{.}}
// VALUE: for the --reshape-views option: 'maybe' is invalid value for boolean argument
// VALUE-NEXT: amp-run: error: --lower-options: 'reshape-views=maybe' is not a valid option list (the reason is above; see amp-lower-to-runtime's options in docs/Passes)
