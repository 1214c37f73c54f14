"""The inspector's controller forms come from the declarations: blocks added on the selected
actuators, every parameter with unit, range and help, invalid values refused with the validation's
message, every change undoable, a type registered here appearing with no views change."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from nsgui.examples import example_path
from nsgui.scene import load_scene, scene_to_dict, validate_scene
from nsgui.scene.controller_types import BLOCK_SIGNALS, OVERLAYS, Overlay, Signal, declare
from nsgui.scene.schema import CONTROLLER_BLOCK, Field, _num, _vec
from nsgui.views.editor.fields import NamesField


@pytest.fixture
def arm(window):
    window.document.set_scene(load_scene(example_path("two_link_arm")))
    return window


def _inspector(w):
    return w.editor.widget.inspector


def _field(w, label, k=0):
    return [f for f in _inspector(w).fields if f.label == label][k]


def _add_block(w, type_name, actuators):
    ed = w.editor
    ed.canvas.set_selection([("actuator", a) for a in actuators])
    ins = _inspector(w)
    ins.add_controller_combo.setCurrentIndex(ins.add_controller_combo.findData(type_name))
    [b for b in ins.scroll.widget().findChildren(QPushButton) if b.text() == "Add"][0].click()
    return ed.canvas.selection[0][1]


def test_a_block_is_added_on_the_selected_actuators_edited_refused_and_undone(arm):
    w, doc = arm, arm.document
    name = _add_block(w, "computed_torque", ["shoulder_motor", "elbow_motor"])
    s = doc.scene
    assert [(b.name, b.type, b.actuators) for b in s.controllers] == [
        (name, "computed_torque", ["shoulder_motor", "elbow_motor"])]
    assert [a.controller.type for a in s.actuators] == ["none", "none"]  # the block took them over
    assert validate_scene(s) == []
    assert _inspector(w).title.text() == f"Controller “{name}”"
    kp = _field(w, "kp")
    assert kp.spin.suffix() == " 1/s²" and kp.spin.minimum() == 0
    label = _inspector(w).form.labelForField(kp.widget)
    assert "≥ 0" in label.toolTip() and "1/s²" in label.toolTip()
    kp.spin.setValue(250.0)
    assert doc.scene.controllers[0].kp == 250.0
    # period must be > 0: the spin box allows 0 (its closed bound), validation refuses it
    period = _field(w, "period")
    period.auto.setChecked(False)
    assert doc.scene.controllers[0].period == 0.001  # the value shown when it was null
    period.spin.setValue(0.0)
    assert doc.scene.controllers[0].period == 0.001
    assert w.editor.widget.hint.text() == "period: must be > 0, not 0"
    # one target per actuator: setting the elbow's pads the shoulder's with its initial value
    _field(w, "type", 1).combo.setCurrentIndex(_field(w, "type", 1).combo.findData("sine"))
    targets = doc.scene.controllers[0].targets
    q0 = doc.scene.initial.q.get("shoulder", 0.0)
    assert [t.type for t in targets] == ["constant", "sine"] and targets[0].value == q0
    amp = _field(w, "amplitude")
    assert amp.spin.suffix() == " rad"  # "m or rad" on a revolute joint
    amp.spin.setValue(0.2)
    assert doc.scene.controllers[0].targets[1].amplitude == 0.2
    assert scene_to_dict(doc.scene)["controllers"][0]["targets"][1]["amplitude"] == 0.2
    # the elbow back to "hold": the last entry goes
    _field(w, "type", 1).combo.setCurrentIndex(0)
    assert [t.type for t in doc.scene.controllers[0].targets] == ["constant"]
    # every change undoes, back to the scene without the block
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert doc.scene.controllers == [] and [a.controller.type for a in doc.scene.actuators] == ["pd", "pd"]


def test_the_block_form_names_its_actuators_and_removal_keeps_them(arm):
    w, doc = arm, arm.document
    name = _add_block(w, "computed_torque", ["elbow_motor"])
    names = next(f for f in _inspector(w).fields if isinstance(f, NamesField))
    items = {it.text(): it for it in names.items()}
    assert items["elbow_motor"].checkState() == Qt.Checked and items["shoulder_motor"].checkState() == Qt.Unchecked
    items["shoulder_motor"].setCheckState(Qt.Checked)  # ticked later: driven second, its PD replaced
    assert doc.scene.controllers[0].actuators == ["elbow_motor", "shoulder_motor"]
    assert doc.scene.actuators[0].controller.type == "none" and validate_scene(doc.scene) == []
    # the actuator's own form says what drives it
    w.editor.canvas.set_selection([("actuator", "shoulder_motor")])
    btn = [b for b in _inspector(w).scroll.widget().findChildren(QPushButton) if b.text().startswith(name)]
    assert btn
    btn[0].click()
    assert w.editor.canvas.selection == [("controller", name)]
    # renaming an actuator renames it in its block; removing the block keeps the actuators
    w.editor.canvas.set_selection([("actuator", "elbow_motor")])
    _field(w, "Name").commit("elbow_u")
    assert doc.scene.controllers[0].actuators == ["elbow_u", "shoulder_motor"]
    w.editor.canvas.set_selection([("controller", name)])
    [b for b in _inspector(w).scroll.widget().findChildren(QPushButton) if b.text() == "Remove this controller"][0].click()
    assert doc.scene.controllers == [] and len(doc.scene.actuators) == 2
    doc.undo_stack.undo()
    assert doc.scene.controllers[0].name == name


def test_the_actuator_controller_form_switches_type_and_nests_a_trajectory(arm):
    w, doc = arm, arm.document
    w.editor.canvas.set_selection([("actuator", "elbow_motor")])
    assert [f.label for f in _inspector(w).fields][:4] == ["Name", "Force limit", "Type", "kp"]
    traj = _field(w, "trajectory")
    assert traj.combo.itemText(0) == "(none)"
    traj.combo.setCurrentIndex(traj.combo.findData("cubic"))
    c = doc.scene.actuators[1].controller
    assert c.trajectory.type == "cubic" and c.trajectory.t1 == 1.0
    # t1 must be > t0: the trajectory's own rule, refused with its message
    _field(w, "t1").spin.setValue(0.0)
    assert doc.scene.actuators[1].controller.trajectory.t1 == 1.0
    assert w.editor.widget.hint.text() == "t1: must be > t0 (0), not 0"
    grav = _field(w, "gravity compensation")
    assert grav.box.isChecked()
    grav.box.setChecked(False)
    assert doc.scene.actuators[1].controller.gravity_compensation is False
    _field(w, "Type").combo.setCurrentIndex(_field(w, "Type").combo.findData("constant"))
    assert doc.scene.actuators[1].controller.type == "constant"
    assert [f.label for f in _inspector(w).fields][2:] == ["Type", "value"]
    assert _field(w, "value").spin.suffix() == " N·m"
    doc.undo_stack.undo()
    assert doc.scene.actuators[1].controller.type == "pd"


@pytest.fixture
def wiggle():
    """A block type registered by the test, with keys the scene's dataclasses do not have."""
    declare("wiggle", [
        _num("gamma2", 1.0, gt=0, unit="1/s", help="switching gain"),
        Field("mode", "enum", default="joint", choices=("joint", "task"), help="the space it tracks in"),
        Field("adaptive", "boolean", default=False, help="adapt the gains"),
        _vec("center", (0.65, 0.0), unit="m", help="circle centre"),
        _num("radius", 0.1, gt=0, unit="m"),
        Field("cycles", "integer", default=3, ge=1, help="how many cycles"),
    ], block=True, help="a test law",
        signals=(Signal("phase", "", "the phase", labels=("free", "contact")),),
        overlays=(Overlay("circle", "desired circle", center="center", radius="radius"),))
    yield "wiggle"
    CONTROLLER_BLOCK.unregister("wiggle")
    BLOCK_SIGNALS.pop("wiggle")
    OVERLAYS.pop("wiggle")


