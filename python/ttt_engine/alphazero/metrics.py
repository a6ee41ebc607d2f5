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


def _truncate_metrics(path, iteration):
    """Keep only the records up to ``iteration`` (those after the checkpoint are lost work)."""
    if not os.path.exists(path):
        return []
    keep = [r for r in read_metrics(path) if r.get("iteration", 0) <= iteration]
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in keep)
    _util.atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return keep


def _append_jsonl(path, record):
    """Append one line (a crash can only tear the last line, which readers skip)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
        f.flush()
