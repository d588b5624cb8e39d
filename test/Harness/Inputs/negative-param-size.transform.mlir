module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant -5 : i64 -> !transform.param<i64>
    %a, %b = transform.structured.tile_using_forall %f tile_sizes [%p] (mapping = [#gpu.block<x>]) : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
