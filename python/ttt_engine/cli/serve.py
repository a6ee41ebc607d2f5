"""``ttt-engine serve``: a local web page to play the games of the registry against any
engine of the registry, watch two engines, and see what an engine thinks
(the ``[web]`` extra: Starlette and uvicorn)."""
from __future__ import annotations

import argparse
import errno

from ttt_engine.cli import _options as O
from ttt_engine.cli._errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE, CLIError

__all__ = ["COMMAND", "add_parser", "run", "DEFAULT_PORT", "MAX_TIME_CAP"]

DEFAULT_PORT = 8000
#: Highest --max-time accepted (seconds).
MAX_TIME_CAP = 3600.0

COMMAND = O.Command(
    name="serve",
    help="a local web page: play, watch two engines, see them think",
    description="""\
Serve a web page on this machine to play any game against any engine, watch two
engines play, and see an engine's analysis (visits, values, principal lines) as a
heat map on the board. The page is plain HTML and JavaScript served from here;
nothing is fetched from the internet. It listens on 127.0.0.1 only, unless --host
says otherwise. Ctrl-C stops the server (status 130).""",
    epilog=("Needs the [web] extra: pip install 'ttt_engine[web]'. More: docs/web.md.",
            O.examples("serve                    then open http://127.0.0.1:8000/",
                       "serve --port 8080 --open",
                       "serve --max-time 30      allow searches of up to 30 s",
                       "serve --network uttt.npz  the az engine plays your UTTT network")))


def run(args):
    from ttt_engine.web import MissingExtra, require_extra
    try:
        require_extra()
    except MissingExtra as e:          # an extra to install: usage, as everywhere
        raise CLIError(str(e), EXIT_USAGE) from None
    from ttt_engine.web.server import run as serve
    from ttt_engine import games
    networks = _networks(args.network or [])
    for key, path in networks:
        print(f"The az engine of {games.get(key).title} plays {path}.", flush=True)
    try:
        serve(args.host, args.port, open_browser=args.open,
              announce=lambda text: print(text, flush=True), max_time=args.max_time,
              workers=args.workers, networks=tuple(networks))
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise CLIError(f"port {args.port} on {args.host} is in use: choose another with "
                           "--port (0 picks a free one)", EXIT_ERROR) from None
        if isinstance(e, OSError) and e.errno in (errno.EADDRNOTAVAIL, errno.EACCES) or \
                e.errno is None or e.errno < 0:
            raise CLIError(f"cannot listen on {args.host}:{args.port}: "
                           f"{e.strerror or e}", EXIT_USAGE) from None
        raise
    return EXIT_INTERRUPTED


def _networks(paths):
    """``--network`` files as (game key, absolute path) pairs, the game read
    from each file: one line for a file that cannot be read or a second file
    for the same game, before the server starts."""
    import os
    from ttt_engine.cli._engines import read_network
    given = {}
    for path in paths:
        key = read_network(path).game_key
        if key in given:
            raise CLIError(f"--network: {given[key]} and {path} are both networks of "
                           f"the same game: give one per game", EXIT_USAGE)
        given[key] = path
    return [(key, os.path.abspath(path)) for key, path in given.items()]


def _host(text):
    """An argparse type: an address to listen on; an empty one would be every
    address (0.0.0.0), never meant by an empty value."""
    if not text.strip() or text != text.strip():
        raise argparse.ArgumentTypeError(f"must be an address such as 127.0.0.1, got {text!r}")
    return text


def add_parser(subparsers):
    p = O.add_command(subparsers, COMMAND, run)
    p.add_argument("--port", type=O.whole(0, 65535), default=DEFAULT_PORT, metavar="N",
                   help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--host", type=_host, default="127.0.0.1", metavar="H",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument("--max-time", type=O.seconds(0, MAX_TIME_CAP), default=10.0,
                   metavar="SECONDS",
                   help="longest search a request may ask for (default 10)")
    p.add_argument("--workers", type=O.whole(1, 64), default=2, metavar="N",
                   help="searches run at once (default 2; more requests wait)")
    p.add_argument("--network", action="append", metavar="PATH",
                   help="a network file (from 'ttt-engine az train --out PATH') that the "
                        "az engine of its game (and best, where it is network-guided) "
                        "plays with instead of the shipped one; repeat for several games")
    return p
