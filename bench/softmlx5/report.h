/* SPDX-License-Identifier: BSD-3-Clause */
/* One result line: printed, and appended to a CSV file with the machine it ran on. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

/*
 * What a target asks of the ratio value/baseline (`sense` below):
 * BENCH_LOWER <= target, BENCH_HIGHER >= target.
 */
#define BENCH_LOWER  0
#define BENCH_HIGHER 1

/*
 * Prints "<name>: <value> <unit> vs <baseline> <unit> (ratio R, target T)" and
 * appends date, host, CPU, cores, name, unit, value, baseline, ratio, target,
 * verdict to csv_path (when not NULL). Returns 0 when the target is met.
 */
int bench_report(const char *csv_path, const char *name, const char *unit, double value,
                 double baseline, double target, int sense);

/*
 * A run that gave no figure (stalled, timed out, failed): prints it and
 * appends a row with an empty value and ratio, the baseline when known (> 0)
 * and the verdict "failed: <reason>" (commas in reason become ';'). Returns 1.
 */
int bench_report_failed(const char *csv_path, const char *name, const char *unit, double baseline,
                        double target, int sense, const char *reason);

/*
 * A metric measured as the best of several alternating runs: the program
 * keeps the best value and baseline so far in it (bench_metric_keep) and
 * reports it once (bench_metric_report); the watchdog reports the ones not
 * reported yet as failed.
 */
struct bench_metric {
    const char *name;
    const char *unit;
    double target;
    int sense;       /* BENCH_LOWER or BENCH_HIGHER */
    double value;    /* best so far, 0: none yet */
    double baseline; /* best so far, 0: none yet */
    int failed_runs; /* runs that gave no figure (an error, not noise): the metric fails */
    volatile int reported;
};

/* Keeps the better of each: a figure <= 0 is a failed (or not measured) run and is ignored. */
void bench_metric_keep(struct bench_metric *m, double value, double baseline);

/*
 * bench_report of the best figures; bench_report_failed(reason) when no
 * value was measured, or naming the failed runs (and the best of the
 * others) when some failed.
 */
int bench_metric_report(const char *csv_path, struct bench_metric *m, const char *reason);

#endif /* BENCH_REPORT_H */
