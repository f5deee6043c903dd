/* SPDX-License-Identifier: BSD-3-Clause */
#include "ex_verbs.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doca_verbs.h"
#include "ex_data_direct.h"
#include "ex_gpu.h"

#define EX_ATTR(x) DOCA_VERBS_QP_ATTR_##x

/* ---- Device and GPU ------------------------------------------------------------------------- */

static int ex_open_gpu(struct ex_ctx *c, const struct ex_args *a)
{
    char first[32] = "";
    char why[160] = "";
    doca_error_t err;

    if (!ex_gpu_built()) {
        EX_ERR("this build of the examples has no CUDA: run with --exec cpu");
        return -1;
    }
    if (ex_gpu_count(first, sizeof(first), why, sizeof(why)) == 0) {
        EX_ERR("no CUDA device can be used (%s): run with --exec cpu", why);
        return -1;
    }
    snprintf(c->gpu_bus_id, sizeof(c->gpu_bus_id), "%s", a->gpu_bus_id ? a->gpu_bus_id : first);
    if (a->gpu_bus_id == NULL)
        EX_INFO("no -g given: using the first GPU, %s", c->gpu_bus_id);
    if (ex_gpu_select(c->gpu_bus_id) != 0)
        return -1;
    err = doca_gpu_create(c->gpu_bus_id, &c->gpu);
    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_gpu_create(%s): %s (%s)", c->gpu_bus_id, doca_error_get_descr(err),
               doca_error_get_name(err));
        c->gpu = NULL;
        return -1;
    }
    return 0;
}

int ex_ctx_open(struct ex_ctx *c, const struct ex_args *a)
{
    int n = 0;

    memset(c, 0, sizeof(*c));
    c->args = a;
    c->dev_list = ibv_get_device_list(&n);
    if (c->dev_list == NULL || n == 0) {
        EX_ERR("no RDMA device found (%s); on a machine without a NIC run under softmlx5: "
               "build/bin/softmlx5-run -- <example> ...",
               c->dev_list == NULL ? strerror(errno) : "the list is empty");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (a->dev_name == NULL || strcmp(ibv_get_device_name(c->dev_list[i]), a->dev_name) == 0) {
            c->ibctx = ibv_open_device(c->dev_list[i]);
            c->dev_name = ibv_get_device_name(c->dev_list[i]);
            break;
        }
    }
    if (c->dev_name == NULL) {
        char names[256] = "";
        size_t used = 0;

        for (int i = 0; i < n && used < sizeof(names); i++)
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
                                     ibv_get_device_name(c->dev_list[i]));
        EX_ERR("-d %s: no such RDMA device (present: %s)", a->dev_name, names);
        return -1;
    }
    if (c->ibctx == NULL) {
        EX_ERR("cannot open RDMA device %s: %s", c->dev_name, strerror(errno));
        return -1;
    }
    c->pd = ibv_alloc_pd(c->ibctx);
    if (c->pd == NULL) {
        EX_ERR("cannot allocate a protection domain on %s: %s", c->dev_name, strerror(errno));
        return -1;
    }
    if (ibv_query_port(c->ibctx, EX_PORT_NUM, &c->port) != 0) {
        EX_ERR("cannot query port %d of %s: %s", EX_PORT_NUM, c->dev_name, strerror(errno));
        return -1;
    }
    if (a->gid_index >= c->port.gid_tbl_len) {
        EX_ERR("-l %u: port %d of %s has GID indexes 0..%d", a->gid_index, EX_PORT_NUM, c->dev_name,
               c->port.gid_tbl_len - 1);
        return -1;
    }
    if (c->port.state != IBV_PORT_ACTIVE)
        EX_WARN("port %d of %s is not active (state %d)", EX_PORT_NUM, c->dev_name,
                (int)c->port.state);
    EX_INFO("RDMA device %s port %d (%s)", c->dev_name, EX_PORT_NUM,
            c->port.link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" : "Ethernet");
    if (a->data_direct && a->exec == EX_EXEC_CPU) {
        EX_ERR("-z 1 registers GPU buffers through the NIC's Data Direct device, and --exec cpu "
               "has none: drop -z 1 or run on the GPU");
        return -1;
    }
    if (a->data_direct && ex_dd_check(c->ibctx, c->dev_name) != 0)
        return -1;
    if (a->exec == EX_EXEC_GPU)
        return ex_open_gpu(c, a);
    EX_INFO("CPU execution: the data path runs in CPU threads, all memory is host memory");
    return 0;
}

