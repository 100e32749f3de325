// report= writes every op, its list, its final precision and the reason,
// plus totals; remarks= says the same through MLIR remarks (the module's
// Tensor Core summary remark is tensor-core-alignment.mlir's).
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision="report=%t.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision="remarks=true tensor-core-summary=false" --verify-diagnostics -o /dev/null

// CHECK: "precision": "f16"
// CHECK: "level": "default"
// CHECK: "function": "step"
// CHECK-NEXT: "name": "tg.exp"
// CHECK-NEXT: "location": "loc(\"{{.*}}report.mlir\":[[#EXP:]]:8)"
// CHECK-NEXT: "class": "deny"
// CHECK-NEXT: "precision": "f32"
// CHECK-NEXT: "reason": "deny list"
// CHECK: "name": "tg.neg"
// CHECK: "class": "clear"
// CHECK-NEXT: "precision": "f32"
// CHECK-NEXT: "reason": "deny spread from tg.exp at loc(\"{{.*}}report.mlir\":[[#EXP]]:8)"
// CHECK: "name": "tg.sigmoid"
// CHECK: "reason": "deny spread from tg.exp
// CHECK: "name": "tg.matmul"
// CHECK: "class": "allow"
// CHECK-NEXT: "precision": "f16"
// CHECK-NEXT: "reason": "allow list"
// CHECK: "name": "tg.add"
// CHECK: "class": "infer"
// CHECK-NEXT: "precision": "f16"
// CHECK-NEXT: "reason": "between allow ops"
// The f32 constant's only user takes its f16 copy: the copy is reported and
// the unused original is gone.
// CHECK: "name": "arith.constant"
// CHECK: "class": "clear"
// CHECK-NEXT: "precision": "f16"
// CHECK-NEXT: "reason": "constant folded from f32 for its low-precision users"
// CHECK: "name": "tg.matmul"
// CHECK: "name": "tg.sigmoid"
// CHECK: "reason": "infer op not between allow ops"
// CHECK: "name": "test.opaque"
// CHECK: "class": "none"
// CHECK-NEXT: "precision": "f32"
// CHECK-NEXT: "reason": "unknown op"
// CHECK: "totals":
// CHECK-NEXT: "ops": 9
// CHECK-NEXT: "converted": 3
// CHECK-NEXT: "casts_inserted": 3
// CHECK-NEXT: "casts_folded": 1
func.func @step(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  // expected-remark @+1 {{amp: f32 (deny list)}}
  %e = tg.exp %x : tensor<32x32xf32>
  // expected-remark-re @+1 {{amp: f32 (deny spread from tg.exp at loc({{.*}}))}}
  %n = tg.neg %e : tensor<32x32xf32>
  // expected-remark-re @+1 {{amp: f32 (deny spread from tg.exp at loc({{.*}}))}}
  %n2 = tg.sigmoid %n : tensor<32x32xf32>
  // expected-remark @+1 {{amp: f16 (allow list)}}
  %m = tg.matmul %x, %w : tensor<32x32xf32>
  // expected-remark @+1 {{amp: f16 (between allow ops)}}
  %a = tg.add %m, %x : tensor<32x32xf32>
  %c = arith.constant dense<2.0> : tensor<32x32xf32>
  // expected-remark @+1 {{amp: f16 (allow list)}}
  %m2 = tg.matmul %a, %c : tensor<32x32xf32>
  // expected-remark @+1 {{amp: f32 (infer op not between allow ops)}}
  %s = tg.sigmoid %m2 : tensor<32x32xf32>
  // expected-remark @+1 {{amp: f32 (unknown op)}}
  %o = "test.opaque"(%s) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %o, %n2 : tensor<32x32xf32>, tensor<32x32xf32>
}
