module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %last = transform.get_operand %f[-1] : (!transform.any_op) -> !transform.any_value
    %a, %b = transform.structured.tile_using_forall %f tile_sizes [1024] (mapping = [#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
