"""Command-line entry point: `nsgui [SCENE]` opens the window, `nsgui COMMAND ...` runs a command."""

import argparse
import importlib
import os
import sys

from nsgui import __version__, startup

# name: (module, function taking the command's argv, one line for `nsgui --help`)
COMMANDS = {
    "run": ("nsgui.cli", "run_main", "simulate a scene without a window: summary, CSV/HDF5 output"),
    "render": ("nsgui.render_cli", "render_main", "make a video (MP4/GIF) of a scene without a window"),
    "poincare": ("nsgui.poincare_cli", "poincare_main", "a walker's gait: fixed point, eigenvalues and "
                 "bifurcations of its Poincaré map"),
    "examples": ("nsgui.examples", "examples_main", "list the example scenes; their names work as SCENE"),
}

USAGE = """nsgui [SCENE] [--run-for T] [--screenshot FILE.png] [--speed X] [--allow-code]
       nsgui COMMAND [ARGS]   (nsgui COMMAND --help tells more)"""


def build_parser(with_commands=True):
    """The window's options; `with_commands` adds the commands (for --help: an optional SCENE and a
    command cannot be told apart by argparse, so main() dispatches commands by their name)."""
    p = argparse.ArgumentParser(prog="nsgui", usage=USAGE,
                                description="Planar mechanisms with contacts, impacts and friction: live "
                                            "simulation, plots, 3D view and history. Without a command, "
                                            "opens the window.")
    p.add_argument("-V", "--version", action="version", version=f"nsgui {__version__}")
    p.add_argument("scene", nargs="?", metavar="SCENE",
                   help="scene file, or the name of an example (default: the example 'default')")
    p.add_argument("--run-for", type=float, metavar="T", help="run T seconds of simulated time on start")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="after --run-for (or right after loading), save a screenshot of the window and exit")
    p.add_argument("--speed", type=float, default=None, metavar="X",
                   help="real-time factor for --run-for (default: as fast as possible)")
    p.add_argument("--allow-code", action="store_true",
                   help="run the scene's Python controllers without asking (only for scenes you trust)")
    if with_commands:
        sub = p.add_subparsers(title="commands", metavar="COMMAND")
        for name, (_module, _func, text) in COMMANDS.items():
            sub.add_parser(name, help=text, add_help=False)
    return p


def main(argv=None):
    if argv is None:  # the program itself: start-up without the cyclic collector (nsgui/startup.py)
        startup.pause()
    try:
        code = _main(argv)
    except KeyboardInterrupt:  # Ctrl-C before a command installs its own handler (imports, loading)
        sys.stderr.write("nsgui: interrupted\n")
        code = 130
    if argv is None:  # the program itself (not a caller in Python): everything is written and closed
        _leave(code)
    return code


def _leave(code):
    """Exit now, after the atexit handlers (temporary folders) but without the interpreter's
    teardown: unloading numba's compiled kernels takes about half a second after a short run."""
    import atexit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            pass
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


def _main(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        module, func, _text = COMMANDS[argv[0]]
        return getattr(importlib.import_module(module), func)(argv[1:])
    if {"-h", "--help"} & set(argv):
        build_parser().parse_args(["--help"])
    from nsgui.app import gui_main
    return gui_main(build_parser(with_commands=False).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
