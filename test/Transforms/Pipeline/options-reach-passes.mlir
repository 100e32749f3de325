// Every --amp-pipeline option reaches the pass it belongs to: each is set
// here to a value other than its default, and the printed pipeline shows
// it on that pass. The last RUN line fails when the pipeline gains an
// option this test does not set.
// RUN: echo '{}' > %t.lists.json
// RUN: amp-opt %s --dump-pass-pipeline --amp-pipeline="precision=fp8 fp8-format=e4m3 fp8-scaling=current amax-history-len=16 fp8-margin=2 allow=tg.exp infer=tg.log clear=tg.tanh deny=tg.add lists-file=%t.lists.json level=infer-as-deny keep-io-types=false constant-overflow=saturate cast-op=arith annotate=true report=%t.report.json remarks=true tensor-core-summary=false accumulate=4 pad-tensor-cores=true mode=static init-scale=1024.5 growth-factor=4 backoff-factor=0.25 growth-interval=100 min-scale=2 max-scale=4096 data-parallel=true grad-comm=bf16 bucket-bytes=1024 reduce-amax=false probe-gradients=step" 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: amp-opt %s --dump-pass-pipeline --amp-pipeline="step=probed probe-functions=step precision=bf16 fp8-format=e4m3 fp8-margin=2 allow=tg.exp infer=tg.log clear=tg.tanh deny=tg.add lists-file=%t.lists.json level=force-all constant-overflow=saturate" 2>&1 | FileCheck %s --check-prefix=PROBED
// RUN: amp-opt %s --dump-pass-pipeline --amp-pipeline="step=f32 precision=fp8 pad-tensor-cores=true accumulate=2" 2>&1 | FileCheck %s --check-prefix=F32
// RUN: amp-opt --help | %python %S/check_options_set.py %s | FileCheck %s --check-prefix=ALL

// MIXED: amp-pad-for-tensor-cores{precision=fp8 remarks=true}
// MIXED-NEXT: tg-autodiff
// MIXED-NEXT: amp-auto-mixed-precision{allow={tg.exp} amax-history-len=16 annotate=true cast-op=arith clear={tg.tanh} constant-overflow=saturate deny={tg.add} fp8-format=e4m3 fp8-margin=2 fp8-scaling=current infer={tg.log} keep-io-types=false level=infer-as-deny lists-file={{.*}}.lists.json precision=fp8 remarks=true report={{.*}}.report.json tensor-core-summary=false}
// MIXED-NEXT: amp-accumulate-gradients{micro-batches=4}
// MIXED-NEXT: amp-loss-scaling{backoff-factor=2.500000e-01 growth-factor=4.000000e+00 growth-interval=100 init-scale=1.024500e+03 max-scale=4.096000e+03 min-scale=2.000000e+00 mode=static}
// MIXED-NEXT: tg-data-parallel{bucket-bytes=1024 grad-comm=bf16 reduce-amax=false}
// MIXED-NEXT: amp-validation-probes{{.*}} functions={step} gradients=true {{.*}} ops=false
// MIXED-NEXT: canonicalize
// MIXED-NEXT: cse

// PROBED: tg-autodiff
// PROBED-NEXT: amp-validation-probes{allow={tg.exp} clear={tg.tanh} constant-overflow=saturate deny={tg.add} fp8-format=e4m3 fp8-margin=2 functions={step} gradients=false infer={tg.log} level=force-all lists-file={{.*}}.lists.json ops=true precision=bf16}
// PROBED-NEXT: canonicalize

// The f32 step pads nothing and colours nothing, but accumulates.
// F32: builtin.module(
// F32-NEXT: tg-autodiff
// F32-NEXT: amp-accumulate-gradients{micro-batches=2}
// F32-NEXT: canonicalize

// ALL: pipeline options: 34, all set
// A small step that every option set can build.
func.func @step(%w: tensor<8xf32> {tg.role = "param"},
                %x: tensor<4x8xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<8xf32> {tg.role = "param"}) {
  %y = tg.mul %x, %w : tensor<4x8xf32>, tensor<8xf32>
  %l = tg.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<8xf32>
  return %l, %w2 : tensor<f32>, tensor<8xf32>
}