def test_a_type_registered_later_gets_its_form_with_no_views_change(arm, wiggle):
    w, doc = arm, arm.document
    name = _add_block(w, wiggle, ["shoulder_motor", "elbow_motor"])
    b = doc.scene.controllers[0]
    assert (b.type, b.gamma2, b.mode, b.adaptive, b.center, b.radius, b.cycles) == (
        "wiggle", 1.0, "joint", False, [0.65, 0.0], 0.1, 3)
    labels = [f.label for f in _inspector(w).fields]
    assert labels[:5] == ["Name", "Type", "Actuators", "period", "delay"]
    assert labels[5:] == ["gamma2", "mode", "adaptive", "center x", "center y", "radius", "cycles"]
    _field(w, "gamma2").spin.setValue(4.5)
    _field(w, "mode").combo.setCurrentIndex(1)
    _field(w, "adaptive").box.setChecked(True)
    _field(w, "center y").spin.setValue(0.25)
    _field(w, "cycles").spin.setValue(5)
    _field(w, "radius").spin.setValue(0.0)          # > 0: refused
    assert w.editor.widget.hint.text() == "radius: must be > 0, not 0"
    b = doc.scene.controllers[0]
    assert (b.gamma2, b.mode, b.adaptive, b.center, b.radius, b.cycles) == (4.5, "task", True, [0.65, 0.25], 0.1, 5)
    assert type(b.cycles) is int
    d = scene_to_dict(doc.scene)["controllers"][0]
    assert d["gamma2"] == 4.5 and d["center"] == [0.65, 0.25] and validate_scene(doc.scene) == []
    # its help and its signals are listed
    texts = [lab.text() for lab in _inspector(w).scroll.widget().findChildren(QLabel)]
    assert "a test law" in texts and any(f"controller.{name}.phase" in t for t in texts)
    for _ in range(5):
        doc.undo_stack.undo()
    b = doc.scene.controllers[0]
    assert (b.gamma2, b.mode, b.adaptive, b.center, b.cycles) == (1.0, "joint", False, [0.65, 0.0], 3)


