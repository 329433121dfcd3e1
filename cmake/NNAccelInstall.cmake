# NNAccelInstall.cmake - `cmake --install` rules and the NNAccel CMake package.
#
# Installs the tools, the runtime half's libraries (never LLVM/MLIR: a serving
# binary links NNAccel::Runtime alone), the headers of their API, the target
# descriptions and NNAccelConfig.cmake, which gives downstream projects
# NNAccel::Runtime, NNAccel::TensorIO, NNAccel::nnaccel-compile (full builds)
# and nnaccel_add_model_package(). Included last by the top-level
# CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NNACCEL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/NNAccel
    CACHE STRING "Where NNAccelConfig.cmake is installed")
set(NNACCEL_INSTALL_TARGETSDIR ${CMAKE_INSTALL_DATADIR}/nnaccel/targets)

# The runtime libraries under the names downstream code uses (NNAccel::<name>).
set(_nnaccel_runtime_libs
  NNAccelNumerics Numerics
  NNAccelISA ISA
  NNAccelPackage Package
  NNAccelEmulator Emulator
  NNAccelRuntime Runtime
  NNAccelTensorIO TensorIO)
set(_nnaccel_export_targets)
while(_nnaccel_runtime_libs)
  list(POP_FRONT _nnaccel_runtime_libs _target _name)
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  list(APPEND _nnaccel_export_targets ${_target})
endwhile()

# Tools. nnaccel-compile is exported too, so that nnaccel_add_model_package()
# runs the installed compiler through an imported target. The compiler tools
# link LLVM/MLIR's shared libraries: their install RPATH keeps those paths
# (CMAKE_INSTALL_RPATH_USE_LINK_PATH in the top-level CMakeLists.txt).
set(_nnaccel_tools nnaccel-run nnaccel-pkg nnaccel-emu)
if(NNACCEL_BUILD_COMPILER)
  list(APPEND _nnaccel_tools nnaccel-compile nnaccel-opt nnaccel-translate)
  list(APPEND _nnaccel_export_targets nnaccel-compile)
endif()

install(TARGETS ${_nnaccel_export_targets}
  EXPORT NNAccelTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ${_nnaccel_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers of the runtime API and what they include; the compiler's headers
# (MLIR passes, importer) are not an installed API.
foreach(_dir Runtime TensorIO Package Numerics ISA Emulator)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nnaccel/${_dir}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnaccel
    FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.fbs")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/include/nnaccel/Package/Package_generated.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnaccel/Package)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/targets/
  DESTINATION ${NNACCEL_INSTALL_TARGETSDIR}
  FILES_MATCHING PATTERN "*.json")

install(EXPORT NNAccelTargets
  NAMESPACE NNAccel::
  DESTINATION ${NNACCEL_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/NNAccelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/NNAccelConfig.cmake
  INSTALL_DESTINATION ${NNACCEL_INSTALL_CMAKEDIR}
  PATH_VARS NNACCEL_INSTALL_TARGETSDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/NNAccelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/NNAccelConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/NNAccelConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/NNAccelModelPackage.cmake
  DESTINATION ${NNACCEL_INSTALL_CMAKEDIR})
