// Every op of SPEC sections 2 and 3 in generic form, with the SPEC's
// attribute kinds (DenseI64ArrayAttr lists, i64, f64, BoolAttr, StringAttr):
// amp-opt parses, verifies and prints it, in custom and in generic form.
// RUN: amp-opt %s | FileCheck %s --check-prefix=OPS
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: amp-opt %s | amp-opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// OPS-DAG: tg.neg 
// OPS-DAG: tg.abs 
// OPS-DAG: tg.exp 
// OPS-DAG: tg.log 
// OPS-DAG: tg.sqrt 
// OPS-DAG: tg.rsqrt 
// OPS-DAG: tg.square 
// OPS-DAG: tg.reciprocal 
// OPS-DAG: tg.tanh 
// OPS-DAG: tg.sigmoid 
// OPS-DAG: tg.relu 
// OPS-DAG: tg.gelu 
// OPS-DAG: tg.erf 
// OPS-DAG: tg.leaky_relu 
// OPS-DAG: tg.add 
// OPS-DAG: tg.sub 
// OPS-DAG: tg.mul 
// OPS-DAG: tg.div 
// OPS-DAG: tg.pow 
// OPS-DAG: tg.maximum 
// OPS-DAG: tg.minimum 
// OPS-DAG: tg.compare 
// OPS-DAG: tg.select 
// OPS-DAG: tg.is_finite 
// OPS-DAG: tg.relu_grad 
// OPS-DAG: tg.gelu_grad 
// OPS-DAG: tg.tanh_grad 
// OPS-DAG: tg.sigmoid_grad 
// OPS-DAG: tg.leaky_relu_grad 
// OPS-DAG: tg.matmul 
// OPS-DAG: tg.batch_matmul 
// OPS-DAG: tg.conv2d 
// OPS-DAG: tg.conv2d_backward_input 
// OPS-DAG: tg.conv2d_backward_filter 
// OPS-DAG: tg.bias_add 
// OPS-DAG: tg.bias_add_grad 
// OPS-DAG: tg.max_pool2d 
// OPS-DAG: tg.avg_pool2d 
// OPS-DAG: tg.max_pool2d_grad 
// OPS-DAG: tg.avg_pool2d_grad 
// OPS-DAG: tg.batch_norm 
// OPS-DAG: tg.batch_norm_grad 
// OPS-DAG: tg.layer_norm 
// OPS-DAG: tg.layer_norm_grad 
// OPS-DAG: tg.softmax 
// OPS-DAG: tg.log_softmax 
// OPS-DAG: tg.softmax_grad 
// OPS-DAG: tg.log_softmax_grad 
// OPS-DAG: tg.softmax_cross_entropy 
// OPS-DAG: tg.softmax_cross_entropy_grad 
// OPS-DAG: tg.reduce_sum 
// OPS-DAG: tg.reduce_mean 
// OPS-DAG: tg.reduce_max 
// OPS-DAG: tg.reshape 
// OPS-DAG: tg.broadcast_to 
// OPS-DAG: tg.transpose 
// OPS-DAG: tg.concat 
// OPS-DAG: tg.slice 
// OPS-DAG: tg.pad 
// OPS-DAG: tg.gather 
// OPS-DAG: tg.gather_grad 
// OPS-DAG: tg.grad_seed 
// OPS-DAG: tg.gradients 
// OPS-DAG: tg.sgd_update 
// OPS-DAG: tg.momentum_update 
// OPS-DAG: tg.adam_update 
// OPS-DAG: tg.clip_by_global_norm 
// OPS-DAG: amp.cast 
// OPS-DAG: amp.scale 
// OPS-DAG: amp.unscale 
// OPS-DAG: amp.all_finite 
// OPS-DAG: amp.update_scale 

