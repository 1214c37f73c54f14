"""`nsgui render`: bad arguments give one line naming what is wrong, exit status 2, no file."""

import os

import pytest

from nsgui.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BALL = os.path.join(ROOT, "resources", "scenes", "bouncing_ball.json")


@pytest.mark.parametrize("args, says", [
    ([], "required: scene, --out"),
    ([BALL], "required: --out"),
    ([BALL, "--out", "x.avi"], "--out x.avi: the file name must end in .mp4 or .gif"),
    ([BALL, "--out", "x.mp4", "--size", "641x480"], "--size 641x480: an MP4 needs an even width"),
    ([BALL, "--out", "x.gif", "--size", "big"], "--size big: expected WIDTHxHEIGHT"),
    ([BALL, "--out", "x.gif", "--size", "8x8"], "--size 8x8: width and height must be between 16"),
    ([BALL, "--out", "x.gif", "--fps", "0"], "--fps 0: must be between 1 and"),
    ([BALL, "--out", "x.gif", "--fps", "abc"], "argument --fps: invalid float value: 'abc'"),
    ([BALL, "--out", "x.gif", "--duration", "-1"], "--duration -1: must be a number of seconds > 0"),
    ([BALL, "--out", "x.gif", "--duration", "nan"], "--duration nan: must be"),
    ([BALL, "--out", "no/such/dir/x.gif"], "--out no/such/dir/x.gif: no such folder"),
    (["nope.json", "--out", "x.gif"], "no such scene file: nope.json"),
    ([BALL, "--out", "x.gif", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_arguments_give_one_line(args, says, capsys, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["render"] + args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("nsgui render: ") and says in err, err
    assert os.listdir(work) == []
