// Unrolling is legal (256 trips, factor 2), but the result keeps an access
// that cannot be proven in bounds.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.unroll %l factor = 2 : !transform.any_op
    transform.yield
  }
}
