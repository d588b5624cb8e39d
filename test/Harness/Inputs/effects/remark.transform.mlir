// A remark: allowed by the open policy, never on the output.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %f, "a remark" : !transform.any_op
    transform.yield
  }
}
