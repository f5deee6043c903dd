/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_report for scripts (rc_pingpong_bench.sh), so that every row of
 * bench/results/softmlx5.csv is written by the same code:
 *
 *   softmlx5_report [--csv FILE] NAME UNIT higher|lower TARGET BASELINE VALUE
 *   softmlx5_report [--csv FILE] --failed REASON NAME UNIT higher|lower TARGET BASELINE
 *
 * higher: VALUE/BASELINE >= TARGET; lower: <= TARGET.
 *
 * Prints the result line; exits 0 when the target is met, 1 otherwise, 2 on bad arguments.
 * A BASELINE of 0 (or "-") is unknown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int usage(void)
{
    fprintf(stderr, "usage: softmlx5_report [--csv FILE] [--failed REASON] NAME UNIT "
                    "higher|lower TARGET BASELINE [VALUE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *csv = NULL, *failed = NULL;
    int i = 1, sense;

    while (i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-') {
        if (strcmp(argv[i], "--csv") == 0)
            csv = argv[i + 1];
        else if (strcmp(argv[i], "--failed") == 0)
            failed = argv[i + 1];
        else
            return usage();
        i += 2;
    }
    if (argc - i != (failed ? 5 : 6))
        return usage();
    if (strcmp(argv[i + 2], "higher") == 0)
        sense = BENCH_HIGHER;
    else if (strcmp(argv[i + 2], "lower") == 0)
        sense = BENCH_LOWER;
    else
        return usage();
    if (failed)
        return bench_report_failed(csv, argv[i], argv[i + 1], atof(argv[i + 4]), atof(argv[i + 3]),
                                   sense, failed);
    return bench_report(csv, argv[i], argv[i + 1], atof(argv[i + 5]), atof(argv[i + 4]),
                        atof(argv[i + 3]), sense);
}
