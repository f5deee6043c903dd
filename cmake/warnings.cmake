# SPDX-License-Identifier: BSD-3-Clause
# Warnings are errors for every target of the project.
add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra;-Werror;-Wshadow;-Wformat=2;-Wno-unused-parameter>"
    "$<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes;-Wmissing-prototypes>"
    "$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Wall,-Wextra,-Werror,-Wno-unused-parameter>")
# __FILE__ relative to the source root, so log lines read "[src/core/log.c]".
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>")
