# Install rules and the exported CMake package `Mirage`.
#
#   cmake --install build --prefix /opt/mirage
#
# installs
#   bin/mirage-opt, bin/mirage-run                (mirage-run needs no MLIR)
#   lib/libMirage*.a, lib/MiragePlugin.so         (plugin for the stock mlir-opt)
#   include/Mirage/**.{h,td} + generated *.h.inc  (from the build tree)
#   lib/cmake/Mirage/{MirageConfig,MirageConfigVersion,MirageTargets*}.cmake
#
# and another project uses it with
#   find_package(Mirage CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=/opt/mirage
#   target_link_libraries(x PRIVATE Mirage::MirageKernelDialect ...)
# (see docs/Integration.md and test/Install/consumer).
#
# add_mlir_library also puts each library in MLIR's own (never installed)
# `MLIRTargets` export set; the rules here are the ones that matter.

include(CMakePackageConfigHelpers)

set(MIRAGE_PACKAGE_VERSION 0.1.0)
set(MIRAGE_INSTALL_PACKAGE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/Mirage)

# Dependency order (each library before the ones it links).
set(MIRAGE_EXPORTED_LIBS
  MirageSemantics
  MirageCommon
  MirageThreadDialect
  MirageBlockDialect
  MirageKernelDialect
  MirageKernelTransforms
  MirageAnalysis
  MirageSearch
  MirageTransforms
  MirageConversion
  MirageKernelToLoops
  MirageLoopsToCPU
  MirageLoopsToGPU
  MirageKernelsToPTX
  MiragePipelines
)

foreach(lib ${MIRAGE_EXPORTED_LIBS})
  # In the build tree the include paths come from include_directories(); an
  # installed library carries them itself.
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:include>)
  target_compile_features(${lib} INTERFACE cxx_std_17)
endforeach()

# The installed tool and plugin find libMLIR.so / libLLVM.so where they were
# linked (/usr/lib/llvm-22/lib), not only in $ORIGIN/../lib.
set_target_properties(mirage-opt MiragePlugin PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)

install(TARGETS ${MIRAGE_EXPORTED_LIBS} mirage-opt MiragePlugin mirage-run
  EXPORT MirageTargets
  ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT mirage
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX} COMPONENT mirage
  RUNTIME DESTINATION bin COMPONENT mirage
)

# Headers: the sources and the TableGen output of the build tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/Mirage
  DESTINATION include COMPONENT mirage
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
)
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/Mirage
  DESTINATION include COMPONENT mirage
  FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.cpp.inc"
  PATTERN "CMakeFiles" EXCLUDE
)

install(EXPORT MirageTargets
  NAMESPACE Mirage::
  DESTINATION ${MIRAGE_INSTALL_PACKAGE_DIR}
  COMPONENT mirage
)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/MirageConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/MirageConfig.cmake
  INSTALL_DESTINATION ${MIRAGE_INSTALL_PACKAGE_DIR}
  PATH_VARS MIRAGE_INSTALL_PACKAGE_DIR
)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/MirageConfigVersion.cmake
  VERSION ${MIRAGE_PACKAGE_VERSION}
  COMPATIBILITY SameMinorVersion
)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/MirageConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/MirageConfigVersion.cmake
  DESTINATION ${MIRAGE_INSTALL_PACKAGE_DIR}
  COMPONENT mirage
)