/* ---- CPU proxy ------------------------------------------------------------------------------ */

/* Rings the doorbells the data path published until told to stop. */
static void *ex_proxy_main(void *arg)
{
    struct ex_ctx *c = arg;

    while (!__atomic_load_n(&c->proxy_stop, __ATOMIC_ACQUIRE)) {
        bool progressed = false;
        doca_error_t err = doca_gpu_verbs_cpu_proxy_progress(c->gqp, &progressed);

        if (err != DOCA_SUCCESS) {
            EX_ERR("doca_gpu_verbs_cpu_proxy_progress: %s", doca_error_get_descr(err));
            break;
        }
        if (!progressed)
            sched_yield();
    }
    return NULL;
}

/*
 * CPU_PROXY (asked for, or what AUTO became) and an emulated doorbell record
 * (-r 2) need a thread of ours;
 * CPU_PROXY_FREE_FLOW is run by the library.
 */
static int ex_proxy_start(struct ex_ctx *c)
{
    uint8_t enabled = 0;
    int rc;

    if (doca_gpu_verbs_cpu_proxy_enabled(c->gqp, &enabled) != DOCA_SUCCESS)
        return -1;
    if (!enabled || c->handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_CPU_PROXY_FREE_FLOW)
        return 0;
    rc = pthread_create(&c->proxy, NULL, ex_proxy_main, c);
    if (rc != 0) {
        EX_ERR("cannot start the CPU proxy thread: %s", strerror(rc));
        return -1;
    }
    c->proxy_running = true;
    if (c->handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR)
        EX_INFO("CPU proxy thread started: the data path rings the doorbell, the thread writes "
                "the emulated doorbell record");
    else
        EX_INFO("CPU proxy thread started: it rings the doorbells the data path publishes");
    return 0;
}

static void ex_proxy_stop(struct ex_ctx *c)
{
    if (!c->proxy_running)
        return;
    __atomic_store_n(&c->proxy_stop, 1, __ATOMIC_RELEASE);
    pthread_join(c->proxy, NULL);
    c->proxy_running = false;
}

/* ---- QP ------------------------------------------------------------------------------------- */

/* Takes the export of c's QP: its descriptor and the handler it resolved to. */
static int ex_ctx_exported(struct ex_ctx *c, struct doca_gpu_verbs_qp *gqp)
{
    doca_error_t err = doca_gpu_verbs_get_qp_dev(gqp, &c->qp_dev);

    c->gqp = gqp;
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_get_nic_handler(gqp, &c->handler);
    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_gpu_verbs_get_qp_dev / get_nic_handler: %s", doca_error_get_descr(err));
        return -1;
    }
    if (c->args->nic_handler == DOCA_GPUNETIO_VERBS_NIC_HANDLER_AUTO)
        EX_INFO("NIC handler AUTO resolved to %s", gdaki_nic_handler_name(c->handler));
    return 0;
}

