// Every amprt op refuses what its runtime call cannot run, by name.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @cast_read_by_other(%w: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amprt.cast_on_read' op an f32 -> f16 cast on read is read only by product operands (tg.matmul, tg.batch_matmul), but 'tg.relu' reads it}}
  %h = amprt.cast_on_read %w : tensor<4xf32> to tensor<4xf16>
  %r = tg.relu %h : tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

func.func @cast_widened_for_other(%g: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'amprt.cast_on_read' op a 16-bit -> f32 cast on read is read only by tg.bias_add_grad, but 'func.return' reads it}}
  %w = amprt.cast_on_read %g : tensor<4xbf16> to tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

func.func @cast_unread(%w: tensor<4xf32>) {
  // expected-error @+1 {{'amprt.cast_on_read' op has no reader; a cast nothing reads is an amp.cast}}
  %h = amprt.cast_on_read %w : tensor<4xf32> to tensor<4xf16>
  return
}

// -----

// The cast is verified before the epilogue it feeds, whose region has too
// few arguments: the cast's verifier looks before it reaches in, and
// refuses the reader it cannot check.
func.func @cast_into_malformed_epilogue(%x: tensor<4x8xf16>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'amprt.cast_on_read' op an f32 -> f16 cast on read is read only by product operands (tg.matmul, tg.batch_matmul), but 'amprt.product_epilogue' reads it}}
  %h = amprt.cast_on_read %w : tensor<8x3xf32> to tensor<8x3xf16>
  %y = amprt.product_epilogue (%x, %h) : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>):
    %r = tg.relu %a : tensor<4x8xf16>
    %n = tg.neg %r : tensor<4x8xf16>
    amprt.yield %n : tensor<4x8xf16>
  }
  return
}

// -----

func.func @cast_direction(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amprt.cast_on_read' op no reader converts 'f32' to 'bf16' on read}}
  %w = amprt.cast_on_read %g : tensor<4xf32> to tensor<4xbf16>
  %r = tg.relu %w : tensor<4xbf16>
  return
}

// -----

func.func @cast_shape(%g: tensor<4xf32>) {
  // expected-error @+1 {{'amprt.cast_on_read' op shapes differ: 'tensor<4xf32>' and 'tensor<2xf16>'}}
  %w = amprt.cast_on_read %g : tensor<4xf32> to tensor<2xf16>
  return
}

// -----

func.func @view_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'amprt.view' op a view keeps the element count: 6 to 8}}
  %v = amprt.view %x : tensor<2x3xf32> to tensor<8xf32>
  return
}

// -----

func.func @view_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{'amprt.view' op a view keeps the element type}}
  %v = amprt.view %x : tensor<6xf32> to tensor<6xf16>
  return
}

// -----

func.func @view_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'amprt.view' op operand #0 must be statically shaped tensor}}
  %v = amprt.view %x : tensor<?xf32> to tensor<6xf32>
  return
}

// -----

func.func @unscale_counts(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'amprt.unscale_all_finite' op has 1 gradients but 2 unscaled results}}
  %u:2, %ok = amprt.unscale_all_finite %g scale %s
      : (tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i1>)
  return
}

// -----

func.func @unscale_f64(%g: tensor<4xf64>, %s: tensor<f32>) {
  // expected-error @+1 {{'amprt.unscale_all_finite' op unscales f16, bf16 or f32 gradients, got 'tensor<4xf64>'}}
  %u, %ok = amprt.unscale_all_finite %g scale %s
      : (tensor<4xf64>) -> (tensor<4xf64>, tensor<i1>)
  return
}

// -----

func.func @unscale_shape(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'amprt.unscale_all_finite' op unscaled 'tensor<4xf16>' is f32 of its shape, got 'tensor<4xf16>'}}
  %u, %ok = amprt.unscale_all_finite %g scale %s
      : (tensor<4xf16>) -> (tensor<4xf16>, tensor<i1>)
  return
}

// -----

func.func @epilogue_no_product(%x: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op runs a tg.matmul or tg.conv2d first, got 'tg.add'}}
  %y = amprt.product_epilogue (%x, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %c: tensor<4xf32>):
    %s = tg.add %a, %c : tensor<4xf32>
    %r = tg.relu %s : tensor<4xf32>
    amprt.yield %r : tensor<4xf32>
  }
  return
}

// -----

func.func @epilogue_product_alone(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op runs a product and one or two epilogue ops, got 1 ops}}
  %y = amprt.product_epilogue (%x, %w) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x3xf32>):
    %h = tg.matmul %a, %c : tensor<4x8xf32>, tensor<8x3xf32>
    amprt.yield %h : tensor<4x3xf32>
  }
  return
}

// -----

