// saxpy scheduled with TIRx's checked transforms: 1024 elements per block,
// 4 per thread (256 threads), 4-wide vectors with proven 16-byte alignment,
// then one kernel of 256 threads (map_to_gpu).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %generic = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tile, %blocks = transform.tirx.tile_to_blocks %generic tile_sizes [1024]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %elem, %threads = transform.tirx.tile_to_threads %tile elements_per_thread [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %elem width = 4 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    transform.yield
  }
}