// GENERIC-DAG: "tg.conv2d"({{.*}}) {dilations = array<i64: 2, 2>, layout = "NCHW", strides = array<i64: 2, 2>}
// GENERIC-DAG: "tg.matmul"({{.*}}) {transpose_b = true}
// GENERIC-DAG: "tg.softmax"({{.*}}) {axis = 1 : i64}
// GENERIC-DAG: "tg.batch_norm"({{.*}}) {epsilon = 1.000000e-03 : f64}
// GENERIC-DAG: "tg.compare"({{.*}}) {predicate = "gt"}
// GENERIC-DAG: "tg.reduce_mean"({{.*}}) {dims = array<i64: -1>, keepdims = true}
// GENERIC-DAG: "tg.gather_grad"({{.*}}) {num_rows = 1000 : i64}
// GENERIC-DAG: "amp.update_scale"({{.*}}) {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f64, min_scale = 2.000000e+00 : f64}

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xi32>) -> (), sym_name = "unary"}> ({
  ^bb0(%arg58: tensor<4x8xf32>, %arg59: tensor<4x8xf16>, %arg60: tensor<4x8xi32>):
    %81 = "tg.neg"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %82 = "tg.abs"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %83 = "tg.exp"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %84 = "tg.log"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %85 = "tg.sqrt"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %86 = "tg.rsqrt"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %87 = "tg.square"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %88 = "tg.reciprocal"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %89 = "tg.tanh"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %90 = "tg.sigmoid"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %91 = "tg.relu"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %92 = "tg.gelu"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %93 = "tg.erf"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %94 = "tg.neg"(%arg60) : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %95 = "tg.abs"(%arg60) : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %96 = "tg.exp"(%arg59) : (tensor<4x8xf16>) -> tensor<4x8xf16>
    %97 = "tg.leaky_relu"(%arg58) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %98 = "tg.leaky_relu"(%arg58) {alpha = 2.000000e-01 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>, tensor<4x1xf32>, tensor<4x8xi64>) -> (), sym_name = "binary"}> ({
  ^bb0(%arg53: tensor<4x8xf32>, %arg54: tensor<8xf32>, %arg55: tensor<f32>, %arg56: tensor<4x1xf32>, %arg57: tensor<4x8xi64>):
    %70 = "tg.add"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %71 = "tg.sub"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %72 = "tg.mul"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %73 = "tg.div"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %74 = "tg.pow"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %75 = "tg.maximum"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %76 = "tg.minimum"(%arg53, %arg54) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %77 = "tg.add"(%arg53, %arg53) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %78 = "tg.mul"(%77, %arg55) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %79 = "tg.sub"(%arg56, %arg54) : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %80 = "tg.add"(%arg57, %arg57) : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi64>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>, sym_name = "compare_select"}> ({
  ^bb0(%arg51: tensor<4x8xf32>, %arg52: tensor<f32>):
    %65 = "tg.compare"(%arg51, %arg52) {predicate = "gt"} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xi1>
    %66 = "tg.compare"(%arg51, %arg51) {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %67 = "tg.select"(%65, %arg51, %arg52) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %68 = "tg.is_finite"(%67) : (tensor<4x8xf32>) -> tensor<4x8xi1>
    %69 = "tg.select"(%68, %67, %arg51) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"(%69) : (tensor<4x8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<4x8xf32>) -> (), sym_name = "activation_grads"}> ({
  ^bb0(%arg49: tensor<4x8xf32>, %arg50: tensor<4x8xf32>):
    %60 = "tg.relu_grad"(%arg49, %arg50) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %61 = "tg.gelu_grad"(%arg49, %arg50) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %62 = "tg.tanh_grad"(%arg49, %arg50) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %63 = "tg.sigmoid_grad"(%arg49, %arg50) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %64 = "tg.leaky_relu_grad"(%arg49, %arg50) {alpha = 1.000000e-01 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<32x64xf16>, tensor<128x64xf16>, tensor<4x16x32xf32>, tensor<4x16x32xf32>) -> (), sym_name = "contractions"}> ({
  ^bb0(%arg45: tensor<32x64xf16>, %arg46: tensor<128x64xf16>, %arg47: tensor<4x16x32xf32>, %arg48: tensor<4x16x32xf32>):
    %57 = "tg.matmul"(%arg45, %arg46) {transpose_b = true} : (tensor<32x64xf16>, tensor<128x64xf16>) -> tensor<32x128xf16>
    %58 = "tg.matmul"(%arg45, %arg45) {transpose_a = true} : (tensor<32x64xf16>, tensor<32x64xf16>) -> tensor<64x64xf16>
    %59 = "tg.batch_matmul"(%arg47, %arg48) {transpose_b = true} : (tensor<4x16x32xf32>, tensor<4x16x32xf32>) -> tensor<4x16x16xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>, tensor<8x3x32x32xf32>, tensor<8x3x5x5xf32>) -> (), sym_name = "convolution"}> ({
  ^bb0(%arg41: tensor<8x28x28x1xf32>, %arg42: tensor<16x3x3x1xf32>, %arg43: tensor<8x3x32x32xf32>, %arg44: tensor<8x3x5x5xf32>):
    %50 = "tg.conv2d"(%arg41, %arg42) {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>) -> tensor<8x28x28x16xf32>
    %51 = "tg.conv2d_backward_input"(%50, %arg42) {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x28x28x16xf32>, tensor<16x3x3x1xf32>) -> tensor<8x28x28x1xf32>
    %52 = "tg.conv2d_backward_filter"(%arg41, %50) {padding = array<i64: 1, 1, 1, 1>} : (tensor<8x28x28x1xf32>, tensor<8x28x28x16xf32>) -> tensor<16x3x3x1xf32>
    %53 = "tg.conv2d"(%arg43, %arg44) {dilations = array<i64: 2, 2>, layout = "NCHW", strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<8x3x5x5xf32>) -> tensor<8x8x12x12xf32>
    %54 = "tg.conv2d"(%arg41, %arg42) {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>) -> tensor<8x14x14x16xf32>
    %55 = "arith.constant"() <{value = dense<1.000000e+00> : tensor<2x14x14x16xf32>}> : () -> tensor<2x14x14x16xf32>
    %56 = "tg.conv2d_backward_input"(%55, %arg42) {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x14x14x16xf32>, tensor<16x3x3x1xf32>) -> tensor<2x27x27x1xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x28x28x16xf32>, tensor<16xf32>, tensor<8x16x28x28xf32>) -> (), sym_name = "bias_and_pooling"}> ({
  ^bb0(%arg38: tensor<8x28x28x16xf32>, %arg39: tensor<16xf32>, %arg40: tensor<8x16x28x28xf32>):
    %42 = "tg.bias_add"(%arg38, %arg39) : (tensor<8x28x28x16xf32>, tensor<16xf32>) -> tensor<8x28x28x16xf32>
    %43 = "tg.bias_add"(%arg40, %arg39) {layout = "NCHW"} : (tensor<8x16x28x28xf32>, tensor<16xf32>) -> tensor<8x16x28x28xf32>
    %44 = "tg.bias_add_grad"(%42) : (tensor<8x28x28x16xf32>) -> tensor<16xf32>
    %45 = "tg.bias_add_grad"(%43) {layout = "NCHW"} : (tensor<8x16x28x28xf32>) -> tensor<16xf32>
    %46 = "tg.max_pool2d"(%42) {strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : (tensor<8x28x28x16xf32>) -> tensor<8x14x14x16xf32>
    %47 = "tg.max_pool2d_grad"(%46, %42, %46) {strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : (tensor<8x14x14x16xf32>, tensor<8x28x28x16xf32>, tensor<8x14x14x16xf32>) -> tensor<8x28x28x16xf32>
    %48 = "tg.avg_pool2d"(%42) {padding = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} : (tensor<8x28x28x16xf32>) -> tensor<8x28x28x16xf32>
    %49 = "tg.avg_pool2d_grad"(%48) {padding = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} : (tensor<8x28x28x16xf32>) -> tensor<8x28x28x16xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>, tensor<4x16x32xf16>, tensor<32xf32>, tensor<32xf32>) -> (), sym_name = "normalization"}> ({
  ^bb0(%arg32: tensor<8x14x14x16xf16>, %arg33: tensor<16xf32>, %arg34: tensor<16xf32>, %arg35: tensor<4x16x32xf16>, %arg36: tensor<32xf32>, %arg37: tensor<32xf32>):
    %38:3 = "tg.batch_norm"(%arg32, %arg33, %arg34) {epsilon = 1.000000e-03 : f64} : (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>)
    %39:3 = "tg.batch_norm_grad"(%38#0, %arg32, %arg33, %38#1, %38#2) : (tensor<8x14x14x16xf16>, tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>)
    %40:3 = "tg.layer_norm"(%arg35, %arg36, %arg37) : (tensor<4x16x32xf16>, tensor<32xf32>, tensor<32xf32>) -> (tensor<4x16x32xf16>, tensor<4x16xf32>, tensor<4x16xf32>)
    %41:3 = "tg.layer_norm_grad"(%40#0, %arg35, %arg36, %40#1, %40#2) : (tensor<4x16x32xf16>, tensor<4x16x32xf16>, tensor<32xf32>, tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16x32xf16>, tensor<32xf32>, tensor<32xf32>)
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<32x10xf32>, tensor<32xi32>, tensor<32x10xf32>, tensor<4x16x16xf32>) -> (), sym_name = "softmax_and_loss"}> ({
  ^bb0(%arg28: tensor<32x10xf32>, %arg29: tensor<32xi32>, %arg30: tensor<32x10xf32>, %arg31: tensor<4x16x16xf32>):
    %31 = "tg.softmax"(%arg31) {axis = 1 : i64} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %32 = "tg.softmax_grad"(%31, %31) {axis = 1 : i64} : (tensor<4x16x16xf32>, tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %33 = "tg.log_softmax"(%arg28) : (tensor<32x10xf32>) -> tensor<32x10xf32>
    %34 = "tg.log_softmax_grad"(%33, %33) : (tensor<32x10xf32>, tensor<32x10xf32>) -> tensor<32x10xf32>
    %35 = "tg.softmax_cross_entropy"(%arg28, %arg29) : (tensor<32x10xf32>, tensor<32xi32>) -> tensor<32xf32>
    %36 = "tg.softmax_cross_entropy"(%arg28, %arg30) : (tensor<32x10xf32>, tensor<32x10xf32>) -> tensor<32xf32>
    %37 = "tg.softmax_cross_entropy_grad"(%35, %arg28, %arg29) : (tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>) -> tensor<32x10xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<32x10xf32>) -> (), sym_name = "reductions"}> ({
  ^bb0(%arg27: tensor<32x10xf32>):
    %28 = "tg.reduce_sum"(%arg27) {dims = array<i64: 0, 1>} : (tensor<32x10xf32>) -> tensor<f32>
    %29 = "tg.reduce_mean"(%arg27) {dims = array<i64: -1>, keepdims = true} : (tensor<32x10xf32>) -> tensor<32x1xf32>
    %30 = "tg.reduce_max"(%arg27) {dims = array<i64: 0>} : (tensor<32x10xf32>) -> tensor<10xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8x28x28x1xf32>, tensor<64xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<8xi32>) -> (), sym_name = "shape"}> ({
  ^bb0(%arg22: tensor<8x28x28x1xf32>, %arg23: tensor<64xf32>, %arg24: tensor<8x16xf32>, %arg25: tensor<8x4xf32>, %arg26: tensor<8xi32>):
    %19 = "tg.reshape"(%arg22) : (tensor<8x28x28x1xf32>) -> tensor<8x784xf32>
    %20 = "tg.reshape"(%arg26) : (tensor<8xi32>) -> tensor<8x1xi32>
    %21 = "tg.broadcast_to"(%arg23) : (tensor<64xf32>) -> tensor<32x64xf32>
    %22 = "tg.transpose"(%arg24) {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %23 = "tg.concat"(%arg24, %arg25) {axis = 1 : i64} : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<8x20xf32>
    %24 = "tg.concat"(%arg25, %arg25, %arg25) : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x12xf32>
    %25 = "tg.slice"(%arg24) {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 2>} : (tensor<8x16xf32>) -> tensor<8x4xf32>
    %26 = "tg.slice"(%arg24) {offsets = array<i64: 2, 0>, sizes = array<i64: 3, 16>} : (tensor<8x16xf32>) -> tensor<3x16xf32>
    %27 = "tg.pad"(%arg24) {high = array<i64: 0, 1>, low = array<i64: 0, 1>, value = -1.000000e+00 : f64} : (tensor<8x16xf32>) -> tensor<8x18xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<1000x64xf32>, tensor<8x16xi32>, tensor<5xi64>) -> (), sym_name = "embedding"}> ({
  ^bb0(%arg19: tensor<1000x64xf32>, %arg20: tensor<8x16xi32>, %arg21: tensor<5xi64>):
    %16 = "tg.gather"(%arg19, %arg20) : (tensor<1000x64xf32>, tensor<8x16xi32>) -> tensor<8x16x64xf32>
    %17 = "tg.gather"(%arg19, %arg21) : (tensor<1000x64xf32>, tensor<5xi64>) -> tensor<5x64xf32>
    %18 = "tg.gather_grad"(%16, %arg20) {num_rows = 1000 : i64} : (tensor<8x16x64xf32>, tensor<8x16xi32>) -> tensor<1000x64xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<784x128xf32>, tensor<128xf32>) -> (), sym_name = "autodiff"}> ({
  ^bb0(%arg16: tensor<f32>, %arg17: tensor<784x128xf32>, %arg18: tensor<128xf32>):
    %14 = "tg.grad_seed"(%arg16) : (tensor<f32>) -> tensor<f32>
    %15:2 = "tg.gradients"(%arg16, %arg17, %arg18) : (tensor<f32>, tensor<784x128xf32>, tensor<128xf32>) -> (tensor<784x128xf32>, tensor<128xf32>)
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<i64>, tensor<f32>, tensor<128xf32>, tensor<128xf32>) -> (), sym_name = "optimizer"}> ({
  ^bb0(%arg8: tensor<784x128xf32>, %arg9: tensor<784x128xf32>, %arg10: tensor<784x128xf32>, %arg11: tensor<784x128xf32>, %arg12: tensor<i64>, %arg13: tensor<f32>, %arg14: tensor<128xf32>, %arg15: tensor<128xf32>):
    %10 = "tg.sgd_update"(%arg8, %arg9, %arg13) : (tensor<784x128xf32>, tensor<784x128xf32>, tensor<f32>) -> tensor<784x128xf32>
    %11:2 = "tg.momentum_update"(%arg8, %arg9, %arg10, %arg13) {momentum = 0.98999999999999999 : f64, nesterov = true} : (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<f32>) -> (tensor<784x128xf32>, tensor<784x128xf32>)
    %12:3 = "tg.adam_update"(%arg8, %arg9, %arg11, %arg10, %arg12, %arg13) {beta1 = 8.000000e-01 : f64, weight_decay = 1.000000e-02 : f64} : (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<i64>, tensor<f32>) -> (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>)
    %13:2 = "tg.clip_by_global_norm"(%arg9, %arg15) {max_norm = 1.000000e+00 : f64} : (tensor<784x128xf32>, tensor<128xf32>) -> (tensor<784x128xf32>, tensor<128xf32>)
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<784x128xf32>, tensor<4xf16>) -> (), sym_name = "casts"}> ({
  ^bb0(%arg6: tensor<784x128xf32>, %arg7: tensor<4xf16>):
    %7 = "amp.cast"(%arg6) : (tensor<784x128xf32>) -> tensor<784x128xf16>
    %8 = "amp.cast"(%arg6) : (tensor<784x128xf32>) -> tensor<784x128xbf16>
    %9 = "amp.cast"(%arg7) : (tensor<4xf16>) -> tensor<4xf64>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<f32>, tensor<f32>, tensor<i64>, tensor<784x128xf16>, tensor<128xf32>) -> (), sym_name = "loss_scaling"}> ({
  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i64>, %arg4: tensor<784x128xf16>, %arg5: tensor<128xf32>):
    %2 = "amp.scale"(%arg1, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3 = "amp.unscale"(%arg4, %arg2) : (tensor<784x128xf16>, tensor<f32>) -> tensor<784x128xf32>
    %4 = "amp.all_finite"(%3, %arg5) : (tensor<784x128xf32>, tensor<128xf32>) -> tensor<i1>
    %5:2 = "amp.update_scale"(%arg2, %arg3, %4) : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
    %6:2 = "amp.update_scale"(%arg2, %arg3, %4) {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f64, min_scale = 2.000000e+00 : f64} : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<4x4xf32>) -> (), sym_name = "attributes"}> ({
  ^bb0(%arg0: tensor<4x4xf32>):
    %0 = "tg.matmul"(%arg0, %arg0) {amp.color = "allow", amp.precision = "bf16"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = "tg.exp"(%0) {amp.color = "deny"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
