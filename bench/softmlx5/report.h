/* SPDX-License-Identifier: BSD-3-Clause */
/* One result line: printed, and appended to a CSV file with the machine it ran on. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

/*
 * Prints "<name>: <value> <unit> vs <baseline> <unit> (ratio R, target T)" and
 * appends date, host, CPU, cores, name, unit, value, baseline, ratio, target,
 * verdict to csv_path (when not NULL). Returns 0 when the target is met.
 * higher_is_better: the ratio value/baseline must be >= target, else <= target.
 */
int bench_report(const char *csv_path, const char *name, const char *unit, double value,
                 double baseline, double target, int higher_is_better);

#endif /* BENCH_REPORT_H */