def test_the_scene_tree_adds_and_removes_blocks(arm):
    doc = arm.document
    from nsgui.views.scene_tree import SceneTree
    st = SceneTree(doc)
    section = next(st.tree.topLevelItem(0).child(k) for k in range(st.tree.topLevelItem(0).childCount())
                   if st.tree.topLevelItem(0).child(k).text(0).startswith("Actuators"))
    menu = st.context_menu(section)
    sub = menu.actions()[0].menu()
    assert menu.actions()[0].text() == "Add controller on shoulder_motor, elbow_motor"
    next(a for a in sub.actions() if a.text() == "computed_torque").trigger()
    assert [b.actuators for b in doc.scene.controllers] == [["shoulder_motor", "elbow_motor"]]
    ctrl = next(st.tree.topLevelItem(0).child(k) for k in range(st.tree.topLevelItem(0).childCount())
                if st.tree.topLevelItem(0).child(k).text(0).startswith("Controllers"))
    assert ctrl.text(0) == "Controllers (1)" and ctrl.child(0).text(0) == "computed_torque  ·  computed_torque"
    remove = st.context_menu(ctrl.child(0)).actions()
    assert [a.text() for a in remove] == ["Remove controller computed_torque"]
    remove[0].trigger()
    assert doc.scene.controllers == []


def test_the_tracking_scheme_form_names_scene_items_from_the_scene(window):
    w, doc = window, window.document
    doc.set_scene(load_scene(example_path("two_link_tracking")))
    name = doc.scene.controllers[0].name
    w.editor.canvas.set_selection([("controller", name)])
    body, contact = _field(w, "body"), _field(w, "contact")
    assert [body.combo.itemText(k) for k in range(body.combo.count())] == ["link1", "link2"]
    assert [contact.combo.itemText(k) for k in range(contact.combo.count())] == ["tip_ground"]
    assert body.combo.currentText() == "link2" and contact.combo.currentText() == "tip_ground"
    gamma2 = _field(w, "gamma2")
    assert "γ₂" in _inspector(w).form.labelForField(gamma2.widget).toolTip()
    gamma2.spin.setValue(60.0)
    assert doc.scene.controllers[0].gamma2 == 60.0
    doc.undo_stack.undo()
    assert doc.scene.controllers[0].gamma2 == 30.0


