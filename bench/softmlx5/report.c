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

int bench_report(const char *csv_path, const char *name, const char *unit, double value,
                 double baseline, double target, int higher_is_better)
{
    double ratio = baseline > 0 ? value / baseline : 0;
    int met = higher_is_better ? ratio >= target : ratio <= target;
    char host[64] = "?", cpu[128], date[32];
    time_t now = time(NULL);
    FILE *f;

    printf("%s: %.3f %s vs baseline %.3f %s: ratio %.2f (target %s %.2f): %s\n", name, value, unit,
           baseline, unit, ratio, higher_is_better ? ">=" : "<=", target, met ? "met" : "NOT met");
    if (csv_path == NULL)
        return met ? 0 : 1;
    gethostname(host, sizeof(host));
    cpu_model(cpu, sizeof(cpu));
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", gmtime(&now));
    f = fopen(csv_path, "a");
    if (f != NULL) {
        if (ftell(f) == 0)
            fprintf(f, "date,host,cpu,cores,benchmark,unit,value,baseline,ratio,target,verdict\n");
        fprintf(f, "%s,%s,%s,%ld,%s,%s,%.4f,%.4f,%.3f,%s%.2f,%s\n", date, host, cpu,
                sysconf(_SC_NPROCESSORS_ONLN), name, unit, value, baseline, ratio,
                higher_is_better ? ">=" : "<=", target, met ? "met" : "not met");
        fclose(f);
    }
    return met ? 0 : 1;
}
