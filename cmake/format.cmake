# SPDX-License-Identifier: BSD-3-Clause
# `format-check` fails when a C/C++/CUDA source differs from .clang-format; `format` rewrites them.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(CLANG_FORMAT)
    file(GLOB_RECURSE DGN_FORMAT_SOURCES CONFIGURE_DEPENDS
        ${PROJECT_SOURCE_DIR}/include/*.h ${PROJECT_SOURCE_DIR}/include/*.cuh
        ${PROJECT_SOURCE_DIR}/src/*.c ${PROJECT_SOURCE_DIR}/src/*.h
        ${PROJECT_SOURCE_DIR}/emu/*.c ${PROJECT_SOURCE_DIR}/emu/*.h
        ${PROJECT_SOURCE_DIR}/tools/*.c ${PROJECT_SOURCE_DIR}/tests/*.c
        ${PROJECT_SOURCE_DIR}/tests/*.h ${PROJECT_SOURCE_DIR}/tests/*.cu
        ${PROJECT_SOURCE_DIR}/examples/*.c ${PROJECT_SOURCE_DIR}/examples/*.cu
        ${PROJECT_SOURCE_DIR}/bench/*.c ${PROJECT_SOURCE_DIR}/bench/*.cu)
    add_custom_target(format-check
        COMMAND ${CLANG_FORMAT} --dry-run --Werror ${DGN_FORMAT_SOURCES}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        COMMENT "Checking source formatting against .clang-format")
    add_custom_target(format
        COMMAND ${CLANG_FORMAT} -i ${DGN_FORMAT_SOURCES}
        WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        COMMENT "Formatting sources with .clang-format")
else()
    add_custom_target(format-check COMMAND ${CMAKE_COMMAND} -E echo "clang-format not found" COMMAND false)
endif()
