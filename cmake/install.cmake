# SPDX-License-Identifier: BSD-3-Clause
# Installs the library, the public host and device headers, and the pkg-config
# files doca-gpunetio.pc and doca-common.pc (same version: users check one
# against the other).
set(DGN_INCLUDE_SUBDIR doca-gpunetio-open)

install(TARGETS doca_gpunetio LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${DGN_INCLUDE_SUBDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")

# Relocatable: the prefix is found from the .pc file's own place.
file(RELATIVE_PATH DGN_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
foreach(pc doca-gpunetio doca-common)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
