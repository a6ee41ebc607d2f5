"""Build the documentation site: ``python docs/build.py [--out DIR] [--open]``.

Strict, as CI builds it: any warning — a broken link, a page in no table of contents, a
docstring reference that does not resolve — fails the build, naming the page and the line.
Needs the ``[docs]`` extra (Sphinx, MyST, the Furo theme) and the package built (installed,
or ``python setup.py build_ext --inplace``: the API reference is read from the docstrings of
the compiled modules too).  The site reads offline: open ``DIR/index.html``.
"""
import argparse
import os
import sys
import webbrowser

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "_build", "html")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python docs/build.py", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--open", action="store_true", help="open the built site in a browser")
    args = parser.parse_args(argv)
    try:
        import furo  # noqa: F401
        import myst_parser  # noqa: F401
        from sphinx.cmd.build import build_main
    except ImportError as e:
        print(f"docs/build.py: error: the documentation build needs the [docs] extra "
              f"(missing {e.name}): pip install '.[docs]'", file=sys.stderr)
        return 2
    status = build_main(["-E", "-W", "--keep-going", "-n", "-q", "-b", "html", HERE, args.out])
    if status == 0:
        index = os.path.join(args.out, "index.html")
        print(f"built {index}")
        if args.open:
            webbrowser.open("file://" + index)
    return status


if __name__ == "__main__":
    sys.exit(main())