func.func @epilogue_not_activation(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op 'tg.exp' is no epilogue activation of the (biased) product}}
  %y = amprt.product_epilogue (%x, %w) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x3xf32>):
    %h = tg.matmul %a, %c : tensor<4x8xf32>, tensor<8x3xf32>
    %e = tg.exp %h : tensor<4x3xf32>
    amprt.yield %e : tensor<4x3xf32>
  }
  return
}

// -----

func.func @epilogue_bias_layout(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>,
                                %b: tensor<4xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op the bias add adds region argument 2 along the product's channels, in its element type}}
  %y = amprt.product_epilogue (%x, %w, %b)
      : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %c: tensor<3x2x1x1xf32>, %d: tensor<4xf32>):
    %h = tg.conv2d %a, %c {layout = "NCHW"} : tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>
    %z = tg.bias_add %h, %d : tensor<1x3x4x4xf32>, tensor<4xf32>
    amprt.yield %z : tensor<1x3x4x4xf32>
  }
  return
}

// -----

func.func @epilogue_yield(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op yields its last op's result and, with an activation, the activation's input}}
  %y:2 = amprt.product_epilogue (%x, %w, %b)
      : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x3xf32>, %d: tensor<3xf32>):
    %h = tg.matmul %a, %c : tensor<4x8xf32>, tensor<8x3xf32>
    %z = tg.bias_add %h, %d : tensor<4x3xf32>, tensor<3xf32>
    amprt.yield %z, %z : tensor<4x3xf32>, tensor<4x3xf32>
  }
  return
}

// -----

func.func @epilogue_arguments(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{'amprt.product_epilogue' op region arguments must have the operands' types}}
  %y = amprt.product_epilogue (%x, %w) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %h = tg.matmul %a, %a {transpose_b = true} : tensor<4x8xf32>, tensor<4x8xf32>
    amprt.yield %h : tensor<4x4xf32>
  }
  return
}

// -----

func.func @chain_one_step(%x: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op runs 2 to 16 steps, got 1}}
  %y = amprt.elementwise_chain (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %0 = tg.exp %a : tensor<8xf32>
    amprt.yield %0 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_broadcast(%x: tensor<8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op reads inputs of its result's type only ('tensor<8xf32>')}}
  %y = amprt.elementwise_chain (%x, %s) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<f32>):
    %0 = tg.mul %a, %b : tensor<8xf32>, tensor<f32>
    %1 = tg.exp %0 : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_input_type(%x: tensor<8xf32>, %h: tensor<4xf16>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op reads inputs of its result's type only ('tensor<8xf32>')}}
  %y = amprt.elementwise_chain (%x, %h) : (tensor<8xf32>, tensor<4xf16>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<4xf16>):
    %0 = tg.exp %a : tensor<8xf32>
    %1 = tg.neg %0 : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_not_step(%x: tensor<8xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op 'tg.relu_grad' is no chain step (an op whose runtime lowering names its elementwise function, on operands of its result's type)}}
  %y = amprt.elementwise_chain (%x, %dy) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %0 = tg.exp %a : tensor<8xf32>
    %1 = tg.relu_grad %b, %0 : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_reused(%x: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op each intermediate is read by one later step}}
  %y = amprt.elementwise_chain (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %0 = tg.exp %a : tensor<8xf32>
    %1 = tg.mul %0, %0 : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_unread_step(%x: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op each intermediate is read by one later step}}
  %y = amprt.elementwise_chain (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %0 = tg.exp %a : tensor<8xf32>
    %1 = tg.neg %a : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return
}

// -----

func.func @chain_yields_other(%x: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.elementwise_chain' op yields its last step's result}}
  %y = amprt.elementwise_chain (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %0 = tg.exp %a : tensor<8xf32>
    %1 = tg.neg %0 : tensor<8xf32>
    amprt.yield %a : tensor<8xf32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<8xf32>) {
  // expected-error @+1 {{'amprt.yield' op expects parent op to be one of 'amprt.product_epilogue, amprt.elementwise_chain'}}
  amprt.yield %x : tensor<8xf32>
}

// -----

func.func @strided_view_past_end(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'amprt.strided_batch_matmul' op a_view reaches past its tensor's 24 elements}}
  %c = amprt.strided_batch_matmul %a [1, 2, 3, 4, 12, 4, 1], %b [0, 2, 4, 5, 20, 5, 1] into [0, 2, 3, 5, 15, 5, 1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}

// -----

func.func @strided_shapes(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'amprt.strided_batch_matmul' op views 2x3x3 x 2x4x5 do not make 2x3x5}}
  %c = amprt.strided_batch_matmul %a [0, 2, 3, 3, 12, 4, 1], %b [0, 2, 4, 5, 20, 5, 1] into [0, 2, 3, 5, 15, 5, 1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}

// -----

func.func @strided_result_twice(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'amprt.strided_batch_matmul' op c_view must name every element of its result once}}
  %c = amprt.strided_batch_matmul %a [0, 2, 3, 4, 12, 4, 1], %b [0, 2, 4, 5, 20, 5, 1] into [0, 2, 3, 5, 5, 1, 1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}

// -----

func.func @strided_rank(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'amprt.strided_batch_matmul' op views are of rank 3 to 8}}
  %c = amprt.strided_batch_matmul %a [0, 3, 4, 4, 1], %b [0, 4, 5, 5, 1] into [0, 3, 5, 5, 1] : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}

