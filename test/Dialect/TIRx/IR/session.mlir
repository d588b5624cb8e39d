// RUN: tirx-opt %s | FileCheck %s
// RUN: tirx-opt %s | tirx-opt | FileCheck %s

// A history: two snapshots and the step between them. The digests are those
// of the payloads' canonical text (printed without locations).

// CHECK-LABEL: tirx.session @s attributes {task = "demo"} {
// CHECK-NEXT: tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" attributes {message = "seed"} {
// CHECK-NEXT: module {
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: tirx.snapshot @v2 parent @v1 digest "sha256:ec8035679c376f89e5cd0da7ba94e7b9140c15ff9d5c2540a49f790719539e6a" {
// CHECK: func.func @f()
// CHECK: tirx.step @v1 -> @v2 kind "commit"
// CHECK-NEXT: tirx.step @v1 -> @v2 kind "apply" {script = "module attributes {transform.with_named_sequence} {}"}
tirx.session @s attributes {task = "demo"} {
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" attributes {message = "seed"} {
    module {
    }
  }
  tirx.snapshot @v2 parent @v1 digest "sha256:ec8035679c376f89e5cd0da7ba94e7b9140c15ff9d5c2540a49f790719539e6a" {
    module {
      func.func @f() {
        return
      }
    }
  }
  tirx.step @v1 -> @v2 kind "commit"
  tirx.step @v1 -> @v2 kind "apply" {script = "module attributes {transform.with_named_sequence} {}"}
}
