"""The metrics log of a run: one JSON record per iteration, appended line by
line (a crash can only tear the last line, which the reader skips)."""
from __future__ import annotations

import json
import os

from ttt_engine import _util


def read_metrics(path):
    """The records of a metrics log (a list of dicts; a torn last line is skipped)."""
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


def _resumed_metrics(path, iteration):
    """``(kept, dropped)``: the records up to ``iteration`` (the checkpoint's)
    and how many come after it (lost work).  A torn last line is dropped as a
    crash leaves it; any other line that is not a record is a ``ValueError``:
    rewriting the log would lose it without a word."""
    if not os.path.exists(path):
        return [], 0
    with open(path, encoding="utf-8") as f:
        lines = [(n, line.strip()) for n, line in enumerate(f, 1) if line.strip()]
    records = []
    for i, (n, line) in enumerate(lines):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            rec = None
        if not isinstance(rec, dict):
            if i == len(lines) - 1 and rec is None:
                break
            raise ValueError(f"{path}: line {n} is not a metrics record; mend or remove it "
                             "before resuming (the log is rewritten on resume)")
        records.append(rec)
    kept = [r for r in records if r.get("iteration", 0) <= iteration]
    return kept, len(records) - len(kept)


def _truncate_metrics(path, records):
    """Rewrite the log with ``records`` only (those after the checkpoint are lost work)."""
    if not os.path.exists(path):
        return
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    _util.atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def _append_jsonl(path, record):
    """Append one line (a crash can only tear the last line, which readers skip)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
        f.flush()