/* The QP of ex_ctx_create_qp, with rq_wqes receive WQEs (0: none); no proxy thread yet. */
static int ex_ctx_make_qp(struct ex_ctx *c, uint16_t sq_wqes, bool cq_collapsed, uint16_t rq_wqes)
{
    enum doca_gpu_dev_verbs_nic_handler h = c->args->nic_handler;
    struct doca_gpu_verbs_qp_init_attr_hl attr = {
            .gpu_dev = c->gpu,
            .ibpd = c->pd,
            .sq_nwqe = sq_wqes,
            .nic_handler = h,
            .mreg_type = DOCA_GPUNETIO_VERBS_MEM_REG_TYPE_DEFAULT,
            /*
             * GPU_SM_NO_DBR rings without a doorbell record: the QP is made without one
             * (the NIC's mode), or with one a CPU thread updates (-r 2, emulated).
             */
            .send_dbr_mode_ext = h != DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR
                                         ? DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR
                                 : c->args->dbr_mode == 2
                                         ? DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_SW_EMULATED
                                         : DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_NO_DBR_HW,
            .cq_collapsed = cq_collapsed,
            .rq_nwqe = rq_wqes,
    };
    doca_error_t err = doca_gpu_verbs_create_qp_hl(&attr, &c->hl);

    if (err != DOCA_SUCCESS) {
        c->hl = NULL;
        EX_ERR("doca_gpu_verbs_create_qp_hl (NIC handler %s, %s): %s (%s)",
               gdaki_nic_handler_name(h), c->gpu != NULL ? c->gpu_bus_id : "CPU execution",
               doca_error_get_descr(err), doca_error_get_name(err));
        if (h == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR && c->args->dbr_mode == 2)
            EX_ERR("-r 2 (the emulated no-DBR mode) needs a NIC with doorbell records (with "
                   "SOFTMLX5_NO_DBR=1 softmlx5 has none: use -r 1)");
        else if (h == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_NO_DBR)
            EX_ERR("NIC handler 10 (GPU SM no DBR) needs a NIC whose send queues work without a "
                   "doorbell record (ConnectX-8; softmlx5 with SOFTMLX5_NO_DBR=1)");
        else if (h == DOCA_GPUNETIO_VERBS_NIC_HANDLER_GPU_SM_BF)
            EX_ERR("NIC handler 6 (GPU SM BlueFlame) needs a BlueFlame UAR the data path can "
                   "write");
        return -1;
    }
    c->vdev = c->hl->dev;
    c->qp = c->hl->qp;
    if (ex_ctx_exported(c, c->hl->qp_gverbs) != 0)
        return -1;
    EX_INFO("QP created: %d send WQEs, NIC handler %s, %s", sq_wqes,
            gdaki_nic_handler_name(c->handler),
            c->gpu != NULL ? "rings in GPU memory" : "rings in host memory");
    if (rq_wqes != 0)
        EX_INFO("the QP has %d receive WQEs for writes with immediate", rq_wqes);
    return 0;
}

int ex_ctx_create_qp(struct ex_ctx *c, uint16_t sq_wqes, bool cq_collapsed)
{
    if (ex_ctx_make_qp(c, sq_wqes, cq_collapsed, 0) != 0)
        return -1;
    return ex_proxy_start(c);
}

int ex_ctx_create_qp_rq(struct ex_ctx *c, uint16_t sq_wqes, bool cq_collapsed, uint16_t rq_wqes)
{
    return ex_ctx_make_qp(c, sq_wqes, cq_collapsed, rq_wqes);
}

/* ---- The two-sided QP ---------------------------------------------------------------------- */

struct ex_ll_qp {
    doca_dev_t *dev;
    doca_verbs_cq_t *scq, *rcq;
    doca_verbs_qp_t *qp;
    struct doca_gpu_verbs_qp *gqp;
};

/* A CQ of entries in host memory that the NIC may overrun (the data path polls by index). */
static doca_verbs_cq_t *ex_ll_cq(doca_dev_t *dev, uint32_t entries)
{
    doca_verbs_cq_attr_t *attr = NULL;
    doca_verbs_cq_t *cq = NULL;

    if (doca_verbs_cq_attr_create(&attr) != DOCA_SUCCESS)
        return NULL;
    doca_verbs_cq_attr_set_cq_size(attr, entries);
    doca_verbs_cq_attr_set_cq_overrun(attr, DOCA_VERBS_CQ_ENABLE_OVERRUN);
    if (doca_verbs_cq_create(dev, attr, &cq) != DOCA_SUCCESS)
        cq = NULL;
    doca_verbs_cq_attr_destroy(attr);
    return cq;
}

/* Frees what ex_ctx_create_qp_twosided made, in any state of completion. */
static void ex_ll_free(struct ex_ctx *c, struct ex_ll_qp *l)
{
    if (l->gqp != NULL)
        doca_gpu_verbs_unexport_qp(c->gpu, l->gqp);
    if (l->qp != NULL)
        doca_verbs_qp_destroy(l->qp);
    if (l->scq != NULL)
        doca_verbs_cq_destroy(l->scq);
    if (l->rcq != NULL)
        doca_verbs_cq_destroy(l->rcq);
    if (l->dev != NULL)
        doca_verbs_dev_close(l->dev);
    free(l);
}

