"""The window asks before a scene's Python code first runs: opening runs no code, Play asks (the
dialog is replaced here), No refuses and is remembered, Yes runs the controller in the simulation
process and is remembered for the file as it is; an edited file is asked again."""

import pytest

from tests.user_code import PID, arm_dict, consent_reset, write, write_scene  # noqa: F401

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("consent_reset")]


def test_consent_dialog_before_the_first_run(window, tmp_path, qtbot, monkeypatch):
    from nsgui.views import code_consent
    write(tmp_path, "pid.py", PID + "\nopen(__file__ + '.ran', 'a').close()\n")
    scene = write_scene(tmp_path, arm_dict({"period": 0.01}))
    asked, answer = [], [False]

    def ask_user(parent, refused):
        asked.append((refused.where, refused.path))
        return answer[0]

    monkeypatch.setattr(code_consent, "ask_user", ask_user)
    assert window.open_scene(str(scene))
    assert asked == [] and not (tmp_path / "pid.py.ran").exists()  # opening runs nothing
    assert "Play asks before running it" in window.messages.entries[-2][1]

    assert not window.play()  # No
    assert asked == [("controllers[0]", str((tmp_path / "pid.py").resolve()))]
    assert "chose not to run" in window.messages.entries[-1][1] and not (tmp_path / "pid.py.ran").exists()
    assert not window.play() and len(asked) == 1  # remembered: not asked again

    window.code_consent.answers.clear()
    answer[0] = True
    assert window.play()  # Yes: the module is imported (to read its signals) and runs
    c = window.controller
    qtbot.waitUntil(lambda: c.recorder is not None and c.recorder.t_end > 0.2, timeout=280_000)
    window.act_play.trigger()
    c.flush()
    assert len(asked) == 2 and (tmp_path / "pid.py.ran").exists()
    samples = c.recorder.column("controller.ctl.samples")
    assert samples[-1] >= 20  # sampled every 0.01 s in the simulation process
    assert window.reset_simulation() and len(asked) == 2  # remembered for this file as it is

    with open(tmp_path / "pid.py", "a") as f:
        f.write("# edited\n")
    window.reset_simulation()
    assert len(asked) == 3  # another content: asked again
