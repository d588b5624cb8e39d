// saxpy over 1000003 f32 elements, a prime: no tile size divides it.
// y[i] = a * x[i] + y[i], written as a front end would: no annotations.
// - The buffers need no `llvm.align`: the bundle ABI promises 256-byte
//   aligned buffers (the runner allocates them), so vectors are proven.
// - The scalar `a` needs no `tirx.value`: the runner seeds it from the
//   run's seed, the same for the kernel and the reference.
// examples/recipes/prime-saxpy.json schedules it: blocks of 1024 with a
// tail block of 579, 4 per thread with a tail thread of 3, 4-wide vectors.
#map = affine_map<(d0) -> (d0)>
func.func @prime_saxpy(%a: f32 {tirx.name = "a"},
                       %x: memref<1000003xf32> {tirx.name = "x"},
                       %y: memref<1000003xf32> {tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<1000003xf32>) outs(%y : memref<1000003xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %p = arith.mulf %a, %xi : f32
    %s = arith.addf %p, %yi : f32
    linalg.yield %s : f32
  }
  return
}
