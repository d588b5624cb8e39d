// Overwrites indexing_maps: a different computation.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    %l = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>] -> !transform.any_param
    transform.annotate %l "indexing_maps" = %p : !transform.any_op, !transform.any_param
    transform.yield
  }
}
