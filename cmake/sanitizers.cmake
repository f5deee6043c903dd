# SPDX-License-Identifier: BSD-3-Clause
# DGN_SANITIZE=ON builds host code with ASan + UBSan; any report aborts the test that hit it.
if(DGN_SANITIZE)
    set(DGN_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${DGN_SANITIZER_FLAGS}>")
    add_link_options(${DGN_SANITIZER_FLAGS})
endif()
