// Prints the payload to the process's output (the JSON-RPC stream).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.print %f : !transform.any_op
    transform.yield
  }
}
