"""Writes a payload whose launch reads a constant global of N f32 (a
dense_resource blob, as front ends hold weights): sink-constants-large.test."""
import sys

n = int(sys.argv[1])
blob = "0x04000000" + "00" * (4 * n)
print(f"""module {{
  memref.global "private" constant @w : memref<{n}xf32> = dense_resource<w_blob>
  func.func @f(%x: memref<{n}xf32>) {{
    %c1 = arith.constant 1 : index
    %w = memref.get_global @w : memref<{n}xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {{
      %v = memref.load %x[%tx] : memref<{n}xf32>
      %u = memref.load %w[%tx] : memref<{n}xf32>
      %s = arith.addf %v, %u : f32
      memref.store %s, %x[%tx] : memref<{n}xf32>
      gpu.terminator
    }}
    return
  }}
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w_blob: "{blob}"
    }}
  }}
#-}}""")
