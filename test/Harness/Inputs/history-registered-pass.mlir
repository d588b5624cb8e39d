#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (d0 * 1024)>
#map2 = affine_map<(d0) -> (d0 * 4)>
module {
  tirx.session @session attributes {target = "sm_90"} {
    tirx.snapshot @v1 digest "sha256:ef2801305c89af118b73d7c193469a314e6d2094d7b4f0e82b452cc28c375694" attributes {message = "seed: /work/main/examples/saxpy.mlir"} {
      module {
        func.func @saxpy(%arg0: f32 {tirx.name = "a", tirx.value = 2.000000e+00 : f32}, %arg1: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg2: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
          linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg1 : memref<67108864xf32>) outs(%arg2 : memref<67108864xf32>) {
          ^bb0(%in: f32, %out: f32):
            %0 = arith.mulf %arg0, %in : f32
            %1 = arith.addf %0, %out : f32
            linalg.yield %1 : f32
          }
          return
        }
      }
    }
    tirx.snapshot @v2 parent @v1 digest "sha256:b79b4d5d3f1fd851875aee7202dd7de1e94e726626fcc1b96d6d80bf0bf4458a" attributes {message = "action {\22params\22:{\22tile_sizes\22:[1024]},\22target\22:{\22op\22:\22linalg.generic\22},\22transform\22:\22tile_to_blocks\22}"} {
      module {
        func.func @saxpy(%arg0: f32 {tirx.name = "a", tirx.value = 2.000000e+00 : f32}, %arg1: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg2: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
          %c67108864_i64 = arith.constant 67108864 : i64
          %c1024_i64 = arith.constant 1024 : i64
          %c65536_i64 = arith.constant 65536 : i64
          scf.forall (%arg3) in (65536) {
            %c0 = arith.constant 0 : index
            %c1024 = arith.constant 1024 : index
            %0 = affine.apply #map1(%arg3)
            %subview = memref.subview %arg1[%0] [1024] [1] : memref<67108864xf32> to memref<1024xf32, strided<[1], offset: ?>>
            %subview_0 = memref.subview %arg2[%0] [1024] [1] : memref<67108864xf32> to memref<1024xf32, strided<[1], offset: ?>>
            linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%subview : memref<1024xf32, strided<[1], offset: ?>>) outs(%subview_0 : memref<1024xf32, strided<[1], offset: ?>>) {
            ^bb0(%in: f32, %out: f32):
              %1 = arith.mulf %arg0, %in : f32
              %2 = arith.addf %1, %out : f32
              linalg.yield %2 : f32
            }
          } {mapping = [#gpu.block<x>]}
          return
        }
      }
    }
    tirx.snapshot @v3 parent @v2 digest "sha256:70b2026f1d62cb84fea78cd776b91e0cdb3945d6f9ce92fdfcb6d90e85d0d741" attributes {message = "action {\22params\22:{\22elements_per_thread\22:[4]},\22target\22:{\22op\22:\22linalg.generic\22},\22transform\22:\22tile_to_threads\22}"} {
      module {
        func.func @saxpy(%arg0: f32 {tirx.name = "a", tirx.value = 2.000000e+00 : f32}, %arg1: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg2: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
          %c67108864_i64 = arith.constant 67108864 : i64
          %c1024_i64 = arith.constant 1024 : i64
          %c65536_i64 = arith.constant 65536 : i64
          scf.forall (%arg3) in (65536) {
            %c0 = arith.constant 0 : index
            %c1024 = arith.constant 1024 : index
            %0 = affine.apply #map1(%arg3)
            %subview = memref.subview %arg1[%0] [1024] [1] : memref<67108864xf32> to memref<1024xf32, strided<[1], offset: ?>>
            %subview_0 = memref.subview %arg2[%0] [1024] [1] : memref<67108864xf32> to memref<1024xf32, strided<[1], offset: ?>>
            %c1024_i64_1 = arith.constant 1024 : i64
            %c4_i64 = arith.constant 4 : i64
            %c256_i64 = arith.constant 256 : i64
            scf.forall (%arg4) in (256) {
              %c0_2 = arith.constant 0 : index
              %c4 = arith.constant 4 : index
              %1 = affine.apply #map2(%arg4)
              %subview_3 = memref.subview %subview[%1] [4] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
              %subview_4 = memref.subview %subview_0[%1] [4] [1] : memref<1024xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
              linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%subview_3 : memref<4xf32, strided<[1], offset: ?>>) outs(%subview_4 : memref<4xf32, strided<[1], offset: ?>>) {
              ^bb0(%in: f32, %out: f32):
                %2 = arith.mulf %arg0, %in : f32
                %3 = arith.addf %2, %out : f32
                linalg.yield %3 : f32
              }
            } {mapping = [#gpu.thread<x>]}
          } {mapping = [#gpu.block<x>]}
          return
        }
      }
    }
    tirx.step @v1 -> @v2 kind "apply" {action = "{\22params\22:{\22tile_sizes\22:[1024]},\22target\22:{\22op\22:\22linalg.generic\22},\22transform\22:\22tile_to_blocks\22}", script = "// action: tile_to_blocks\0Amodule attributes {transform.with_named_sequence} {\0A  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {\0A    %0 = transform.structured.match ops{[\22linalg.generic\22]} in %arg0 : (!transform.any_op) -> !transform.any_op\0A    %tiled, %forall = transform.tirx.tile_to_blocks %0 tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\0A    %zz = transform.structured.match ops{[\22func.func\22]} in %arg0 : (!transform.any_op) -> !transform.any_op\0A    %yy = transform.apply_registered_pass \22canonicalize\22 to %zz : (!transform.any_op) -> !transform.any_op\0A    transform.yield \0A  }\0A}\0A"}
    tirx.step @v2 -> @v3 kind "apply" {action = "{\22params\22:{\22elements_per_thread\22:[4]},\22target\22:{\22op\22:\22linalg.generic\22},\22transform\22:\22tile_to_threads\22}", script = "// action: tile_to_threads\0Amodule attributes {transform.with_named_sequence} {\0A  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {\0A    %0 = transform.structured.match ops{[\22linalg.generic\22]} in %arg0 : (!transform.any_op) -> !transform.any_op\0A    %tiled, %forall = transform.tirx.tile_to_threads %0 elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\0A    transform.yield \0A  }\0A}\0A"}
  }
}
