"""Problems panel, deleting with dependants, editing blocked while running, recovery after a crash,
templates, inspector fields, copy/paste, renaming."""

import json
import os

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from nsgui.scene import scene_to_dict, validate_scene
from nsgui.views.autosave import find_recoveries
from nsgui.scene.templates import TEMPLATES, make_template


def test_problems_panel_shows_selects_and_clears(window, mouse):
    doc, ed = window.document, window.editor
    ed.problems.refresh()
    assert not doc.scene.bodies and "scene is empty" in ed.problems.summary.text()  # not "ready to run"
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    mouse.tool("disk")
    mouse.drag((0.5, 0.0), (0.6, 0.0))        # a ball sunk halfway into the ground
    ed.problems.refresh()
    lst = ed.problems.list
    texts = [lst.item(i).text() for i in range(lst.count())]
    assert len(texts) == 1 and "overlaps obstacle 'ground'" in texts[0], texts
    assert doc.problems() and not ed.check_can_run()[0]
    assert "overlaps" in ed.check_can_run()[1]
    ed.canvas.set_selection([])
    rect = lst.visualItemRect(lst.item(0))
    QTest.mouseClick(lst.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    assert ed.canvas.selection == [("contact", doc.scene.contacts[0].name)]
    # lift the ball clear of the ground: the problem goes away
    ed.canvas.set_selection([])
    mouse.tool("select")
    mouse.drag((0.5, 0.0), (0.5, 0.3))
    ed.problems.refresh()
    assert lst.count() == 0 and doc.problems() == []
    assert "No problems" in ed.problems.summary.text()


def test_delete_body_asks_about_dependants(window, mouse):
    doc, ed = window.document, window.editor
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    mouse.tool("bar")
    mouse.drag((0.0, 1.0), (0.5, 1.0))
    mouse.tool("pin")
    mouse.click(0.0, 1.0)
    mouse.tool("disk")
    mouse.click(0.5, 1.0)
    mouse.tool("pin")
    mouse.click(0.5, 1.0)                    # ball pinned to the bar
    asked = []
    ed.ask_confirm = lambda title, text: asked.append(text) or False
    ed.canvas.set_selection([("body", "bar")])
    assert not ed.delete_selection()          # refused: nothing changes
    assert "pin_bar" in asked[0] and "pin_ball" in asked[0]
    assert len(doc.scene.bodies) == 2
    ed.ask_confirm = lambda title, text: True
    ed.canvas.set_selection([("body", "bar")])
    ed.delete_action.trigger()
    s = doc.scene
    assert [b.name for b in s.bodies] == ["ball"]
    # the ball is freed where it stood, and the scene stays valid
    assert [(j.type, j.child) for j in s.joints] == [("free", "ball")]
    assert validate_scene(s) == []
    assert np.isclose(s.initial.q["ball_free.x"], 0.5) and np.isclose(s.initial.q["ball_free.y"], 1.0)
    doc.undo_stack.undo()
    assert [b.name for b in doc.scene.bodies] == ["bar", "ball"]


def test_editing_blocked_while_running(window, mouse):
    doc, ed = window.document, window.editor
    window.set_running(True)
    assert ed.canvas.read_only and not ed.undo_action.isEnabled()
    ed.canvas.set_tool("disk")
    mouse.click(0.2, 0.5)
    assert doc.scene.bodies == [] and doc.undo_stack.count() == 0
    window.set_running(False)
    mouse.tool("disk")
    mouse.click(0.2, 0.5)
    assert len(doc.scene.bodies) == 1


def test_recovery_after_a_crash(window, mouse, qtbot, state_dir):
    from tests.views.editor.conftest import StandInWindow
    from nsgui.views.editor.integration import attach_editor
    doc, ed = window.document, window.editor
    mouse.tool("disk")
    mouse.click(0.2, 0.5)
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    assert ed.autosave.tick()                  # what the 5 s timer does
    rec_files = sorted(os.listdir(state_dir / "recovery"))
    assert len(rec_files) == 2
    # simulate a crash: the recovery files stay behind, owned by a process that is gone
    meta = state_dir / "recovery" / f"recovery-{os.getpid()}.meta.json"
    info = json.loads(meta.read_text())
    info["pid"] = 999999999
    meta.write_text(json.dumps(info))
    expected = scene_to_dict(doc.scene)
    w2 = StandInWindow()
    qtbot.addWidget(w2)
    ed2 = attach_editor(w2)
    ed2.ask_save_changes = lambda: "discard"
    asked = []
    ed2.ask_confirm = lambda title, text: asked.append(text) or True
    assert ed2.offer_recovery()
    assert "unsaved scene" in asked[0]
    assert scene_to_dict(w2.document.scene) == expected
    assert w2.document.modified                # recovered work is not saved yet
    assert find_recoveries(state_dir / "recovery") == []


def test_autosave_removed_after_save(window, mouse, tmp_path, state_dir):
    ed = window.editor
    mouse.tool("disk")
    mouse.click(0.2, 0.5)
    assert ed.autosave.tick()
    assert ed.autosave.scene_path.exists()
    ed.ask_save_path = lambda: str(tmp_path / "a.json")
    assert ed.save()
    assert not ed.autosave.scene_path.exists()
    assert not ed.autosave.tick()


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_templates_valid_and_run(name):
    scene = make_template(name)
    assert validate_scene(scene) == []
    from nsgui.scene.checks import editor_problems
    assert [p for p in editor_problems(scene) if p.severity == "error"] == []
    simulate = pytest.importorskip("nsgui.engine.simulate").simulate
    r = simulate(scene, duration=0.5)
    assert r.summary["failure"] is None
    # the walking biped (h = 2 ms, no projection, as its gait is tuned) leaves ~1.6 mm at its heel strikes
    assert r.summary["max_penetration"] < (2.5e-3 if name == "Biped walking" else 1e-3)


def test_template_from_menu_with_parameters(window):
    ed = window.editor
    assert ed.new_from_template("Newton's cradle", {"n": 3, "radius": 0.04, "length": 0.5,
                                                     "restitution": 1.0, "lift_deg": 20.0})
    s = window.document.scene
    assert len(s.bodies) == 3 and len(s.contacts) == 2
    assert not window.document.modified
    names = [a.text() for a in ed.templates_menu.actions()]
    from nsgui.scene.templates import TEMPLATES
    assert names == [f"{n}…" for n in TEMPLATES]


def test_restitution_conversion_in_either_law():
    from nsgui.scene import Contact
    from nsgui.scene import edits as ops
    for law in ("newton", "moreau"):
        c = Contact(name="c", impact_law=law)
        for en in (0.0, 0.3, 0.5, 1.0):
            ops.set_newton_e(c, en)
            e = ops.moreau_e(c)
            assert np.isclose(e, 2 * en / (1 + en)) and np.isclose(ops.newton_e(c), en)
            ops.set_moreau_e(c, e)
            assert np.isclose(ops.newton_e(c), en)
            assert np.isclose(c.restitution, e if law == "moreau" else en)


def test_inspector_edits_contact_in_moreau_e_and_mass_override(window, mouse):
    doc, ed = window.document, window.editor
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    mouse.tool("disk")
    mouse.click(0.3, 0.5)
    c = doc.scene.contacts[0]
    ed.canvas.set_selection([("contact", c.name)])
    insp = ed.widget.inspector
    f = next(f for f in insp.fields if f.label == "Moreau e")
    f.spin.setValue(0.8)                          # e = 0.8 → e_N = 0.8 / 1.2
    assert np.isclose(doc.scene.contacts[0].restitution, 0.8 / 1.2)
    fn = next(f for f in insp.fields if f.label == "Restitution e_N")
    assert np.isclose(fn.spin.value(), 0.8 / 1.2, atol=1e-3)
    # the thesis' law: the file then holds Moreau's e, the same physical law
    law = next(f for f in insp.fields if f.label == "Impact law")
    law.combo.setCurrentIndex(law.combo.findData("moreau"))
    c = doc.scene.contacts[0]
    assert c.impact_law == "moreau" and np.isclose(c.restitution, 0.8)
    f = next(f for f in insp.fields if f.label == "Moreau e")
    f.spin.setValue(1.5)                          # beyond 1: only Moreau's law reaches it (e_N = 3)
    assert np.isclose(doc.scene.contacts[0].restitution, 1.5)
    et = next(f for f in insp.fields if f.label == "Tangential e_T")
    et.spin.setValue(0.4)
    assert doc.scene.contacts[0].tangential_restitution == 0.4
    # body: the mass comes from the shapes until overridden
    ed.canvas.set_selection([("body", "ball")])
    m = next(f for f in insp.fields if f.label == "Mass")
    assert m.auto.isChecked() and np.isclose(m.spin.value(), 100.0 * np.pi * 0.01, atol=1e-3)
    m.auto.setChecked(False)
    m.spin.setValue(2.5)
    assert doc.scene.bodies[0].mass == 2.5
    n = doc.undo_stack.count()
    m.spin.setValue(3.0)                          # consecutive edits of one field merge
    assert doc.undo_stack.count() == n and doc.scene.bodies[0].mass == 3.0


def test_copy_paste_duplicate_and_rename(window, mouse):
    doc, ed = window.document, window.editor
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    mouse.tool("bar")
    mouse.drag((0.0, 1.0), (0.4, 1.0))
    mouse.tool("pin")
    mouse.click(0.0, 1.0)
    ed.canvas.set_selection([("body", "bar")])
    ed.copy_action.trigger()
    ed.paste_action.trigger()
    s = doc.scene
    assert [b.name for b in s.bodies] == ["bar", "bar2"]
    j2 = next(j for j in s.joints if j.child == "bar2")
    assert j2.type == "revolute" and np.allclose(j2.anchor_parent, [0.2, 0.8])
    assert validate_scene(s) == []
    ed.canvas.set_selection([("body", "bar2")])
    ed.duplicate_action.trigger()
    assert len(doc.scene.bodies) == 3
    # rename through the inspector: joints and contacts follow
    ed.canvas.set_selection([("body", "bar")])
    name_field = next(f for f in ed.widget.inspector.fields if f.label == "Name")
    name_field.edit.setText("arm")
    name_field.edit.editingFinished.emit()
    s = doc.scene
    assert "arm" in [b.name for b in s.bodies]
    assert any(j.child == "arm" for j in s.joints)
    assert validate_scene(s) == []
    assert ed.canvas.selection == [("body", "arm")]


def test_polygon_drawn_point_by_point(window, mouse):
    doc = window.document
    mouse.tool("polygon")
    for x, y in [(0.0, 0.5), (0.4, 0.5), (0.4, 0.8)]:
        mouse.click(x, y)
    mouse.click(0.0, 0.5)                          # back on the first corner closes it
    s = doc.scene
    assert len(s.bodies) == 1 and s.bodies[0].shapes[0].type == "polygon"
    assert validate_scene(s) == []
    verts = np.array(s.bodies[0].shapes[0].vertices)
    q = s.initial.q
    world = verts + [q["plate_free.x"], q["plate_free.y"]]
    assert np.allclose(sorted(map(tuple, world.round(9))), sorted([(0.0, 0.5), (0.4, 0.5), (0.4, 0.8)]))


def test_close_prompt(window, mouse):
    ed = window.editor
    mouse.tool("disk")
    mouse.click(0.2, 0.5)
    ed.ask_save_changes = lambda: "cancel"
    assert not window.close()
    assert window.isVisible()
    ed.ask_save_changes = lambda: "discard"
    assert window.close()


def test_keyboard_delete_undo_escape(window, mouse, qtbot):
    doc, ed = window.document, window.editor
    mouse.tool("disk")
    mouse.click(0.2, 0.5)
    mouse.click(0.6, 0.5)
    assert len(doc.scene.bodies) == 2
    canvas = ed.canvas
    QTest.keyClick(canvas, Qt.Key_Escape)          # back to the select tool
    assert canvas.tool == "select" and ed.widget.buttons["select"].isChecked()
    mouse.click(0.6, 0.5)
    assert canvas.selection == [("body", "ball2")]
    QTest.keyClick(canvas, Qt.Key_Delete)
    assert [b.name for b in doc.scene.bodies] == ["ball"]
    QTest.keyClick(canvas, Qt.Key_Z, Qt.ControlModifier)
    assert [b.name for b in doc.scene.bodies] == ["ball", "ball2"]
    # rubber band selects both, shift-click removes one
    mouse.drag((-0.1, 0.2), (0.9, 0.8))
    assert set(canvas.selection) == {("body", "ball"), ("body", "ball2")}
    mouse.click(0.2, 0.5, Qt.ShiftModifier)
    assert canvas.selection == [("body", "ball2")]


def test_template_dialog_fields_follow_the_parameter_list(qtbot):
    from nsgui.views.editor.template_dialog import TemplateDialog
    dlg = TemplateDialog("Chain of N links")
    qtbot.addWidget(dlg)
    dlg.inputs["n"].setValue(7)
    dlg.inputs["link_length"].setValue(0.25)
    dlg.inputs["n"].setValue(999)                  # clamped to the valid range
    vals = dlg.values()
    assert vals["n"] == 50 and np.isclose(vals["link_length"], 0.25)
    s = make_template("Chain of N links", **vals)
    assert len(s.bodies) == 50 and validate_scene(s) == []


def test_contact_list_ticks_pairs_on_and_off(window, mouse):
    doc, ed = window.document, window.editor
    mouse.tool("ground")
    mouse.click(0.0, 0.0)
    mouse.tool("disk")
    mouse.click(-0.3, 0.5)
    mouse.click(0.3, 0.5)
    table = ed.widget.contacts
    ed.widget.side.setCurrentWidget(table)
    table.refresh()
    texts = [table.item(r, 1).text() for r in range(table.rowCount())]
    assert len(texts) == 3 and any("ball.disk0 ↔ ball2.disk0" == t for t in texts)
    row = texts.index("ball.disk0 ↔ ball2.disk0")
    box = table.cellWidget(row, 0)
    assert box.isChecked()
    box.setChecked(False)
    assert len(doc.scene.contacts) == 2
    box.setChecked(True)
    assert len(doc.scene.contacts) == 3
    mu = table.cellWidget(row, 4)
    mu.setValue(0.9)
    c = next(c for c in doc.scene.contacts if c.b.body)
    assert np.isclose(c.friction, 0.9)
    table.cellWidget(row, 3).setValue(0.5)        # Moreau e = 0.5 → e_N = 1/3
    c = next(x for x in doc.scene.contacts if x.b.body)   # each edit makes a new scene object
    assert np.isclose(c.restitution, 1 / 3)


def test_joint_inspector_adds_a_joint_spring_and_limits(window, mouse):
    from PySide6.QtWidgets import QPushButton
    doc, ed = window.document, window.editor
    mouse.tool("bar")
    mouse.drag((0.0, 1.0), (0.4, 1.0))
    mouse.tool("pin")
    mouse.click(0.0, 1.0)
    assert ed.canvas.selection == [("joint", "pin_bar")]
    insp = ed.widget.inspector
    add = next(b for b in insp.scroll.widget().findChildren(QPushButton) if b.text().startswith("Add a spring"))
    add.click()
    f = doc.scene.forces[0]
    assert f.type == "joint_spring" and f.joint == "pin_bar"
    assert ed.canvas.selection == [("force", f.name)]
    k = next(x for x in insp.fields if x.label == "Stiffness k")
    k.spin.setValue(25.0)
    assert doc.scene.forces[0].stiffness == 25.0
    ed.canvas.set_selection([("joint", "pin_bar")])
    lim = next(x for x in insp.fields if x.label == "Limited")
    lim.box.setChecked(True)
    j = doc.scene.joints[0]
    assert j.limits is not None and np.isclose(j.limits.lower, -np.pi / 2)
    upper = next(x for x in insp.fields if x.label == "Upper")
    upper.spin.setValue(45.0)                      # shown in degrees, stored in radians
    assert np.isclose(doc.scene.joints[0].limits.upper, np.pi / 4)
    assert validate_scene(doc.scene) == []


def test_scene_form_sets_the_integrator_and_its_fallback(window, tmp_path):
    doc, ed = window.document, window.editor
    ed.canvas.set_selection([])
    insp = ed.widget.inspector
    integ = next(f for f in insp.fields if f.label == "Integrator")
    assert integ.combo.currentData() == "time_stepping"
    integ.combo.setCurrentIndex(integ.combo.findData("event_driven"))
    assert doc.scene.settings.integrator == "event_driven"
    fb = next(f for f in insp.fields if f.label == "Crowded events")
    assert fb.combo.currentData() == "auto"
    fb.combo.setCurrentIndex(fb.combo.findData("never"))
    assert doc.scene.settings.event_driven_fallback == "never"
    assert validate_scene(doc.scene) == []
    doc.undo_stack.undo()
    assert doc.scene.settings.event_driven_fallback == "auto"
