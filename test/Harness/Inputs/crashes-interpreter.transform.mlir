// Crashes the transform interpreter of a build without assertions (a
// param handle where tile sizes are expected): the harness must survive.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 4 : i64 -> !transform.any_param
    %t, %l = transform.structured.tile_using_for %g tile_sizes [%p] : (!transform.any_op, !transform.any_param) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
