# `cmake --install` of the runtime package (component "runtime"):
# libkiln_runtime.so, the headers, kilnConfig.cmake with the target
# kiln::runtime, and kiln-runtime.pc. docs/embedding.md shows both uses.
include(CMakePackageConfigHelpers)

set(KILN_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

install(TARGETS kiln_runtime_shared EXPORT kilnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          NAMELINK_COMPONENT runtime)
install(FILES
    ${CMAKE_CURRENT_SOURCE_DIR}/include/kiln/runtime.h
    ${CMAKE_CURRENT_SOURCE_DIR}/include/kiln/runtime.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln COMPONENT runtime)
install(EXPORT kilnTargets NAMESPACE kiln::
  DESTINATION ${KILN_CMAKE_INSTALL_DIR} COMPONENT runtime)

configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
  INSTALL_DESTINATION ${KILN_CMAKE_INSTALL_DIR})
# While the version is 0.x, a minor release may change the API: only the same
# MAJOR.MINOR satisfies find_package(kiln 0.1).
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
    ${CMAKE_CURRENT_BINARY_DIR}/kilnConfig.cmake
    ${CMAKE_CURRENT_BINARY_DIR}/kilnConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_INSTALL_DIR} COMPONENT runtime)

# pkg-config: relocatable (the prefix is found from the .pc file's folder), so
# `cmake --install build --prefix DIR` works for any DIR.
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCFILEDIR
  "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" KILN_PC_PREFIX_FROM_PCFILEDIR
  "${KILN_PC_PREFIX_FROM_PCFILEDIR}")
# kiln/runtime.h includes <cuda_runtime_api.h>: the CUDA headers and cudart.
list(TRANSFORM CUDAToolkit_INCLUDE_DIRS PREPEND "-I" OUTPUT_VARIABLE KILN_PC_CUDA_CFLAGS)
list(JOIN KILN_PC_CUDA_CFLAGS " " KILN_PC_CUDA_CFLAGS)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/kiln-runtime.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kiln-runtime.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)
