# SPDX-License-Identifier: BSD-3-Clause
# One MPS daemon for a whole test run. Without it the CUDA contexts of tests
# that run at once (ctest -j) take time slices of the GPU, and softmlx5's
# copies to and from one test's GPU memory wait for that test's slice: on the
# H200 machine ctest -L gpu -j 4 took 168 s, 123 s of it in tests that take
# 1 s under MPS. The fixture gpu_mps starts the daemon in DGN_GPU_MPS_DIR
# before the first gpu test and stops it after the last
# (tests/gpu_mps_fixture.sh; GPUNETIO_MPS=0: no daemon).
#
# Where no daemon runs, CUDA_MPS_PIPE_DIRECTORY names a folder without one and
# CUDA runs the tests without MPS. A test that kills a process while its
# kernel may run (an example's dead-peer test) must not share the daemon: MPS
# leaves the other clients of a killed client in an undefined state (an
# illegal-address error in two concurrent tests, seen on the H200 machine).
# Such a test sets the test property DGN_PRIVATE_MPS (run_pair.sh then
# starts a daemon of its own for it).
set(DGN_GPU_MPS_DIR ${PROJECT_BINARY_DIR}/gpu-mps)

function(dgn_gpu_mps_fixture probe)
    set(script ${PROJECT_SOURCE_DIR}/tests/gpu_mps_fixture.sh)
    add_test(NAME gpu_mps_start COMMAND bash ${script} start ${DGN_GPU_MPS_DIR} ${probe})
    add_test(NAME gpu_mps_stop COMMAND bash ${script} stop ${DGN_GPU_MPS_DIR})
    set_tests_properties(gpu_mps_start PROPERTIES FIXTURES_SETUP gpu_mps LABELS gpu TIMEOUT 60)
    set_tests_properties(gpu_mps_stop PROPERTIES FIXTURES_CLEANUP gpu_mps LABELS gpu TIMEOUT 60)
endfunction()

# Puts every test of the calling directory labelled gpu under the run's daemon. Call it last in
# each CMakeLists.txt that adds gpu tests (cmake_language(DEFER CALL dgn_gpu_mps_share) at its top).
function(dgn_gpu_mps_share)
    get_property(tests DIRECTORY PROPERTY TESTS)
    foreach(t IN LISTS tests)
        get_test_property(${t} LABELS labels)
        get_test_property(${t} DGN_PRIVATE_MPS private)
        if("gpu" IN_LIST labels AND NOT private AND NOT t MATCHES "^gpu_mps_")
            set_property(TEST ${t} APPEND PROPERTY FIXTURES_REQUIRED gpu_mps)
            set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
                CUDA_MPS_PIPE_DIRECTORY=${DGN_GPU_MPS_DIR}/pipe
                CUDA_MPS_LOG_DIRECTORY=${DGN_GPU_MPS_DIR}/log)
        endif()
    endforeach()
endfunction()