def test_maps_lists_of_numbers_and_optional_names_are_typed_as_text(window):
    """The standing law's posture (a map), gains (lists of numbers) and the manipulator's optional
    contact (a nullable string): text fields, parsed, refused with a reason when they do not parse or
    validate."""
    w, doc = window, window.document
    doc.set_scene(load_scene(example_path("biped_point_feet")))
    name = next(b.name for b in doc.scene.controllers if b.type == "standing")
    k = next(i for i, b in enumerate(doc.scene.controllers) if b.name == name)
    w.editor.canvas.set_selection([("controller", name)])
    posture = _field(w, "posture")
    coord = next(iter(doc.scene.controllers[k].posture), None) or doc.scene.joints[-1].name
    posture.commit(f"{coord} = 0.25")
    assert doc.scene.controllers[k].posture == {coord: 0.25}
    assert posture.edit.text() == f"{coord} = 0.25"
    posture.commit(f"{coord} = 0.25, {coord}_x = \"a\"")  # a text value: the validation refuses it
    assert doc.scene.controllers[k].posture == {coord: 0.25} and w.editor.widget.hint.text().startswith("posture")
    posture.commit("nonsense")
    assert doc.scene.controllers[k].posture == {coord: 0.25}
    assert "expected name = value pairs" in w.editor.widget.hint.text()
    gains = _field(w, "W (list, N·m/rad)")
    gains.commit("120, 130")  # two gains for four actuators: the validation's reason
    assert doc.scene.controllers[k].W == [3000.0] and w.editor.widget.hint.text().startswith("W")
    gains.commit("120, 130, 140, 150")
    assert doc.scene.controllers[k].W == [120.0, 130.0, 140.0, 150.0]
    gains.commit("1, x")
    assert "expected numbers" in w.editor.widget.hint.text() and doc.scene.controllers[k].W[0] == 120.0


def test_declared_units_resolve_to_the_driven_joints_unit_in_either_order():
    from nsgui.views.editor.controller_form import pick_unit, signal_unit
    cases = {"m or rad": ("rad", "m"), "N/m or N·m/rad": ("N·m/rad", "N/m"), "N·m/rad or N/m": ("N·m/rad", "N/m"),
             "N or N·m": ("N·m", "N"), "m/s or rad/s": ("rad/s", "m/s"), "s": ("s", "s")}
    for unit, (turning, sliding) in cases.items():
        assert (pick_unit(unit, True), pick_unit(unit, False), pick_unit(unit, None)) == (turning, sliding, unit)
    assert (signal_unit("coord", True), signal_unit("input", False), signal_unit("J", True)) == ("rad", "N", "J")


def test_a_python_block_takes_module_class_and_parameters(arm):
    w, doc = arm, arm.document
    name = _add_block(w, "python", ["shoulder_motor", "elbow_motor"])
    _field(w, "module").commit("my_law.py")
    _field(w, "class name").commit("Law")
    _field(w, "params").commit('kp = 10, targets = [0.5, -1.0], mode = "joint", on = true')
    b = doc.scene.controllers[0]
    assert (b.name, b.module, b.class_name) == (name, "my_law.py", "Law")
    assert b.params == {"kp": 10, "targets": [0.5, -1.0], "mode": "joint", "on": True}
    assert _field(w, "params").edit.text() == 'kp = 10, targets = [0.5, -1.0], mode = "joint", on = true'
    _field(w, "params").commit("kp = oops")
    assert "values in JSON" in w.editor.widget.hint.text() and doc.scene.controllers[0].params["kp"] == 10
