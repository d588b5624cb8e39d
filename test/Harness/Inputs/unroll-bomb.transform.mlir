// An unroll bomb the strict policy allows: tile by 1 (4096 trips), then
// unroll by 2^26. Without limits the interpreter grows without bound.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.loop.unroll %loop {factor = 67108864} : !transform.any_op
    transform.yield
  }
}
