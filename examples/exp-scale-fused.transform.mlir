// exp-scale fused: the consumer tiled to blocks of 1024, the producer fused
// into the block loop (its tile in shared memory, between barriers), both
// tiled to 256 threads x 4 elements in 4-wide vectors, then the upstream GPU
// mapping.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %generics = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %generics
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tile, %blocks = transform.tirx.tile_to_blocks %consumer tile_sizes [1024]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %producer
        : (!transform.any_op) -> !transform.any_op
    %p, %pt = transform.tirx.tile_to_threads %fused elements_per_thread [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %c, %ct = transform.tirx.tile_to_threads %tile elements_per_thread [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %p width = 4 : !transform.any_op
    transform.tirx.vectorize %c width = 4 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    transform.yield
  }
}
