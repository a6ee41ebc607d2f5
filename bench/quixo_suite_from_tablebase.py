"""Rebuild the shipped Quixo yardstick suite: the 4x4 positions and 5x5 positions with at
most one blank cube scored by the endgame tablebase (`ttt-engine quixo tablebase`).

Made the shipped suite (python/ttt_engine/data/yardstick_quixo.npz: 1,400 4x4 and 1,000
5x5 positions, all critical) in about 10 minutes of one core:

    python bench/quixo_suite_from_tablebase.py --tablebase quixo5.tb --out yardstick_quixo.npz
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ttt_engine import yardstick  # noqa: E402
from ttt_engine.quixo.tablebase import Tablebase  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--tablebase", required=True, help="the 5x5 table (ttt-engine quixo tablebase)")
parser.add_argument("--out", required=True, help="the suite file to write")
parser.add_argument("--checkpoint", help="resumable progress file prefix")
args = parser.parse_args()
tb = Tablebase(args.tablebase)
suite = yardstick.build("quixo", seed=1, progress=True, tablebase=tb.move_values,
                        checkpoint=args.checkpoint)
yardstick.save(suite, args.out)
