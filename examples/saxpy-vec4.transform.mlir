// Schedule for saxpy: 256 threads per block, 4 contiguous elements per
// thread (1024 per block, 65536 blocks), then 4-wide vectors. After
// tirx-lower-to-nvvm the loads are ld.global.v4.b32: the pipeline proves the
// 16-byte alignment from the `llvm.align` of the arguments and the index
// (a multiple of 4 elements) and sets `alignment = 16`.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %generic = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %blocks, %l0 = transform.structured.tile_using_forall %generic tile_sizes [1024]
        (mapping = [#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %threads, %l1 = transform.structured.tile_using_forall %blocks tile_sizes [4]
        (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %threads vector_sizes [4] : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %func generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.gpu.map_nested_forall_to_threads %launch block_dims = [256, 1, 1]
        sync_after_distribute = false : (!transform.any_op) -> !transform.any_op
    %func2 = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func2 {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
