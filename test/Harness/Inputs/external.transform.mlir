// Includes a named sequence declared without a body: code from outside the
// script. Refused by the strict policy.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @outside(%op: !transform.any_op {transform.readonly})
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.include @outside failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
