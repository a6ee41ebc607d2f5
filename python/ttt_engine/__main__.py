"""``python -m ttt_engine``: the same command line as ``ttt-engine`` (see ``ttt_engine.cli``)."""
import sys

from ttt_engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
