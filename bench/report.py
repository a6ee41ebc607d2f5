"""Markdown table of throughputs from a pytest-benchmark JSON file.

    PYTHONPATH=python python -m pytest bench/ --benchmark-only --benchmark-json=bench.json
    python bench/report.py bench.json

Reads the ``unit`` / ``units`` / ``per_s`` fields that ``bench/conftest.py``
stores in each benchmark's ``extra_info``, or else any ``<unit>_per_s`` keys
(``cpu_<unit>_per_s`` = the rate from process CPU time); benchmarks with none
are listed with their median time only.
"""
import argparse
import json
import sys

from compare.report import fmt_rate


def _fmt_rate(x):
    """Rates before a unit: ``1.23 Mnodes/s``, ``12.3 nodes/s``."""
    return fmt_rate(x, places=1) + ("" if x >= 1e3 else " ")


def table(data):
    rows = ["| benchmark | median time | work per call | throughput (median) | rounds |",
            "|---|---:|---:|---:|---:|"]
    for b in sorted(data.get("benchmarks", []), key=lambda b: b["fullname"]):
        st, ex = b["stats"], b.get("extra_info", {})
        median = st["median"]
        unit = ex.get("unit", "")
        units = ex.get("units")
        per_s = ex.get("per_s")
        if per_s is None and units and median > 0:
            per_s = units / median
        work = f"{units:,} {unit}" if units is not None else "—"
        if per_s:
            rate = f"{_fmt_rate(per_s)}{unit}/s"
        else:
            # other benches' spelling: "<unit>_per_s" (and "cpu_<unit>_per_s")
            rates = [f"{_fmt_rate(v)}{k[:-len('_per_s')].replace('_', ' ')}/s"
                     for k, v in ex.items()
                     if k.endswith("_per_s") and isinstance(v, (int, float))]
            rate = "; ".join(rates) if rates else "—"
            for key in ("nodes", "episodes", "simulations", "games"):
                if key in ex and isinstance(ex[key], int):
                    work = f"{ex[key]:,} {key}"
                    break
        t = f"{median * 1e3:,.3f} ms" if median < 1 else f"{median:,.3f} s"
        rows.append(f"| `{b['fullname'].split('::', 1)[-1]}` ({b['fullname'].split('::')[0]}) "
                    f"| {t} | {work} | {rate} | {st['rounds']} |")
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json_file", help="file written by pytest --benchmark-json=...")
    args = ap.parse_args(argv)
    try:
        with open(args.json_file) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report.py: cannot read {args.json_file}: {e}", file=sys.stderr)
        return 2
    mi = data.get("machine_info", {})
    print(f"Machine: {mi.get('cpu', {}).get('brand_raw', mi.get('processor', '?'))}, "
          f"Python {mi.get('python_version', '?')}; run {data.get('datetime', '?')}\n")
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
