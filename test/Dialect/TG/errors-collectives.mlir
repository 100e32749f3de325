// tg.all_reduce's verifier: one element type per message, sum and mean on
// floats only, a rank-0 i64 communicator, a known reduction.
//
// RUN: amp-opt %s --split-input-file --verify-diagnostics

func.func @mixed(%comm: tensor<i64>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{operands share one element type (one message); got 'f32' and 'f16'}}
  %r:2 = tg.all_reduce %comm, %a, %b : tensor<i64>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @sum_of_flags(%comm: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{reduction "sum" needs float operands, got 'i1' (min and max take any type)}}
  %r = tg.all_reduce %comm, %ok : tensor<i64>, tensor<i1>
  return
}

// -----

func.func @comm_type(%comm: tensor<2xi64>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 64-bit signless integer values}}
  %r = tg.all_reduce %comm, %a : tensor<2xi64>, tensor<4xf32>
  return
}

// -----

func.func @unknown(%comm: tensor<i64>, %a: tensor<4xf32>) {
  // expected-error @+1 {{one of "sum", "mean", "min", "max"}}
  %r = tg.all_reduce %comm, %a {reduction = "avg"} : tensor<i64>, tensor<4xf32>
  return
}

// -----

func.func @empty(%comm: tensor<i64>) {
  // expected-error @+1 {{needs at least one tensor to reduce}}
  "tg.all_reduce"(%comm) : (tensor<i64>) -> ()
  return
}

// -----

// expected-error @+1 {{'tg.role' on result 0 must be one of}}
func.func @result_role(%comm: tensor<i64>) -> (tensor<i64> {tg.role = "communicator"}) {
  return %comm : tensor<i64>
}