int ex_ctx_create_qp_twosided(struct ex_ctx *c, uint16_t sq_wqes, uint16_t rq_wqes)
{
    doca_verbs_qp_init_attr_t *attr = NULL;
    struct ex_ll_qp *l = calloc(1, sizeof(*l));
    doca_error_t err = l == NULL ? DOCA_ERROR_NO_MEMORY : doca_verbs_dev_open(c->pd, &l->dev);

    c->ll = l;
    if (err == DOCA_SUCCESS) {
        l->scq = ex_ll_cq(l->dev, sq_wqes);
        l->rcq = ex_ll_cq(l->dev, rq_wqes);
        err = l->scq == NULL || l->rcq == NULL ? DOCA_ERROR_DRIVER
                                               : doca_verbs_qp_init_attr_create(&attr);
    }
    if (err == DOCA_SUCCESS) {
        doca_verbs_qp_init_attr_set_pd(attr, l->dev);
        doca_verbs_qp_init_attr_set_send_cq(attr, l->scq);
        doca_verbs_qp_init_attr_set_receive_cq(attr, l->rcq);
        doca_verbs_qp_init_attr_set_sq_wr(attr, sq_wqes);
        doca_verbs_qp_init_attr_set_rq_wr(attr, rq_wqes);
        doca_verbs_qp_init_attr_set_send_max_sges(attr, 1);
        doca_verbs_qp_init_attr_set_receive_max_sges(attr, 1);
        err = doca_verbs_qp_create(l->dev, attr, &l->qp);
        doca_verbs_qp_init_attr_destroy(attr);
    }
    if (err == DOCA_SUCCESS)
        err = doca_gpu_verbs_export_qp(c->gpu, l->qp, c->args->nic_handler, NULL, l->scq, l->rcq,
                                       NULL, DOCA_GPUNETIO_VERBS_SEND_DBR_MODE_EXT_VALID_DBR,
                                       DOCA_GPUNETIO_VERBS_CQ_UNKNOWN, false, &l->gqp);
    if (err != DOCA_SUCCESS) {
        EX_ERR("cannot make the two-sided QP (%u send, %u receive WQEs, NIC handler %s): %s (%s)",
               sq_wqes, rq_wqes, gdaki_nic_handler_name(c->args->nic_handler),
               doca_error_get_descr(err), doca_error_get_name(err));
        return -1;
    }
    c->vdev = l->dev;
    c->qp = l->qp;
    if (ex_ctx_exported(c, l->gqp) != 0)
        return -1;
    EX_INFO("QP created: %d send and %d receive WQEs, NIC handler %s, rings in host memory%s",
            sq_wqes, rq_wqes, gdaki_nic_handler_name(c->handler),
            c->gpu != NULL ? " mapped for the GPU" : "");
    return ex_proxy_start(c);
}

int ex_ctx_qp_info(struct ex_ctx *c, struct ex_qp_info *info)
{
    union ibv_gid gid;
    doca_error_t err = doca_verbs_qp_get_qpn(c->qp, &info->qpn);

    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_verbs_qp_get_qpn: %s", doca_error_get_descr(err));
        return -1;
    }
    if (ibv_query_gid(c->ibctx, EX_PORT_NUM, c->args->gid_index, &gid) != 0) {
        EX_ERR("cannot read GID index %u of %s port %d (-l): %s", c->args->gid_index, c->dev_name,
               EX_PORT_NUM, strerror(errno));
        return -1;
    }
    memcpy(info->gid, gid.raw, sizeof(info->gid));
    info->lid = c->port.lid;
    return 0;
}

/* An IPv4-mapped GID (::ffff:a.b.c.d) is RoCE v2 over IPv4. */
static bool ex_gid_is_ipv4(const uint8_t *gid)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

/* One modify; logs the transition that failed. */
static int ex_modify(struct ex_ctx *c, doca_verbs_qp_attr_t *attr, int mask, const char *what)
{
    doca_error_t err = doca_verbs_qp_modify(c->qp, attr, mask);

    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_verbs_qp_modify %s: %s (%s)", what, doca_error_get_descr(err),
               doca_error_get_name(err));
        return -1;
    }
    return 0;
}

