/* SPDX-License-Identifier: BSD-3-Clause */
#include "report.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void cpu_model(char *out, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];

    snprintf(out, size, "unknown");
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            snprintf(out, size, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            for (char *c = out; *c; c++)
                if (*c == ',')
                    *c = ' ';
            break;
        }
    }
    fclose(f);
}

/* The target as printed and written: ">=1.50", "<=1.00". */
static void target_text(char *out, size_t size, double target, int sense)
{
    snprintf(out, size, "%s%.2f", sense == BENCH_HIGHER ? ">=" : "<=", target);
}

/* Appends one row; value, baseline and ratio are already formatted (possibly empty). */
static void append_row(const char *csv_path, const char *name, const char *unit, const char *value,
                       const char *baseline, const char *ratio, double target, int sense,
                       const char *verdict)
{
    char host[64] = "?", cpu[128], date[32], tgt[32];
    time_t now = time(NULL);
    FILE *f;

    if (csv_path == NULL)
        return;
    target_text(tgt, sizeof(tgt), target, sense);
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    cpu_model(cpu, sizeof(cpu));
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", gmtime(&now));
    f = fopen(csv_path, "a");
    if (f == NULL) {
        perror(csv_path);
        return;
    }
    if (ftell(f) == 0)
        fprintf(f, "date,host,cpu,cores,benchmark,unit,value,baseline,ratio,target,verdict\n");
    fprintf(f, "%s,%s,%s,%ld,%s,%s,%s,%s,%s,%s,%s\n", date, host, cpu,
            sysconf(_SC_NPROCESSORS_ONLN), name, unit, value, baseline, ratio, tgt, verdict);
    fclose(f);
}

int bench_report(const char *csv_path, const char *name, const char *unit, double value,
                 double baseline, double target, int sense)
{
    double ratio = baseline > 0 ? value / baseline : 0;
    int met = sense == BENCH_HIGHER ? ratio >= target : ratio <= target;
    char v[32], b[32], r[32], tgt[32];

    target_text(tgt, sizeof(tgt), target, sense);
    printf("%s: %.3f %s vs baseline %.3f %s: ratio %.2f (target %s): %s\n", name, value, unit,
           baseline, unit, ratio, tgt, met ? "met" : "NOT met");
    fflush(stdout);
    snprintf(v, sizeof(v), "%.4f", value);
    snprintf(b, sizeof(b), "%.4f", baseline);
    snprintf(r, sizeof(r), "%.3f", ratio);
    append_row(csv_path, name, unit, v, b, r, target, sense, met ? "met" : "not met");
    return met ? 0 : 1;
}

int bench_report_failed(const char *csv_path, const char *name, const char *unit, double baseline,
                        double target, int sense, const char *reason)
{
    char b[32] = "", verdict[192], tgt[32];

    target_text(tgt, sizeof(tgt), target, sense);
    printf("%s: FAILED: %s (baseline %.3f %s, target %s)\n", name, reason, baseline, unit, tgt);
    fflush(stdout);
    if (baseline > 0)
        snprintf(b, sizeof(b), "%.4f", baseline);
    snprintf(verdict, sizeof(verdict), "failed: %s", reason);
    for (char *c = verdict; *c; c++)
        if (*c == ',' || *c == '\n')
            *c = ';';
    append_row(csv_path, name, unit, "", b, "", target, sense, verdict);
    return 1;
}

void bench_metric_keep(struct bench_metric *m, double value, double baseline)
{
    int hib = m->sense == BENCH_HIGHER;

    if (value > 0 && (m->value <= 0 || (hib ? value > m->value : value < m->value)))
        m->value = value;
    if (baseline > 0 &&
        (m->baseline <= 0 || (hib ? baseline > m->baseline : baseline < m->baseline)))
        m->baseline = baseline;
}

int bench_metric_report(const char *csv_path, struct bench_metric *m, const char *reason)
{
    char why[160];

    m->reported = 1;
    if (m->failed_runs > 0 && m->value > 0 && m->baseline > 0) {
        snprintf(why, sizeof(why), "%d run(s) failed; the others' best %.3f %s vs %.3f %s",
                 m->failed_runs, m->value, m->unit, m->baseline, m->unit);
        reason = why;
    } else if (m->value > 0 && m->baseline <= 0) {
        reason = "every baseline run failed";
    }
    if (m->failed_runs > 0 || m->value <= 0 || m->baseline <= 0)
        return bench_report_failed(csv_path, m->name, m->unit, m->baseline, m->target, m->sense,
                                   reason);
    return bench_report(csv_path, m->name, m->unit, m->value, m->baseline, m->target, m->sense);
}
