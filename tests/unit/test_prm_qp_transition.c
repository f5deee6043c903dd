/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PRM QP state machine (prm_qp_transition.h): every (from, to) pair of
 * states against the PRM's transition commands, the command-to-transition
 * lookup, state names and the list refusal messages print.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prm/prm_cmd.h"
#include "prm/prm_qp.h"
#include "prm/prm_qp_transition.h"

static const uint8_t states[] = {PRM_QP_STATE_RST, PRM_QP_STATE_INIT,     PRM_QP_STATE_RTR,
                                 PRM_QP_STATE_RTS, PRM_QP_STATE_SQER,     PRM_QP_STATE_ERR,
                                 PRM_QP_STATE_SQD, PRM_QP_STATE_SUSPENDED};

/* The PRM's commands, written out from its transition list (0: no transition). */
static uint16_t expected_opcode(uint8_t from, uint8_t to)
{
    if (to == PRM_QP_STATE_RST)
        return PRM_CMD_2RST_QP;
    if (to == PRM_QP_STATE_ERR)
        return PRM_CMD_2ERR_QP;
    if (from == PRM_QP_STATE_RST && to == PRM_QP_STATE_INIT)
        return PRM_CMD_RST2INIT_QP;
    if (from == PRM_QP_STATE_INIT && to == PRM_QP_STATE_INIT)
        return PRM_CMD_INIT2INIT_QP;
    if (from == PRM_QP_STATE_INIT && to == PRM_QP_STATE_RTR)
        return PRM_CMD_INIT2RTR_QP;
    if (from == PRM_QP_STATE_RTR && to == PRM_QP_STATE_RTS)
        return PRM_CMD_RTR2RTS_QP;
    if (from == PRM_QP_STATE_RTS && to == PRM_QP_STATE_RTS)
        return PRM_CMD_RTS2RTS_QP;
    if (from == PRM_QP_STATE_SQER && to == PRM_QP_STATE_RTS)
        return PRM_CMD_SQERR2RTS_QP;
    return 0;
}

static void test_every_pair(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(states); i++) {
        for (size_t j = 0; j < sizeof(states); j++) {
            const struct prm_qp_transition *t = prm_qp_transition_find(states[i], states[j]);
            uint16_t op = expected_opcode(states[i], states[j]);

            if (op == 0) {
                assert_null(t);
                continue;
            }
            assert_non_null(t);
            assert_int_equal(t->opcode, op);
            assert_int_equal(t->to, states[j]);
            assert_true(t->from == states[i] || t->from == PRM_QP_STATE_ANY);
        }
    }
}

static void test_error_recovery(void **state)
{
    (void)state;
    /* After an error completion: back to RST, or ERR again, is legal; nothing else. */
    assert_int_equal(prm_qp_transition_find(PRM_QP_STATE_ERR, PRM_QP_STATE_RST)->opcode,
                     PRM_CMD_2RST_QP);
    assert_int_equal(prm_qp_transition_find(PRM_QP_STATE_ERR, PRM_QP_STATE_ERR)->opcode,
                     PRM_CMD_2ERR_QP);
    assert_null(prm_qp_transition_find(PRM_QP_STATE_ERR, PRM_QP_STATE_RTS));
    assert_null(prm_qp_transition_find(PRM_QP_STATE_ERR, PRM_QP_STATE_INIT));
    /* Nothing enters SQD on mlx5. */
    assert_null(prm_qp_transition_find(PRM_QP_STATE_RTS, PRM_QP_STATE_SQD));
}

static void test_not_states(void **state)
{
    (void)state;
    assert_null(prm_qp_transition_find(5, PRM_QP_STATE_RST));
    assert_null(prm_qp_transition_find(PRM_QP_STATE_ANY, PRM_QP_STATE_ERR));
    assert_null(prm_qp_transition_find(PRM_QP_STATE_RTS, 0x0f));
    assert_null(prm_qp_transition_find(PRM_QP_STATE_RST, PRM_QP_STATE_ANY));
}

static void test_of_cmd(void **state)
{
    static const struct {
        uint16_t opcode;
        uint16_t inlen, outlen;
        bool has_qpc;
    } cmds[] = {
            {PRM_CMD_RST2INIT_QP, PRM_RST2INIT_QP_IN_SIZE, PRM_RST2INIT_QP_OUT_SIZE, true},
            {PRM_CMD_INIT2INIT_QP, PRM_INIT2INIT_QP_IN_SIZE, PRM_INIT2INIT_QP_OUT_SIZE, true},
            {PRM_CMD_INIT2RTR_QP, PRM_INIT2RTR_QP_IN_SIZE, PRM_INIT2RTR_QP_OUT_SIZE, true},
            {PRM_CMD_RTR2RTS_QP, PRM_RTR2RTS_QP_IN_SIZE, PRM_RTR2RTS_QP_OUT_SIZE, true},
            {PRM_CMD_RTS2RTS_QP, PRM_RTS2RTS_QP_IN_SIZE, PRM_RTS2RTS_QP_OUT_SIZE, true},
            {PRM_CMD_SQERR2RTS_QP, PRM_SQERR2RTS_QP_IN_SIZE, PRM_SQERR2RTS_QP_OUT_SIZE, true},
            {PRM_CMD_2ERR_QP, PRM_2ERR_QP_IN_SIZE, PRM_2ERR_QP_OUT_SIZE, false},
            {PRM_CMD_2RST_QP, PRM_2RST_QP_IN_SIZE, PRM_2RST_QP_OUT_SIZE, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        const struct prm_qp_transition *t = prm_qp_transition_of_cmd(cmds[i].opcode);

        assert_non_null(t);
        assert_int_equal(t->opcode, cmds[i].opcode);
        assert_int_equal(t->inlen, cmds[i].inlen);
        assert_int_equal(t->outlen, cmds[i].outlen);
        assert_int_equal(t->has_qpc, cmds[i].has_qpc);
        /* The same entry as the (from, to) lookup gives. */
        if (t->from != PRM_QP_STATE_ANY)
            assert_ptr_equal(prm_qp_transition_find(t->from, t->to), t);
    }
    assert_null(prm_qp_transition_of_cmd(PRM_CMD_CREATE_QP));
    assert_null(prm_qp_transition_of_cmd(PRM_CMD_QUERY_QP));
    assert_null(prm_qp_transition_of_cmd(PRM_CMD_SQD_RTS_QP));
}

static void test_names_and_list(void **state)
{
    char buf[256], small[12];

    (void)state;
    assert_string_equal(prm_qp_state_name(PRM_QP_STATE_RST), "RST");
    assert_string_equal(prm_qp_state_name(PRM_QP_STATE_SQER), "SQER");
    assert_string_equal(prm_qp_state_name(PRM_QP_STATE_ERR), "ERR");
    assert_string_equal(prm_qp_state_name(PRM_QP_STATE_ANY), "any");
    assert_string_equal(prm_qp_state_name(5), "?");
    assert_string_equal(prm_qp_transition_list(buf, sizeof(buf)),
                        "any->RST, any->ERR, RST->INIT, INIT->INIT, INIT->RTR, RTR->RTS, "
                        "RTS->RTS, SQER->RTS");
    /* Truncated, still terminated. */
    assert_int_equal(strlen(prm_qp_transition_list(small, sizeof(small))), sizeof(small) - 1);
    assert_ptr_equal(prm_qp_transition_list(small, 0), small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_every_pair),     cmocka_unit_test(test_error_recovery),
            cmocka_unit_test(test_not_states),     cmocka_unit_test(test_of_cmd),
            cmocka_unit_test(test_names_and_list),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
