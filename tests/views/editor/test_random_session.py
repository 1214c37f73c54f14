"""A long random editing session (seeded): whatever the clicks, the scene stays structurally valid,
every problem message names an item, and undoing everything gives the empty scene back."""

import random

from nsgui.scene import scene_to_dict, validate_scene
from nsgui.views.document import empty_scene

STEPS = 100
TOOLS = ["disk", "box", "bar", "polygon", "pin", "slider", "weld", "ground", "wall", "segment",
         "spring", "damper", "actuator", "select"]


def test_random_session_keeps_scene_valid(window, mouse):
    rng = random.Random(4)
    doc, ed = window.document, window.editor

    def pt():
        return (round(rng.uniform(-1.0, 1.0), 2), round(rng.uniform(0.0, 1.6), 2))

    for step in range(STEPS):
        r = rng.random()
        if r < 0.08 and doc.undo_stack.canUndo():
            doc.undo_stack.undo()
        elif r < 0.12 and doc.undo_stack.canRedo():
            doc.undo_stack.redo()
        elif r < 0.17 and ed.canvas.selection:
            ed.delete_selection()
        elif r < 0.20 and ed.canvas.selection:
            ed.duplicate()
        else:
            tool = rng.choice(TOOLS)
            mouse.tool(tool)
            if tool == "polygon":
                for _ in range(rng.randint(2, 5)):
                    mouse.click(*pt())
                ed.canvas.keyPressEvent.__self__  # noqa: B018 - keep the canvas alive
                from PySide6.QtCore import Qt
                from PySide6.QtTest import QTest
                QTest.keyClick(ed.canvas, Qt.Key_Return)
            elif rng.random() < 0.5:
                mouse.click(*pt())
            else:
                mouse.drag(pt(), pt(), steps=3)
        problems = validate_scene(doc.scene)
        assert problems == [], (step, [str(p) for p in problems])
        for p in doc.all_problems():
            assert p.path.startswith("contacts[")
    assert len(doc.scene.bodies) > 3
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert scene_to_dict(doc.scene) == scene_to_dict(empty_scene())
