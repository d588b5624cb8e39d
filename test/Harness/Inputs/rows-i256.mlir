// auto.test: a row statistic and its use on i256 elements (wider than a
// 16-byte vector: one element a thread, no division by a zero width).
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @f(%x: memref<64x2048xi256> {tirx.name = "x"}, %y: memref<64x2048xi256> {tirx.name = "y"}) {
  %zero = arith.constant 0 : i256
  %ss = memref.alloc() : memref<64xi256>
  linalg.fill ins(%zero : i256) outs(%ss : memref<64xi256>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x2048xi256>) outs(%ss : memref<64xi256>) {
  ^bb0(%a: i256, %acc: i256):
    %s = arith.addi %a, %acc : i256
    linalg.yield %s : i256
  }
  linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : memref<64x2048xi256>, memref<64xi256>) outs(%y : memref<64x2048xi256>) {
  ^bb0(%a: i256, %s: i256, %o: i256):
    %v = arith.subi %a, %s : i256
    linalg.yield %v : i256
  }
  memref.dealloc %ss : memref<64xi256>
  return
}