// -----

func.func @attention_heads(%q: tensor<2x4x3xf32>, %k: tensor<2x6x2xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op views 2x4x3, 2x6x2, 2x6x5 are not q [b..., tq, d], k [b..., tk, d], v [b..., tk, e]}}
  %o = amprt.attention %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 2, 12, 2, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] : tensor<2x4x3xf32>, tensor<2x6x2xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

func.func @attention_output(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x3xf32> {
  // expected-error @+1 {{'amprt.attention' op o_view is 2x4x3, not 2x4x5}}
  %o = amprt.attention %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 3, 12, 3, 1] : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}

// -----

func.func @attention_types(%q: tensor<2x4x3xbf16>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op reads and writes one element type}}
  %o = amprt.attention %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] : tensor<2x4x3xbf16>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

func.func @attention_past_end(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op v_view reaches past its tensor's 60 elements}}
  %o = amprt.attention %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [1, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

func.func @attention_rank(%q: tensor<4x3xf32>, %k: tensor<6x3xf32>, %v: tensor<6x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op views are of rank 3 to 8}}
  %o = amprt.attention %q [0, 4, 3, 3, 1], %k [0, 6, 3, 3, 1], %v [0, 6, 5, 5, 1] into [0, 4, 5, 5, 1] : tensor<4x3xf32>, tensor<6x3xf32>, tensor<6x5xf32> -> tensor<4x5xf32>
  return %o : tensor<4x5xf32>
}

// -----

func.func @attention_grad_output(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>, %do: tensor<2x4x3xf32>)
    -> (tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>) {
  // expected-error @+1 {{'amprt.attention_grad' op grad_o_view is 2x4x3, not o's 2x4x5}}
  %dq, %dk, %dv = amprt.attention_grad %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1], %do [0, 2, 4, 3, 12, 3, 1] into [0, 2, 4, 3, 12, 3, 1], [0, 2, 6, 3, 18, 3, 1], [0, 2, 6, 5, 30, 5, 1] : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
  return %dq, %dk, %dv : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
}

// -----

func.func @attention_grad_twice(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>) {
  // expected-error @+1 {{'amprt.attention_grad' op grad_k_view must name every element of its result once}}
  %dq, %dk, %dv = amprt.attention_grad %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1], %do [0, 2, 4, 5, 20, 5, 1] into [0, 2, 4, 3, 12, 3, 1], [0, 2, 6, 3, 18, 1, 1], [0, 2, 6, 5, 30, 5, 1] : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32> -> tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
  return %dq, %dk, %dv : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
}

// -----

func.func @attention_view_overflow(%q: tensor<3x4x5xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op q_view reaches past its tensor's 60 elements}}
  %o = amprt.attention %q [0, 2, 4, 3, 4611686018427387904, 5, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] : tensor<3x4x5xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

func.func @attention_scale_not_finite(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'amprt.attention' op scale must be finite in f32, got 1.000000e+39}}
  %o = amprt.attention %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] {scale = 1.0e39} : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

func.func @attention_grad_scale_nan(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>, %do: tensor<2x4x5xf32>) -> (tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>) {
  // expected-error @+1 {{'amprt.attention_grad' op scale must be finite in f32, got nan}}
  %dq, %dk, %dv = amprt.attention_grad %q [0, 2, 4, 3, 12, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1], %do [0, 2, 4, 5, 20, 5, 1] into [0, 2, 4, 3, 12, 3, 1], [0, 2, 6, 3, 18, 3, 1], [0, 2, 6, 5, 30, 5, 1] {scale = 0x7FF8000000000000 : f64} : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32> -> tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
  return %dq, %dk, %dv : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32>
}

// -----

// A view that names no element still may not reach past int64.
func.func @attention_empty_view_overflow(%q: tensor<2x4x3xf32>, %k: tensor<2x6x3xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x0x5xf32> {
  // expected-error @+1 {{'amprt.attention' op q_view reaches past its tensor's 24 elements}}
  %o = amprt.attention %q [0, 2, 0, 3, 9223372036854775807, 3, 1], %k [0, 2, 6, 3, 18, 3, 1], %v [0, 2, 6, 5, 30, 5, 1] into [0, 2, 0, 5, 0, 5, 1] : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x0x5xf32>
  return %o : tensor<2x0x5xf32>
}
