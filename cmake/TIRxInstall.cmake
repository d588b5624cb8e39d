#===- TIRxInstall.cmake - install and export TIRx -------------------------===#
#
# What `cmake --install` puts under the prefix, and the package a consumer
# finds with find_package(TIRx REQUIRED CONFIG):
#
#   include/tirx/...            headers, .td files, generated .inc, Version.h
#   lib/libTIRx*.a              the libraries
#   lib/libTIRxPlugin.so        the plugin of the stock mlir-opt-22
#   bin/tirx bin/tirx-opt bin/tirx-run
#   lib/cmake/tirx/             TIRxConfig.cmake, TIRxConfigVersion.cmake,
#                               TIRxTargets.cmake (targets TIRx::<name>)
#
# Included last by the top-level CMakeLists.txt, once every target exists.
# A new library is one line: its target name in TIRX_LIBRARIES below (see
# docs/install.md).
#
#===------------------------------------------------------------------------===#

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The libraries, exported as TIRx::<name>. TIRxRuntime includes no MLIR
# header and is the only one a -DTIRX_RUNTIME_ONLY=ON build has.
set(TIRX_LIBRARIES
  TIRxRuntime
  TIRxCudaRuntime
  TIRxSupport
  TIRxDialect
  TIRxAnalysis
  TIRxTransforms
  TIRxTransformOps
  TIRxHarness
  TIRxCAPI
  TIRxTune
  )
# The programs and the plugin, exported too (TIRx::tirx-opt, ...): a
# consumer's tests can run them through $<TARGET_FILE:...>.
set(TIRX_PROGRAMS tirx-run tirx-opt tirx TIRxPlugin)

set(TIRX_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tirx)

set(tirx_exported)
set(tirx_mlir_libraries)
foreach(target ${TIRX_LIBRARIES})
  if(NOT TARGET ${target})
    continue()
  endif()
  list(APPEND tirx_exported ${target})
  if(NOT target MATCHES "^TIRx(Cuda)?Runtime$")
    list(APPEND tirx_mlir_libraries ${target})
  endif()
  # The headers travel with the target: in the build tree the sources' and
  # the generated ones, once installed the prefix's.
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
foreach(target ${TIRX_PROGRAMS})
  if(TARGET ${target})
    list(APPEND tirx_exported ${target})
  endif()
endforeach()

# Warns when a target links libLLVM.so and a static LLVM library too (two
# copies of LLVM at run time). It only reads link properties, so it works
# with MLIR_LINK_MLIR_DYLIB.
if(COMMAND mlir_check_all_link_libraries)
  foreach(target ${tirx_exported})
    mlir_check_all_link_libraries(${target})
  endforeach()
endif()

install(TARGETS ${tirx_exported}
  EXPORT TIRxTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tirx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tirx-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tirx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# The package: for the prefix, and the same files for the build tree
# (TIRx_DIR=build/lib/cmake/tirx) so a consumer can build against either.
set(TIRX_CONFIG_BUILD_DIR ${PROJECT_BINARY_DIR}/lib/cmake/tirx)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TIRxConfig.cmake.in
  ${TIRX_CONFIG_BUILD_DIR}/TIRxConfig.cmake
  INSTALL_DESTINATION ${TIRX_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${TIRX_CONFIG_BUILD_DIR}/TIRxConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
export(EXPORT TIRxTargets NAMESPACE TIRx::
  FILE ${TIRX_CONFIG_BUILD_DIR}/TIRxTargets.cmake)
install(EXPORT TIRxTargets NAMESPACE TIRx::
  DESTINATION ${TIRX_INSTALL_CMAKEDIR})
install(FILES
  ${TIRX_CONFIG_BUILD_DIR}/TIRxConfig.cmake
  ${TIRX_CONFIG_BUILD_DIR}/TIRxConfigVersion.cmake
  DESTINATION ${TIRX_INSTALL_CMAKEDIR})