int ex_ctx_connect(struct ex_ctx *c, const struct ex_qp_info *peer)
{
    doca_verbs_qp_attr_t *attr = NULL;
    doca_verbs_ah_attr_t *ah = NULL;
    struct doca_verbs_gid gid;
    bool ib = c->port.link_layer == IBV_LINK_LAYER_INFINIBAND;
    /* ibv_mtu counts 256 B as 1, DOCA Verbs as 0; at most 4 KiB. */
    int mtu = (int)c->port.active_mtu - 1;
    int rc = -1;

    if (mtu < DOCA_VERBS_MTU_SIZE_256_BYTES || mtu > DOCA_VERBS_MTU_SIZE_4K_BYTES)
        mtu = DOCA_VERBS_MTU_SIZE_1K_BYTES;
    if (doca_verbs_qp_attr_create(&attr) != DOCA_SUCCESS ||
        doca_verbs_ah_attr_create(c->vdev, &ah) != DOCA_SUCCESS) {
        EX_ERR("cannot make the QP and address attributes");
        goto out;
    }

    doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_INIT);
    doca_verbs_qp_attr_set_pkey_index(attr, 0);
    doca_verbs_qp_attr_set_port_num(attr, EX_PORT_NUM);
    doca_verbs_qp_attr_set_allow_remote_write(attr, 1);
    doca_verbs_qp_attr_set_allow_remote_read(attr, 1);
    doca_verbs_qp_attr_set_atomic_mode(attr, DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC);
    if (ex_modify(c, attr,
                  EX_ATTR(NEXT_STATE) | EX_ATTR(PKEY_INDEX) | EX_ATTR(PORT_NUM) |
                          EX_ATTR(ALLOW_REMOTE_WRITE) | EX_ATTR(ALLOW_REMOTE_READ) |
                          EX_ATTR(ATOMIC_MODE),
                  "RST->INIT") != 0)
        goto out;

    memcpy(gid.raw, peer->gid, sizeof(gid.raw));
    doca_verbs_ah_attr_set_gid(ah, gid);
    doca_verbs_ah_attr_set_sgid_index(ah, c->args->gid_index);
    doca_verbs_ah_attr_set_hop_limit(ah, 255);
    doca_verbs_ah_attr_set_sl(ah, 0);
    if (ib) {
        doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IB_NO_GRH);
        doca_verbs_ah_attr_set_dlid(ah, peer->lid);
    } else {
        doca_verbs_ah_attr_set_addr_type(ah, ex_gid_is_ipv4(peer->gid) ? DOCA_VERBS_ADDR_TYPE_IPv4
                                                                       : DOCA_VERBS_ADDR_TYPE_IPv6);
    }
    doca_verbs_qp_attr_set_ah_attr(attr, ah);
    doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTR);
    doca_verbs_qp_attr_set_rq_psn(attr, 0);
    doca_verbs_qp_attr_set_dest_qp_num(attr, peer->qpn);
    doca_verbs_qp_attr_set_path_mtu(attr, (enum doca_verbs_mtu_size)mtu);
    doca_verbs_qp_attr_set_min_rnr_timer(attr, 1);
    doca_verbs_qp_attr_set_max_dest_rd_atomic(attr, 4);
    if (ex_modify(c, attr,
                  EX_ATTR(NEXT_STATE) | EX_ATTR(RQ_PSN) | EX_ATTR(DEST_QP_NUM) | EX_ATTR(PATH_MTU) |
                          EX_ATTR(AH_ATTR) | EX_ATTR(MIN_RNR_TIMER) | EX_ATTR(MAX_DEST_RD_ATOMIC),
                  "INIT->RTR") != 0)
        goto out;

    doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTS);
    doca_verbs_qp_attr_set_sq_psn(attr, 0);
    doca_verbs_qp_attr_set_ack_timeout(attr, 14);
    doca_verbs_qp_attr_set_retry_cnt(attr, 7);
    doca_verbs_qp_attr_set_rnr_retry(attr, 7);
    doca_verbs_qp_attr_set_max_rd_atomic(attr, 4);
    if (ex_modify(c, attr,
                  EX_ATTR(NEXT_STATE) | EX_ATTR(SQ_PSN) | EX_ATTR(ACK_TIMEOUT) |
                          EX_ATTR(RETRY_CNT) | EX_ATTR(RNR_RETRY) | EX_ATTR(MAX_QP_RD_ATOMIC),
                  "RTR->RTS") != 0)
        goto out;
    EX_INFO("QP has been successfully connected and ready to use (remote QP 0x%x)", peer->qpn);
    rc = 0;
out:
    if (ah != NULL)
        doca_verbs_ah_attr_destroy(ah);
    if (attr != NULL)
        doca_verbs_qp_attr_destroy(attr);
    return rc;
}

int ex_ctx_report_qp_error(struct ex_ctx *c)
{
    struct doca_gpu_verbs_qp_error_info info;

    memset(&info, 0, sizeof(info));
    if (doca_gpu_verbs_query_last_error(c->gqp, &info) != DOCA_SUCCESS)
        return 0;
    if (!info.has_error)
        return 0;
    EX_ERR("the QP met an error completion: syndrome 0x%x (vendor 0x%x) on WQE %d", info.syndrome,
           info.vendor_err_synd, info.wqe_counter);
    return 1;
}

