// A payload that carries a transform script of its own: committed, it is
// data; run by transform-interpreter, it would escape the policy.
module attributes {transform.with_named_sequence} {
  func.func @f(%a: memref<4xf32>) {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "snapshot-op-locations" with options = {filename = "EFFECTS_DIR/escaped.mlir"} to %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
