"""The window's consent to run a scene's Python code (`python` controller blocks).

Opening a scene never runs code. Before the first run of a scene whose controllers are code, a
dialog names the file and asks; the answer is remembered for this session per file and content
hash (an edited file is asked again). The consent then goes to the engine
(python_block.set_consent): the window imports the module to read the class's declarations
(parameters and signals), the simulation process imports it again and runs `sample` there.
"""
from __future__ import annotations

import os

from PySide6.QtWidgets import QMessageBox


def ask_user(parent, refused) -> bool:
    """The dialog (tests replace it): may the code of `refused` (a python_block.CodeRefused) run?"""
    box = QMessageBox(QMessageBox.Warning, "Run Python code?",
                      f"This scene's controller {refused.where} runs Python code from\n\n{refused.path}\n\n"
                      "Code can do anything your user account can. Run it only if you trust this file.",
                      QMessageBox.Yes | QMessageBox.No, parent)
    box.setDefaultButton(QMessageBox.No)
    return box.exec() == QMessageBox.Yes


class CodeConsent:
    """The answers of this session, {(file, sha256): yes/no}, and the engine's consent made of them."""

    def __init__(self):
        self.answers: dict = {}
        self.allow_all = False  # `nsgui SCENE --allow-code`: no question

    def prepare(self, scene_path):
        """Before compiling the scene of `scene_path` (None: unsaved): its folder and the files agreed to."""
        from nsgui.engine.control.python_block import Consent, set_consent
        base = os.path.dirname(os.path.abspath(scene_path)) if scene_path else None
        set_consent(Consent(base, self.allow_all, frozenset(k for k, yes in self.answers.items() if yes)))

    def decide(self, parent, refused, scene_path, ask=True):
        """True once the code of `refused` may run (asking if not answered yet and `ask`)."""
        key = (refused.path, refused.digest)
        if key not in self.answers:
            if not ask:
                return False
            self.answers[key] = bool(ask_user(parent, refused))
        self.prepare(scene_path)
        return self.answers[key]
