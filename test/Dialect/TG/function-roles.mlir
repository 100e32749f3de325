// tg.role and tg.init on training-step arguments and results are checked.
// RUN: amp-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @roles
// CHECK-SAME: tg.init = "he_normal", tg.role = "param"
// CHECK-SAME: tg.role = "opt_state"
// CHECK-SAME: -> (tensor<f32> {tg.role = "loss"}
func.func @roles(%w: tensor<4xf32> {tg.role = "param", tg.init = "he_normal"},
                 %m: tensor<4xf32> {tg.role = "opt_state"},
                 %x: tensor<2x4xf32> {tg.role = "input"},
                 %y: tensor<2xi32> {tg.role = "label"},
                 %lr: tensor<f32> {tg.role = "lr"},
                 %s: tensor<f32> {tg.role = "loss_scale"},
                 %n: tensor<i64> {tg.role = "good_steps"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4xf32> {tg.role = "param"}) {
  return %lr, %w : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'tg.role' on argument 0 must be one of "param", "opt_state", "input", "label", "lr", "loss_scale", "good_steps", "communicator", "amax_history", got "weight"}}
func.func @bad_role(%w: tensor<4xf32> {tg.role = "weight"}) {
  return
}

// -----

// expected-error @+1 {{'tg.init' on argument 0 must be one of "glorot_uniform", "he_normal", "zeros", "ones", got "random"}}
func.func @bad_init(%w: tensor<4xf32> {tg.role = "param", tg.init = "random"}) {
  return
}

// -----

// expected-error @+1 {{'tg.init' on argument 0 needs tg.role = "param"}}
func.func @init_without_param(%w: tensor<4xf32> {tg.role = "input", tg.init = "zeros"}) {
  return
}

// -----

// expected-error @+1 {{'tg.role' on result 0 must be one of}}
func.func @bad_result_role() -> (tensor<f32> {tg.role = "lr"}) {
  %c = arith.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

// expected-error @+1 {{unknown tg attribute 'tg.rol' on argument 0 (expected tg.role, tg.init or tg.init_value)}}
func.func @typo(%w: tensor<4xf32> {tg.rol = "param"}) {
  return
}

// -----

func.func @on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown tg attribute 'tg.role' (tg.role and tg.init belong on function arguments and results)}}
  %y = tg.relu %x {tg.role = "input"} : tensor<4xf32>
  return
}

// -----

// tg.init_value: the first value of step state, a number of the argument's
// element type, only on state roles.
func.func @init_value_ok(%s: tensor<f32> {tg.role = "loss_scale", tg.init_value = 1024.0 : f32},
                         %n: tensor<i64> {tg.role = "good_steps", tg.init_value = 0 : i64},
                         %lr: tensor<f32> {tg.role = "lr", tg.init_value = 0.1 : f32}) {
  return
}

// -----

// expected-error @+1 {{'tg.init_value' on argument 0 needs a state role ("opt_state", "lr", "loss_scale" or "good_steps"); parameters start from tg.init}}
func.func @init_value_on_param(%w: tensor<4xf32> {tg.role = "param", tg.init_value = 1.0 : f32}) {
  return
}

// -----

// expected-error @+1 {{'tg.init_value' on argument 0 needs a state role}}
func.func @init_value_without_role(%s: tensor<f32> {tg.init_value = 1.0 : f32}) {
  return
}

// -----

// expected-error @+1 {{'tg.init_value' on argument 0 must be a number of the argument's element type 'f32', got 1024 : i64}}
func.func @init_value_wrong_kind(%s: tensor<f32> {tg.role = "loss_scale", tg.init_value = 1024}) {
  return
}

// -----

// expected-error @+1 {{'tg.init_value' on argument 0 must be a number of the argument's element type 'i64', got "zero"}}
func.func @init_value_string(%n: tensor<i64> {tg.role = "good_steps", tg.init_value = "zero"}) {
  return
}
