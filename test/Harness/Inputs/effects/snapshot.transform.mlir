// Writes the payload to a file of the script's choosing.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "snapshot-op-locations" with options = {filename = "EFFECTS_DIR/snapshot.mlir"} to %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
