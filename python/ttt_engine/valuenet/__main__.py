"""``python -m ttt_engine.valuenet``: the same as ``ttt-engine valuenet``."""
import sys

from ttt_engine.cli import run_standalone

if __name__ == "__main__":
    sys.exit(run_standalone("valuenet", prog="python -m ttt_engine.valuenet"))
