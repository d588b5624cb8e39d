// Parameters are checked before anything runs (the ops' verifiers).
// RUN: tirx-opt %s -split-input-file -verify-diagnostics

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 0}}
    transform.tirx.vectorize %root width = 0 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 3}}
    transform.tirx.vectorize %root width = 3 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 64}}
    transform.tirx.vectorize %root width = 64 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: tile sizes must be non-negative with at least one positive}}
    %t, %f = transform.tirx.tile_to_blocks %root tile_sizes [0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: max_threads must lie in [32, 1024], got 2048}}
    %t, %f = transform.tirx.tile_to_threads %root elements_per_thread [4] {max_threads = 2048 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{invalid_parameter: factor must lie in [2, 64], got 1}}
    transform.tirx.unroll %root factor = 1 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: warps takes two counts (along M and N), each at least 1, at most 32 in all (1024 threads)}}
    %w = transform.tirx.use_mma %root warps [8, 8] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: warps takes two counts}}
    %w = transform.tirx.use_mma %root warps [0, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: parts must lie in [2, 65536], got 1}}
    %f, %s, %c = transform.tirx.split_reduction %root parts = 1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: block_dims must be 1 to 3 sizes in [1, 1024], at most 1024 threads in all}}
    transform.tirx.map_to_gpu %root block_dims [64, 64] : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: padding must lie in [0, 64], got -1}}
    %p = transform.tirx.promote_to_shared %root operands [0] {padding = -1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: threads must be a power of two in [32, 1024], got 96}}
    %r = transform.tirx.reduce_in_block %root threads = 96 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
