"""The OpenSpiel comparison of ``bench/compare_openspiel.py``: ``sides`` (the work on
each engine), ``measure`` (rows, timed rounds, machine, rules check) and
``report`` (summaries and Markdown)."""
