// Every elementwise tg op rejects bad operands with a message that names
// the problem.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @exp_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.exp' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.exp %x : tensor<4xi32>
  return
}

// -----

func.func @log_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.log' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.log %x : tensor<4xi32>
  return
}

// -----

func.func @sqrt_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.sqrt' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.sqrt %x : tensor<4xi32>
  return
}

// -----

func.func @rsqrt_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.rsqrt' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.rsqrt %x : tensor<4xi32>
  return
}

// -----

func.func @square_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.square' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.square %x : tensor<4xi32>
  return
}

// -----

func.func @reciprocal_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.reciprocal' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.reciprocal %x : tensor<4xi32>
  return
}

// -----

func.func @tanh_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.tanh' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.tanh %x : tensor<4xi32>
  return
}

// -----

func.func @sigmoid_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.sigmoid' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.sigmoid %x : tensor<4xi32>
  return
}

// -----

func.func @relu_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.relu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.relu %x : tensor<4xi32>
  return
}

// -----

func.func @gelu_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.gelu' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.gelu %x : tensor<4xi32>
  return
}

// -----

func.func @erf_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.erf' op operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = tg.erf %x : tensor<4xi32>
  return
}

// -----

func.func @neg_pred(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.neg' op operand #0 must be statically shaped tensor of}}
  %y = tg.neg %x : tensor<4xi1>
  return
}

// -----

func.func @abs_pred(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tg.abs' op operand #0 must be statically shaped tensor of}}
  %y = tg.abs %x : tensor<4xi1>
  return
}

// -----

func.func @unary_result_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.exp' op requires the same type for all operands and results}}
  %y = "tg.exp"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @unary_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'tg.relu' op operand #0 must be statically shaped tensor}}
  %y = tg.relu %x : tensor<?xf32>
  return
}

// -----

func.func @leaky_relu_alpha_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tg.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %y = tg.leaky_relu %x {alpha = 1 : i64} : tensor<4xf32>
  return
}

// -----

func.func @add_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.add' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.add %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @sub_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.sub' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.sub %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @mul_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.mul' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.mul %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @div_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.div' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.div %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @pow_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.pow' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.pow %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @maximum_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.maximum' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.maximum %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @minimum_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.minimum' op operand shapes 4x8 and 4 do not broadcast}}
  %c = tg.minimum %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'tg.add' op operands must share an element type, got f32 and f16}}
  %c = tg.add %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @binary_wrong_result(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'tg.mul' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'tg.mul' op failed to infer returned types}}
  %c = "tg.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @compare_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tg.compare' op attribute 'predicate' failed to satisfy constraint: one of "eq", "ne", "lt", "le", "gt", "ge" (comparison direction)}}
  %c = tg.compare "less", %a, %a : tensor<4xf32>
  return
}

// -----

func.func @compare_no_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'tg.compare' op operand shapes 4 and 3 do not broadcast}}
  %c = tg.compare "lt", %a, %b : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_condition_type(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'tg.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %s = tg.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_shapes(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'tg.select' op operand shapes 3 and 4 do not broadcast}}
  %s = tg.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @is_finite_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tg.is_finite' op operand #0 must be statically shaped tensor of 16-bit float}}
  %y = tg.is_finite %x : tensor<4xi32>
  return
}

// -----

func.func @relu_grad_mismatch(%dy: tensor<4xf32>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'tg.relu_grad' op requires the same type for all operands and results}}
  %dx = "tg.relu_grad"(%dy, %x) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @gelu_grad_mismatch(%dy: tensor<4xf32>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'tg.gelu_grad' op requires the same type for all operands and results}}
  %dx = "tg.gelu_grad"(%dy, %x) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @tanh_grad_mismatch(%dy: tensor<4xf32>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'tg.tanh_grad' op requires the same type for all operands and results}}
  %dx = "tg.tanh_grad"(%dy, %x) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @sigmoid_grad_mismatch(%dy: tensor<4xf32>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'tg.sigmoid_grad' op requires the same type for all operands and results}}
  %dx = "tg.sigmoid_grad"(%dy, %x) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @leaky_relu_grad_mismatch(%dy: tensor<4xf32>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'tg.leaky_relu_grad' op requires the same type for all operands and results}}
  %dx = "tg.leaky_relu_grad"(%dy, %x) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

// A static shape too large to address is called that, not unshaped.
func.func @exp_oversized(%x: tensor<1073741824x1073741824x2xf32>) {
  // expected-error @+1 {{'tg.exp' op operand #0 ('tensor<1073741824x1073741824x2xf32>') has more than 2^60 elements, the most a tg tensor holds}}
  %y = tg.exp %x : tensor<1073741824x1073741824x2xf32>
  return
}
