/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Removes the core's macros (gdaki_macros.h) and the shared parameter lists
 * (dgn_params.h) at the end of a public header.
 * No include guard: every public header includes it last.
 */
#undef GDAKI_INLINE
#undef GDAKI_TSAN
#undef GDAKI_STATIC_ASSERT
#undef DGN_RSM_PARAM
#undef DGN_NIC_PARAM
#undef DGN_SCOPE_PARAM
#undef DGN_CODE_OPT
#undef DGN_CQT_PARAM