void ex_ctx_close(struct ex_ctx *c)
{
    ex_proxy_stop(c);
    if (c->hl != NULL)
        doca_gpu_verbs_destroy_qp_hl(c->hl);
    if (c->ll != NULL)
        ex_ll_free(c, c->ll);
    if (c->gpu != NULL)
        doca_gpu_destroy(c->gpu);
    if (c->pd != NULL)
        ibv_dealloc_pd(c->pd);
    if (c->ibctx != NULL)
        ibv_close_device(c->ibctx);
    if (c->dev_list != NULL)
        ibv_free_device_list(c->dev_list);
    memset(c, 0, sizeof(*c));
}

/* ---- Buffers -------------------------------------------------------------------------------- */

static size_t ex_round_up(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

/* GPU memory: dma-buf registration where the GPU and driver offer it, else plain (peermem). */
static int ex_buf_gpu(struct ex_ctx *c, int access, struct ex_buf *b)
{
    int fd = -1;
    doca_error_t err;

    b->alloc_len = ex_round_up(b->len, DOCA_GPUNETIO_VERBS_PAGE_SIZE);
    err = doca_gpu_mem_alloc(c->gpu, b->alloc_len, DOCA_GPUNETIO_VERBS_PAGE_SIZE,
                             DOCA_GPU_MEM_TYPE_GPU, &b->addr, NULL);
    if (err != DOCA_SUCCESS) {
        EX_ERR("doca_gpu_mem_alloc of %zu bytes: %s", b->alloc_len, doca_error_get_descr(err));
        b->addr = NULL;
        return -1;
    }
    if (ex_gpu_memset(b->addr, 0, b->alloc_len) != 0)
        return -1;
    if (c->args->data_direct) {
        b->mr = ex_dd_reg(c->pd, b->addr, b->alloc_len, access);
        return b->mr != NULL ? 0 : -1;
    }
    if (doca_gpu_dmabuf_fd(c->gpu, b->addr, b->alloc_len, &fd) == DOCA_SUCCESS) {
        b->mr = ibv_reg_dmabuf_mr(c->pd, 0, b->alloc_len, (uint64_t)(uintptr_t)b->addr, fd, access);
        if (b->mr == NULL)
            EX_INFO("ibv_reg_dmabuf_mr: %s; registering the GPU buffer plainly", strerror(errno));
        close(fd);
    }
    if (b->mr == NULL)
        b->mr = ibv_reg_mr(c->pd, b->addr, b->alloc_len, access);
    if (b->mr == NULL) {
        EX_ERR("cannot register %zu bytes of GPU memory: %s", b->alloc_len, strerror(errno));
        return -1;
    }
    return 0;
}

int ex_buf_create(struct ex_ctx *c, size_t len, int access, struct ex_buf *b)
{
    memset(b, 0, sizeof(*b));
    b->len = len;
    b->gpu = c->gpu != NULL;
    if (b->gpu) {
        if (ex_buf_gpu(c, access, b) == 0)
            return 0;
        ex_buf_destroy(c, b);
        return -1;
    }
    b->alloc_len = ex_round_up(len, 4096);
    b->addr = aligned_alloc(4096, b->alloc_len);
    if (b->addr == NULL) {
        EX_ERR("out of memory for a %zu-byte buffer", b->alloc_len);
        return -1;
    }
    memset(b->addr, 0, b->alloc_len);
    b->mr = ibv_reg_mr(c->pd, b->addr, b->alloc_len, access);
    if (b->mr == NULL) {
        EX_ERR("cannot register %zu bytes of host memory: %s", b->alloc_len, strerror(errno));
        ex_buf_destroy(c, b);
        return -1;
    }
    return 0;
}

void ex_buf_destroy(struct ex_ctx *c, struct ex_buf *b)
{
    if (b->mr != NULL)
        ibv_dereg_mr(b->mr);
    if (b->addr != NULL) {
        if (b->gpu)
            doca_gpu_mem_free(c->gpu, b->addr);
        else
            free(b->addr);
    }
    memset(b, 0, sizeof(*b));
}

struct ex_remote_buf ex_buf_remote(const struct ex_buf *b)
{
    struct ex_remote_buf r = {
            .addr = (uint64_t)(uintptr_t)b->addr,
            .len = b->len,
            .rkey = b->mr->rkey,
    };

    return r;
}
