"""``python -m ttt_engine.quixo``: the Quixo stages A/B/C (see :func:`ttt_engine.quixo.main`)."""
import sys

from ttt_engine.quixo import main

sys.exit(main())
