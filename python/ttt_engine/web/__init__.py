"""A local web page to play the games of the registry and watch the engines think
(``ttt-engine serve``; needs the ``[web]`` extra: Starlette and uvicorn).

The page (``static/``: plain HTML, CSS and JavaScript, nothing fetched from
elsewhere) keeps the game as a list of moves and asks the server, which
keeps no game state, for the position, an engine's move or an analysis.  The
games and engines come from the registry ``ttt_engine.games``.

:func:`create_app` builds the Starlette application (its API is in
:mod:`ttt_engine.web.app`); :func:`serve` runs it with uvicorn on loopback.
"""
from __future__ import annotations

__all__ = ["create_app", "serve", "MissingExtra", "require_extra"]

EXTRA_HINT = "pip install 'ttt_engine[web]'"


class MissingExtra(ImportError):
    """Starlette or uvicorn is not installed."""


def require_extra():
    """Import Starlette and uvicorn, or raise :class:`MissingExtra` saying how to
    install them."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        raise MissingExtra(f"the web page needs the [web] extra ({e.name} is not installed): "
                           f"{EXTRA_HINT}") from None


def create_app(**settings):
    """The Starlette application; ``settings`` as :class:`ttt_engine.web.app.Settings`."""
    require_extra()
    from ttt_engine.web.app import Settings, build_app
    return build_app(Settings(**settings))


def serve(host="127.0.0.1", port=8000, *, open_browser=False, announce=print, **settings):
    """Run the page's server until Ctrl-C (see :mod:`ttt_engine.web.server`)."""
    require_extra()
    from ttt_engine.web.server import run
    return run(host, port, open_browser=open_browser, announce=announce, **settings)
