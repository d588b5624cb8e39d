// Writes a bundle into any directory and runs ptxas.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "tirx-export-bundle" with options = {dir = "EFFECTS_DIR/bundle"} to %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
