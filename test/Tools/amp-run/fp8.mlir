// amp-run --precision=fp8 on Fashion-MNIST.
//
// 1. Activations that grow 100x over 50 steps (Inputs/fp8-growing-
//    activations.mlir): the delayed scales follow, and the losses track the
//    f32 run of the same step.
// RUN: amp-run %S/Inputs/fp8-growing-activations.mlir --data=fashion-mnist --precision=f32 --steps=60 --lr=0.1 --log-every=60 --report=%t.f32.json 2>&1 | FileCheck %s --check-prefix=F32
// RUN: amp-run %S/Inputs/fp8-growing-activations.mlir --data=fashion-mnist --precision=fp8 --steps=60 --lr=0.1 --log-every=60 --report=%t.fp8.json 2>&1 | FileCheck %s --check-prefix=FP8
// RUN: %python %S/check_fp8.py %t.f32.json %t.fp8.json | FileCheck %s --check-prefix=TRACKS
//
// 2. An inf in one step's batch: loss scaling skips that step, as with f16,
//    and the amax histories keep their finite values (record_amax ignores a
//    non-finite amax), so the next steps train on. The report gives each
//    history's final power-of-two scale, which fits its largest amax.
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --data=fashion-mnist --precision=fp8 --steps=30 --lr=0.001 --log-every=30 --inject-fault=inf@0:5 --report=%t.inf.json 2>&1 | FileCheck %s --check-prefix=INF
// RUN: %python -c "import json,math; s=json.load(open('%t.inf.json'))['per_step']; assert [i for i,x in enumerate(s) if x['skipped']]==[5], s; assert all(math.isfinite(x['loss']) for x in s[6:]); assert s[-1]['loss'] < s[0]['loss']; f=json.load(open('%t.inf.json'))['fp8_scales']; assert len(f)==6 and {x['format'] for x in f}=={'f8E4M3FN','f8E5M2'}, f; assert all(math.log2(x['final_scale']).is_integer() and x['final_amax_max']*x['final_scale'] <= (448 if x['format']=='f8E4M3FN' else 57344) for x in f), f; print('ok')"
//
// (--validate with fp8: validate-fp8.mlir.)

// F32: step 60/60
// FP8: step 60/60
// FP8-SAME: skipped 0
// TRACKS: ok: last-20 mean loss
// INF: step 30/30
// INF-SAME: skipped 1
