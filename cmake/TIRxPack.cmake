#===- TIRxPack.cmake - a self-contained tarball for GPU hosts -------------===#
#
# `make pack` (target `pack`) writes build/tirx-pack.tar.xz: tirx and
# tirx-opt as one executable linked statically against MLIR and LLVM
# (tools/pack), tirx-run, the Python package and the examples. It runs where
# only glibc, python3, the CUDA driver and ptxas are installed: the GPU host
# has no LLVM. `make check-pack` (target `check-pack`) unpacks it and runs
# the loop with /usr/lib/llvm-22 hidden (tools/pack/check-pack.sh).
#
# tirx_link_static_mlir(TARGET) is used by tools/pack/CMakeLists.txt, so
# this file is included before add_subdirectory(tools).
#
#===------------------------------------------------------------------------===#

# The archives of the static link, in one --start-group: every MLIR and LLVM
# archive but the test passes, the ExecutionEngine (it drags in the JIT and
# its own registrations) and MlirOptMain (a main() of its own). The linker
# takes only the members something refers to, and --gc-sections drops the
# functions nothing calls.
file(GLOB tirx_pack_mlir_archives
  ${LLVM_LIBRARY_DIR}/libMLIR*.a ${LLVM_LIBRARY_DIR}/libLLVM*.a)
list(FILTER tirx_pack_mlir_archives EXCLUDE REGEX
  "/libMLIR[^/]*Test[^/]*\\.a$|/libMLIR(CAPI)?ExecutionEngine\\.a$|/libMLIRMlirOptMain\\.a$")

# The system libraries MLIR and LLVM use, static where the archive is
# installed (zlib1g-dev, libzstd-dev): the pack then needs glibc alone.
set(tirx_pack_system_libraries)
foreach(name z zstd)
  find_library(TIRX_PACK_LIB_${name} NAMES lib${name}.a)
  if(TIRX_PACK_LIB_${name})
    list(APPEND tirx_pack_system_libraries ${TIRX_PACK_LIB_${name}})
  else()
    list(APPEND tirx_pack_system_libraries -l${name})
  endif()
endforeach()

# lld links the ~660 archives several times faster than ld.bfd.
find_program(TIRX_PACK_LLD NAMES ld.lld)
set(TIRX_PACK_USE_LLD ${TIRX_PACK_LLD} CACHE BOOL
  "Link the pack's static binary with lld when it is installed")

function(tirx_link_static_mlir target)
  # TIRx's own archives by file, not by target: the targets' link interface
  # names libMLIR.so.
  set(tirx_archives)
  foreach(lib TIRxHarness TIRxTune TIRxSupport TIRxDialect TIRxAnalysis
              TIRxTransforms TIRxTransformOps TIRxRuntime)
    if(TARGET ${lib})
      list(APPEND tirx_archives $<TARGET_FILE:${lib}>)
      add_dependencies(${target} ${lib})
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE
    -Wl,--start-group ${tirx_archives} ${tirx_pack_mlir_archives}
    -Wl,--end-group ${tirx_pack_system_libraries} -lpthread -ldl -lrt)
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc
    -Wl,--gc-sections -Wl,--as-needed -s)
  if(TIRX_PACK_USE_LLD)
    target_link_options(${target} PRIVATE -fuse-ld=lld)
  endif()
endfunction()

# The tarball. Its inputs are listed so that it is remade when one changes.
file(GLOB tirx_pack_python CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/python/tirx/*.py)
file(GLOB_RECURSE tirx_pack_examples CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/examples/*)
set(TIRX_PACK_TARBALL ${CMAKE_BINARY_DIR}/tirx-pack.tar.xz)
add_custom_command(OUTPUT ${TIRX_PACK_TARBALL}
  COMMAND bash ${PROJECT_SOURCE_DIR}/tools/pack/make-pack.sh
    --out ${TIRX_PACK_TARBALL}
    --tirx $<TARGET_FILE:tirx-multicall>
    --tirx-run $<TARGET_FILE:tirx-run>
    --source ${PROJECT_SOURCE_DIR}
    --version ${PROJECT_VERSION}
  DEPENDS tirx-multicall tirx-run
    ${PROJECT_SOURCE_DIR}/tools/pack/make-pack.sh
    ${PROJECT_SOURCE_DIR}/tools/pack/env.sh
    ${PROJECT_SOURCE_DIR}/tools/pack/README.md
    ${tirx_pack_python} ${tirx_pack_examples}
  COMMENT "Packing tirx, tirx-opt, tirx-run and the Python package into tirx-pack.tar.xz"
  VERBATIM)
add_custom_target(pack DEPENDS ${TIRX_PACK_TARBALL})

# check-pack needs the pack: 1m40 of CPU in xz, 7 minutes measured on 2
# shared cores. It is part of `make check` only with -DTIRX_CHECK_PACK=ON.
option(TIRX_CHECK_PACK "check-tirx (make check) also runs check-pack" OFF)
add_custom_target(check-pack
  COMMAND bash ${PROJECT_SOURCE_DIR}/tools/pack/check-pack.sh
    ${TIRX_PACK_TARBALL} ${PROJECT_SOURCE_DIR}
  DEPENDS pack
  USES_TERMINAL
  COMMENT "Running the pack with /usr/lib/llvm-22 hidden")
if(TIRX_CHECK_PACK)
  # check-tirx is defined later, by test/.
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR}
    CALL add_dependencies check-tirx check-pack)
endif()
