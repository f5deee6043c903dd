# SPDX-License-Identifier: BSD-3-Clause
# Sanitized builds of host code (CUDA device code is never instrumented).
#
#   DGN_SANITIZE=ON or address  AddressSanitizer + UndefinedBehaviorSanitizer
#   DGN_SANITIZE=thread         ThreadSanitizer
#   DGN_FUZZ=ON                 libFuzzer targets (tests/fuzz/), clang only: everything is
#                               built with ASan + UBSan and the fuzzer's coverage
#                               instrumentation, the targets are linked with libFuzzer
#
# Any report aborts the test that hit it (-fno-sanitize-recover; TSan by
# TSAN_OPTIONS=halt_on_error=1, which scripts/test.sh sets).
#
# Set here for the rest of the tree:
#   DGN_SANITIZE          normalised: OFF, address or thread (a plain `if(DGN_SANITIZE)`
#                         still means "some sanitizer")
#   DGN_SANITIZER_FLAGS   the compile and link flags
#   DGN_SANITIZER_RUNTIME the runtime's shared library, which a program that was not
#                         built with the sanitizer needs preloaded to load our sanitized
#                         libraries (dgn_uninstrumented_program below)
set(DGN_SANITIZER_FLAGS "")
set(DGN_SANITIZER_RUNTIME "")
string(TOLOWER "${DGN_SANITIZE}" DGN_SANITIZE_KIND)
if(DGN_SANITIZE_KIND MATCHES "^(on|yes|true|y|1|address|asan)$")
    set(DGN_SANITIZE_KIND address)
elseif(DGN_SANITIZE_KIND MATCHES "^(thread|tsan)$")
    set(DGN_SANITIZE_KIND thread)
elseif(NOT DGN_SANITIZE_KIND OR DGN_SANITIZE_KIND MATCHES "^(off|no|false|n|0)$")
    set(DGN_SANITIZE_KIND OFF)
else()
    message(FATAL_ERROR "DGN_SANITIZE=${DGN_SANITIZE}: expected OFF, ON (= address) or thread")
endif()

if(DGN_FUZZ)
    if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "DGN_FUZZ needs clang (libFuzzer): configure with CC=clang CXX=clang++")
    endif()
    if(DGN_SANITIZE_KIND STREQUAL "thread")
        message(FATAL_ERROR "DGN_FUZZ builds with ASan + UBSan: it cannot be combined with DGN_SANITIZE=thread")
    endif()
    set(DGN_SANITIZE_KIND address)
    # Coverage for the fuzzer in every object; only the fuzz targets link libFuzzer itself.
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
endif()

if(DGN_SANITIZE_KIND STREQUAL "address")
    set(DGN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    set(DGN_SANITIZER_RUNTIME_NAME libasan.so)
elseif(DGN_SANITIZE_KIND STREQUAL "thread")
    set(DGN_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
    set(DGN_SANITIZER_RUNTIME_NAME libtsan.so)
    if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
        # GCC's -Wtsan warns at every standalone atomic_thread_fence /
        # __atomic_thread_fence that ThreadSanitizer does not model fences, and
        # -Werror makes that an error. The fences stay: they are what orders the
        # data path's accesses to memory shared with the NIC (gdaki_fence, the CQ
        # poll of emu/abi/verbs_cq.c, the descriptor read of src/gpunetio/qp_query.c),
        # on CPUs and in the same code built for the GPU. Under TSan those
        # accesses are themselves acquire loads and release stores instead
        # (GDAKI_TSAN, include/device/impl/gdaki_platform.h), so TSan sees the
        # ordering the fences give; an ordering that rests on a fence alone is
        # reported as a race, which is what this build is for.
        add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-Wno-tsan>")
    endif()
endif()

if(DGN_SANITIZER_FLAGS)
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${DGN_SANITIZER_FLAGS}>")
    add_link_options(${DGN_SANITIZER_FLAGS})
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${DGN_SANITIZER_RUNTIME_NAME}
        OUTPUT_VARIABLE DGN_SANITIZER_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
    message(STATUS "Sanitizer: ${DGN_SANITIZE_KIND} (${DGN_SANITIZER_FLAGS}), runtime ${DGN_SANITIZER_RUNTIME}")
endif()
# The rest of the tree tests `if(DGN_SANITIZE)` (sanitized libraries keep undefined
# runtime symbols, programs need the runtime): any sanitizer counts.
set(DGN_SANITIZE ${DGN_SANITIZE_KIND})

# dgn_uninstrumented_program(<var>): <var> holds the path of a program that
# was not built with the sanitizer (Debian's ibv_* tools) and that a test runs
# on our sanitized softmlx5 libraries, which need the sanitizer's runtime
# loaded first. In a sanitized build <var> becomes a wrapper that preloads the
# runtime into that program only: not into a test script's shell, which TSan's
# runtime crashes. Unchanged in other builds, and when the program was not
# found (a test then skips, as it does unsanitized).
function(dgn_uninstrumented_program var)
    set(program "${${var}}")
    if(NOT DGN_SANITIZER_RUNTIME OR NOT IS_ABSOLUTE "${program}" OR NOT EXISTS "${program}")
        return()
    endif()
    get_filename_component(name "${program}" NAME)
    set(wrapper ${PROJECT_BINARY_DIR}/uninstrumented/${name})
    set(env "LD_PRELOAD=\"${DGN_SANITIZER_RUNTIME}\${LD_PRELOAD:+:\$LD_PRELOAD}\"")
    if(DGN_SANITIZE STREQUAL "address")
        # Leaks of Debian's programs are not ours to report.
        string(APPEND env " ASAN_OPTIONS=\"\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0\"")
    endif()
    file(WRITE ${wrapper} "#!/bin/sh\n"
        "# Generated by cmake/sanitizers.cmake: ${program} with the ${DGN_SANITIZE} sanitizer runtime.\n"
        "${env} exec \"${program}\" \"\$@\"\n")
    file(CHMOD ${wrapper} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
        GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    set(${var} ${wrapper} PARENT_SCOPE)
endfunction()
