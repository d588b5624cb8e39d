module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.structured.tile_using_forall %f num_threads [-3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
