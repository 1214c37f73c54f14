"""Command-line entry point: `nsgui run SCENE ...` headless, `nsgui render SCENE --out V.mp4` a video
without a window, `nsgui [SCENE]` opens the window."""

import sys


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        from nsgui.cli import run_main
        return run_main(argv[1:])
    if argv and argv[0] == "render":
        from nsgui.render_cli import render_main
        return render_main(argv[1:])
    from nsgui.app import gui_main
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
