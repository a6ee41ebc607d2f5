"""Running the page's application with uvicorn: the socket bound first (so a
port in use is a one-line error and ``port=0`` picks a free one), loopback by
default, and Ctrl-C stopping the server within a second (running searches are
told to stop and their threads are not waited for)."""
from __future__ import annotations

import ipaddress
import socket
import threading
import webbrowser

import uvicorn

from ttt_engine.web.app import Settings, build_app

__all__ = ["run", "bind", "is_loopback", "Server", "loopback_hosts"]


def is_loopback(host):
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host, port):
    """A listening TCP socket on ``host:port`` (``OSError`` if it cannot be had)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def loopback_hosts(port):
    """The Host header values of a loopback server on ``port``."""
    return tuple(f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]"))


class Server(uvicorn.Server):
    """uvicorn's server that also tells running searches to stop when asked to exit."""

    def __init__(self, config, stopping):
        super().__init__(config)
        self.stopping = stopping

    def handle_exit(self, sig, frame):
        self.stopping.set()
        super().handle_exit(sig, frame)


def url_of(sock):
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def make_server(sock, settings, log_level="warning"):
    """A :class:`Server` for the application on the bound ``sock``."""
    port = sock.getsockname()[1]
    host = sock.getsockname()[0]
    allowed = loopback_hosts(port) if is_loopback(host) else None
    settings = Settings(**dict(settings, allowed_hosts=allowed))
    app = build_app(settings)
    config = uvicorn.Config(app, log_level=log_level, timeout_graceful_shutdown=0.5,
                            lifespan="off", access_log=False)
    return Server(config, app.state.stopping)


def run(host="127.0.0.1", port=8000, *, open_browser=False, announce=print, **settings):
    """Serve until Ctrl-C; ``announce(text)`` gets the address line."""
    sock = bind(host, port)
    try:
        server = make_server(sock, settings)
        url = url_of(sock)
        announce(f"Serving the ttt-engine page on {url} (Ctrl-C to stop)")
        if not is_loopback(host):
            announce(f"note: listening on {host}: other machines can reach this page")
        if open_browser:
            threading.Timer(0.3, webbrowser.open, (url,)).start()
        server.run(sockets=[sock])
    finally:
        sock.close()
