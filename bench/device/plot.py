#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots a gdaki_sink_bench results file: one panel per operation, the five
cases on each, WQEs per second on a log scale; our rate, the bare baseline,
and for put DOCA GPUNetIO 2.0's number and the target. Writes SVG with the
standard library only.

    bench/device/plot.py RESULTS.csv [-o OUT.svg]
"""
import argparse
import csv
import math
import sys

OPS = ["put", "put_signal", "get"]
CASES = [1, 2, 3, 4, 5]
CASE_LABELS = ["1 thread", "CTA QP", "GPU QP", "QP/thread", "warp"]
PANEL_W, PANEL_H, MARGIN_L, MARGIN_T, MARGIN_B = 330, 300, 70, 60, 70
Y_MIN, Y_MAX = 1e5, 1e11  # WQE/s


def rate(row, key):
    """A rate column in WQE/s; DOCA and target columns of case 1 are in ns per op."""
    v = row.get(key, "")
    if v == "":
        return None
    v = float(v)
    return 1e9 / v if key in ("doca_2_0", "target") and row["case"] == "1" else v


def y_of(v):
    v = min(max(v, Y_MIN), Y_MAX)
    frac = (math.log10(v) - math.log10(Y_MIN)) / (math.log10(Y_MAX) - math.log10(Y_MIN))
    return MARGIN_T + PANEL_H * (1 - frac)


def panel(out, x0, op, rows):
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{MARGIN_T - 12}" text-anchor="middle" '
               f'font-size="15" font-weight="bold">{op}</text>')
    out.append(f'<rect x="{x0}" y="{MARGIN_T}" width="{PANEL_W}" height="{PANEL_H}" '
               'fill="none" stroke="#888"/>')
    for e in range(int(math.log10(Y_MIN)), int(math.log10(Y_MAX)) + 1):
        y = y_of(10 ** e)
        out.append(f'<line x1="{x0}" x2="{x0 + PANEL_W}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 5}" y="{y + 4}" text-anchor="end" font-size="11">'
                   f'{10 ** e / 1e6:g}M</text>')
    slot = PANEL_W / len(CASES)
    for i, case in enumerate(CASES):
        row = rows.get((op, str(case)))
        cx = x0 + slot * i + slot / 2
        out.append(f'<text x="{cx}" y="{MARGIN_T + PANEL_H + 16}" text-anchor="middle" '
                   f'font-size="11">{case}</text>')
        out.append(f'<text x="{cx}" y="{MARGIN_T + PANEL_H + 30}" text-anchor="middle" '
                   f'font-size="10">{CASE_LABELS[i]}</text>')
        if row is None:
            continue
        for j, (key, color) in enumerate((("wqe_per_s", "#1f77b4"), ("bare_wqe_per_s", "#aaa"))):
            v = rate(row, key)
            if v is None:
                continue
            bx = cx - 22 + j * 22
            y = y_of(v)
            out.append(f'<rect x="{bx}" y="{y}" width="20" height="{MARGIN_T + PANEL_H - y}" '
                       f'fill="{color}"><title>{key}: {v / 1e6:.1f} M WQE/s</title></rect>')
        for key, color, dash in (("doca_2_0", "#d62728", ""), ("target", "#2ca02c", "4,3")):
            v = rate(row, key)
            if v is None:
                continue
            y = y_of(v)
            out.append(f'<line x1="{cx - 26}" x2="{cx + 26}" y1="{y}" y2="{y}" stroke="{color}" '
                       f'stroke-width="2.5" stroke-dasharray="{dash}"/>')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("-o", "--output", help="SVG file (default: RESULTS with .svg)")
    args = ap.parse_args()
    with open(args.results, newline="") as f:
        all_rows = list(csv.DictReader(f))
    if not all_rows:
        sys.exit(f"{args.results}: no rows")
    last = max(r["date"] for r in all_rows)  # the newest run in the file
    rows = {(r["op"], r["case"]): r for r in all_rows if r["date"] == last}
    first = next(iter(rows.values()))
    width = MARGIN_L + len(OPS) * (PANEL_W + MARGIN_L)
    height = MARGIN_T + PANEL_H + MARGIN_B + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{MARGIN_L}" y="20" font-size="13">gdaki_sink_bench, {first["gpu"]}, driver '
           f'{first["driver"]}, handler {first["handler"]}, {last}: WQEs per second (log)</text>']
    for k, op in enumerate(OPS):
        panel(out, MARGIN_L + k * (PANEL_W + MARGIN_L), op, rows)
    ly = MARGIN_T + PANEL_H + 50
    for k, (label, color) in enumerate((("ours", "#1f77b4"), ("bare baseline", "#aaa"),
                                        ("DOCA GPUNetIO 2.0", "#d62728"), ("target", "#2ca02c"))):
        lx = MARGIN_L + k * 170
        out.append(f'<rect x="{lx}" y="{ly}" width="14" height="10" fill="{color}"/>')
        out.append(f'<text x="{lx + 20}" y="{ly + 10}" font-size="12">{label}</text>')
    out.append("</svg>")
    output = args.output or args.results.rsplit(".", 1)[0] + ".svg"
    with open(output, "w") as f:
        f.write("\n".join(out) + "\n")
    print(output)


if __name__ == "__main__":
    main()
