"""The inspector: every property of the selected item, with units and valid ranges.

Forms are rebuilt when the selection or the item's structure changes (a shape added, a joint
type or controller type changed) and otherwise refreshed in place, so editing a value keeps the
focus where it is.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget,
)

from nsgui.scene import JointLimits, body_mass_properties
from nsgui.scene.schema import ACTUATOR, BODY, CONTACT, FORCE, JOINT_LIMITS, SETTINGS, SHAPE

from nsgui.scene import edits as ops
from .commands import EditRefused, edit
from .contacts_panel import ContactTable
from .controller_form import actuator_controller_rows, add_block_row, block_rows, driven_by, signature
from .fields import BoolField, ChoiceField, ColorField, NumberField, TextField
from nsgui.scene.geometry import WORLD, joint_coords, joint_of

M = "m"
DEG = "°"
# how the inspector names some of the schema's choices
CHOICE_TEXT = {"lemke": "Lemke (LCP)", "nsgs": "NSGS", "time_stepping": "time stepping", "event_driven": "event-driven"}
# settings.event_driven_fallback: what the event-driven integrator does where events crowd
FALLBACK_TEXT = {"auto": "time stepping", "never": "stop, error"}  # (short: the form is narrow)


def _spec(f, **kw):
    """NumberField keywords from a schema field: its unit and the closed bounds it states (ge, le);
    `kw` gives the rest (the spin box needs finite bounds where the schema has none, or open ones)."""
    out = {"unit": f.unit} if f.unit else {}
    if f.ge is not None:
        out["lo"] = f.ge
    if f.le is not None:
        out["hi"] = f.le
    return {**out, **kw}


def _choices(values):
    return [(v, CHOICE_TEXT.get(v, v)) for v in values]


def _find(lst, name):
    return ops.find(lst, name)


def _value(text):
    """A read-only value that wraps instead of widening the inspector."""
    lab = QLabel(text)
    lab.setWordWrap(True)
    lab.setMinimumWidth(40)
    return lab


def _button(text):
    btn = QPushButton(text)
    btn.setMinimumWidth(40)  # long names are cut rather than widening the inspector
    btn.setToolTip(text)
    return btn


class Inspector(QWidget):
    message = Signal(str)
    selectRequested = Signal(object)  # a ref to select (e.g. a body's joint)

    def __init__(self, document, canvas, parent=None):
        super().__init__(parent)
        self.document, self.canvas = document, canvas
        self.fields = []
        self._signature = None
        self.read_only = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold; padding: 4px")
        outer.addWidget(self.title)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll, 1)
        document.changed.connect(self.update_form)
        canvas.selectionChanged.connect(self.update_form)
        self.update_form()

    # -- plumbing ---------------------------------------------------------------------------------
    def commit(self, field, value):
        if self.read_only:
            self.message.emit("Pause the simulation to edit")
            field.refresh()
            return
        ref = tuple(self.canvas.selection[:1])
        try:
            index = self.fields.index(field) if field in self.fields else -1
            edit(self.document, f"Set {field.label}", lambda s: field.set_(s, value),
                 merge_key=("inspector", ref, index, field.label))
        except EditRefused as e:
            self.message.emit(str(e))
            field.refresh()
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            self.message.emit(f"{field.label}: {e}")
            field.refresh()

    def set_read_only(self, ro):
        self.read_only = ro
        self.scroll.setEnabled(not ro)

    def _sig(self):
        sel = list(self.canvas.selection)
        s = self.document.scene
        parts = [tuple(sel)]
        if len(sel) > 1:
            parts += [tuple(b.name for b in s.controllers)]
        if len(sel) == 1:
            kind, name = sel[0]
            if kind == "body":
                b = _find(s.bodies, name)
                j = joint_of(s, name)
                parts += [tuple((sh.name, sh.type) for sh in b.shapes) if b else (),
                          (j.name, j.type) if j else None]
            elif kind == "joint":
                j = _find(s.joints, name)
                parts += [j.type if j else None, j.limits is None if j else None]
            elif kind in ("actuator", "controller"):
                parts += [signature(s, kind, name)]
            elif kind == "force":
                f = _find(s.forces, name)
                parts += [f.type if f else None]
            elif kind == "obstacle":
                o = _find(s.obstacles, name)
                parts += [o.type if o else None]
            elif kind == "contact":
                c = _find(s.contacts, name)
                parts += [c.impact_law if c else None]  # the restitution fields' ranges depend on it
        return tuple(map(repr, parts))

    def update_form(self):
        sig = self._sig()
        if sig == self._signature:
            for f in self.fields:
                f.refresh()
            if getattr(self, "contact_table", None) is not None:
                self.contact_table.schedule()
            return
        self._signature = sig
        self.fields = []
        self.contact_table = None
        page = QWidget()
        self.form = QFormLayout(page)
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        sel = self.canvas.selection
        s = self.document.scene
        if not sel:
            self.title.setText("Scene")
            self._scene_form()
        elif len(sel) > 1:
            self.title.setText(f"{len(sel)} items selected")
            self._selection_form(sel)
        else:
            kind, name = sel[0]
            self.title.setText(f"{kind.capitalize()} “{name}”")
            builder = getattr(self, f"_{kind}_form")
            try:
                builder(name)
            except Exception as e:  # a half-edited item: show what is wrong instead of crashing
                self.form.addRow(QLabel(f"cannot show this item: {e}"))
        # the old page may hold the widget whose signal got us here: delete it later, not now
        old_page = self.scroll.takeWidget()
        if old_page is not None:
            old_page.deleteLater()
        self.scroll.setWidget(page)
        del s

    def _add(self, field):
        self.fields.append(field)
        self.form.addRow(field.label, field.widget)
        return field

    def _section(self, text):
        lab = QLabel(text)
        lab.setStyleSheet("font-weight: bold; margin-top: 8px")
        self.form.addRow(lab)

    def _note(self, text):
        lab = QLabel(text)
        lab.setWordWrap(True)
        lab.setStyleSheet("color: #555")
        self.form.addRow(lab)

    # -- field factories --------------------------------------------------------------------------
    def _num(self, label, getter, setter, **kw):
        return self._add(NumberField(self, getter, setter, label, **kw))

    def _vec(self, label, getter, setter, unit=M, **kw):
        """Two rows x/y for a 2-vector."""
        def set_k(k):
            def s(scene, v):
                vec = list(getter(scene))
                vec[k] = v
                setter(scene, vec)
            return s
        self._num(f"{label} x", lambda sc: getter(sc)[0], set_k(0), unit=unit, **kw)
        self._num(f"{label} y", lambda sc: getter(sc)[1], set_k(1), unit=unit, **kw)

    def _name(self, kind, name, lst_of):
        def set_name(scene, v):
            ops.rename_item(scene, kind, name, v)
        f = self._add(TextField(self, lambda s: name, set_name, "Name"))
        orig_commit = f.commit

        def commit(v):
            if v.strip() != name:
                orig_commit(v)
                self.canvas.set_selection([(kind, v.strip())] if _find(lst_of(self.document.scene), v.strip()) else [])
        f.commit = commit

    def _coords(self, joint_name):
        """Initial position and velocity of a joint's coordinates."""
        s = self.document.scene
        j = _find(s.joints, joint_name)
        if j is None:
            return
        cs = joint_coords(j)
        if not cs:
            self._note("Welded: no coordinate of its own.")
            return
        self._section("Initial state")
        for c in cs:
            angle = c.endswith(".theta") or (j.type == "revolute" and c == j.name)
            unit, vunit = (DEG, "°/s") if angle else (M, "m/s")
            short = c.split(".")[-1] if "." in c else ("angle" if angle else "position")
            self._num(f"{short}", lambda sc, c=c: sc.initial.q.get(c, 0.0),
                      lambda sc, v, c=c: sc.initial.q.__setitem__(c, v), unit=unit, degrees=angle,
                      step=1.0 if angle else 0.01)
        for c in cs:
            angle = c.endswith(".theta") or (j.type == "revolute" and c == j.name)
            vunit = "°/s" if angle else "m/s"
            short = c.split(".")[-1] if "." in c else ("angle" if angle else "position")
            self._num(f"d{short}/dt", lambda sc, c=c: sc.initial.v.get(c, 0.0),
                      lambda sc, v, c=c: sc.initial.v.__setitem__(c, v), unit=vunit, degrees=angle,
                      step=1.0 if angle else 0.01)

    # -- forms ------------------------------------------------------------------------------------
    def _scene_form(self):
        self._note("Nothing selected: scene settings. Pick a tool in the palette to add items.")
        self._add(TextField(self, lambda s: s.name, lambda s, v: setattr(s, "name", v), "Title"))
        self._vec("Gravity", lambda s: s.gravity, lambda s, v: setattr(s, "gravity", v), unit="m/s²")
        self._section("Simulation")
        st = lambda s: s.settings  # noqa: E731
        self._num("Time step h", lambda s: st(s).dt, lambda s, v: setattr(st(s), "dt", v),
                  **_spec(SETTINGS["dt"], lo=1e-6, hi=0.1), decimals=6, step=0.0005)
        self._num("Duration", lambda s: st(s).duration, lambda s, v: setattr(st(s), "duration", v),
                  **_spec(SETTINGS["duration"], lo=0.001, hi=1e6), decimals=3, step=0.5)
        self._num("θ (Moreau–Jean)", lambda s: st(s).theta, lambda s, v: setattr(st(s), "theta", v),
                  **_spec(SETTINGS["theta"]), decimals=3, step=0.05)
        self._num("γ (activation)", lambda s: st(s).gamma, lambda s, v: setattr(st(s), "gamma", v),
                  **_spec(SETTINGS["gamma"]), decimals=3, step=0.05)
        self._add(ChoiceField(self, lambda s: st(s).solver, lambda s, v: setattr(st(s), "solver", v),
                              "Solver", _choices(SETTINGS["solver"].choices)))
        self._add(BoolField(self, lambda s: st(s).projection, lambda s, v: setattr(st(s), "projection", v),
                            "Projection", "project positions after each step"))
        self._add(ChoiceField(self, lambda s: st(s).integrator, lambda s, v: setattr(st(s), "integrator", v),
                              "Integrator", _choices(SETTINGS["integrator"].choices)))
        self._add(ChoiceField(self, lambda s: st(s).event_driven_fallback,
                              lambda s, v: setattr(st(s), "event_driven_fallback", v), "Crowded events",
                              [(v, FALLBACK_TEXT[v]) for v in SETTINGS["event_driven_fallback"].choices]))

    def _body_form(self, name):
        s = self.document.scene
        body = _find(s.bodies, name)
        B = lambda sc: _find(sc.bodies, name)  # noqa: E731
        self._name("body", name, lambda sc: sc.bodies)
        self._add(ColorField(self, lambda sc: B(sc).color, lambda sc, v: setattr(B(sc), "color", v), "Colour"))
        self._section("Mass")

        def props(sc):
            return body_mass_properties(B(sc))
        self._num("Density", lambda sc: B(sc).density, lambda sc, v: setattr(B(sc), "density", v),
                  **_spec(BODY["density"], lo=1e-6, hi=1e7), decimals=3, step=10, nullable=True,
                  auto_value=lambda sc: 0.0, auto_text="none")
        self._num("Mass", lambda sc: B(sc).mass, lambda sc, v: setattr(B(sc), "mass", v),
                  **_spec(BODY["mass"], lo=1e-9, hi=1e9), decimals=4, step=0.1, nullable=True,
                  auto_value=lambda sc: props(sc)[0], auto_text="auto")
        self._num("Inertia", lambda sc: B(sc).inertia, lambda sc, v: setattr(B(sc), "inertia", v),
                  **_spec(BODY["inertia"], hi=1e9), decimals=6, step=0.001, nullable=True,
                  auto_value=lambda sc: props(sc)[1], auto_text="auto")
        for sh in body.shapes:
            self._shape_rows(name, sh)
        j = joint_of(s, name)
        self._section("Joint")
        if j is not None:
            kind = {"free": "free", "revolute": "pin", "prismatic": "slider", "fixed": "weld"}[j.type]
            btn = _button(f"{kind} to {j.parent} ({j.name})")
            btn.setToolTip("select this joint")
            btn.clicked.connect(lambda: self.canvas.set_selection([("joint", j.name)]))
            self.form.addRow("Attached by", btn)
            self._coords(j.name)
        self._section("Contacts")
        self._note("Tick the pairs that can collide; e_N is Newton's restitution, "
                   "e = 2e_N/(1+e_N) the thesis's Moreau coefficient, μ Coulomb friction.")
        self.contact_table = ContactTable(self.document, body=name, on_commit=self._contact_commit)
        self.form.addRow(self.contact_table)

    def _contact_commit(self, text, fn):
        if self.read_only:
            self.message.emit("Pause the simulation to edit")
            return
        try:
            edit(self.document, text, fn)
        except EditRefused as e:
            self.message.emit(str(e))

    def _shape_rows(self, body_name, sh):
        sname = sh.name
        S = lambda sc: _find(_find(sc.bodies, body_name).shapes, sname)  # noqa: E731
        self._section(f"Shape {sname} ({sh.type})")

        def attr(key, label, unit=M, lo=1e-4, hi=1e4, **kw):
            self._num(label, lambda sc: getattr(S(sc), key), lambda sc, v: setattr(S(sc), key, v),
                      unit=unit, lo=lo, hi=hi, **kw)
        if sh.type == "disk":
            attr("radius", "Radius")
        elif sh.type == "box":
            attr("width", "Width")
            attr("height", "Height")
        elif sh.type == "capsule":
            attr("length", "Length")
            attr("radius", "Radius", lo=SHAPE.types["capsule"]["radius"].ge)
        elif sh.type == "polygon":
            self._note(f"{len(sh.vertices)} corners (drawn point by point)")
        self._vec("Offset", lambda sc: S(sc).offset, lambda sc, v: setattr(S(sc), "offset", v), lo=-1e4, hi=1e4)
        if sh.type != "point":
            self._num("Shape angle", lambda sc: S(sc).angle, lambda sc, v: setattr(S(sc), "angle", v),
                      unit=DEG, degrees=True, lo=-360, hi=360, step=5)

    def _joint_form(self, name):
        s = self.document.scene
        j = _find(s.joints, name)
        J = lambda sc: _find(sc.joints, name)  # noqa: E731
        self._name("joint", name, lambda sc: sc.joints)
        kind = {"free": "free", "revolute": "pin (revolute)", "prismatic": "slider (prismatic)",
                "fixed": "weld (fixed)"}[j.type]
        self.form.addRow("Type", _value(kind))
        self.form.addRow("Parent", _value(j.parent))
        self.form.addRow("Child", _value(j.child))
        if j.type == "free":
            self._note("A free joint lets the body move on its own. Use the pin, slider or weld "
                       "tools to attach it.")
            self._coords(name)
            return
        self._vec("Anchor on parent", lambda sc: J(sc).anchor_parent,
                  lambda sc, v: setattr(J(sc), "anchor_parent", v), lo=-1e4, hi=1e4)
        self._vec("Anchor on child", lambda sc: J(sc).anchor_child,
                  lambda sc, v: setattr(J(sc), "anchor_child", v), lo=-1e4, hi=1e4)
        self._num("Angle offset", lambda sc: J(sc).angle, lambda sc, v: setattr(J(sc), "angle", v),
                  unit=DEG, degrees=True, lo=-720, hi=720, step=5)
        if j.type == "prismatic":
            def get_axis(sc):
                a = J(sc).axis
                return math.atan2(a[1], a[0])

            def set_axis(sc, v):
                J(sc).axis = [math.cos(v), math.sin(v)]
            self._num("Slide direction", get_axis, set_axis, unit=DEG, degrees=True, lo=-360, hi=360, step=5)
        if j.type in ("revolute", "prismatic"):
            unit = DEG if j.type == "revolute" else M
            deg = j.type == "revolute"
            self._section("Limits")

            def set_enabled(sc, on):
                J(sc).limits = JointLimits(lower=-1.0 if not deg else -math.pi / 2,
                                           upper=1.0 if not deg else math.pi / 2) if on else None
            self._add(BoolField(self, lambda sc: J(sc).limits is not None, set_enabled, "Limited",
                                "stop the joint at limits"))
            if j.limits is not None:
                L = lambda sc: J(sc).limits  # noqa: E731
                self._num("Lower", lambda sc: L(sc).lower, lambda sc, v: setattr(L(sc), "lower", v), unit=unit,
                          degrees=deg, nullable=True, auto_text="none", step=5 if deg else 0.01)
                self._num("Upper", lambda sc: L(sc).upper, lambda sc, v: setattr(L(sc), "upper", v), unit=unit,
                          degrees=deg, nullable=True, auto_text="none", step=5 if deg else 0.01)
                self._num("Limit e_N", lambda sc: L(sc).restitution,
                          lambda sc, v: setattr(L(sc), "restitution", v), **_spec(JOINT_LIMITS["restitution"]),
                          step=0.05)
            acts = [a.name for a in s.actuators if a.joint == name]
            if acts:
                btn = _button(f"actuator {acts[0]}")
                btn.clicked.connect(lambda: self.canvas.set_selection([("actuator", acts[0])]))
                self.form.addRow("Driven by", btn)
            springs = [f.name for f in s.forces if f.type == "joint_spring" and f.joint == name]
            for fname in springs:
                btn = _button(f"spring {fname}")
                btn.clicked.connect(lambda _=False, n=fname: self.canvas.set_selection([("force", n)]))
                self.form.addRow("Joint spring", btn)
            add = _button("Add a spring–damper on this joint")
            add.clicked.connect(lambda: self._add_joint_spring(name))
            self.form.addRow(add)
        self._coords(name)

    def _loop_form(self, name):
        lj = _find(self.document.scene.loops, name)
        L = lambda sc: _find(sc.loops, name)  # noqa: E731
        self._name("loop", name, lambda sc: sc.loops)
        kind = {"revolute": "pin (revolute)", "prismatic": "slider (prismatic)"}[lj.type]
        self.form.addRow("Type", _value(f"loop joint, {kind}"))
        self.form.addRow("Between", _value(f"{lj.a.body} and {lj.b.body}"))
        self._note("Closes a kinematic loop between two bodies already joined to the tree: solved as a "
                   "bilateral constraint; its force is the signal loop.<name>.fx/fy.")
        self._vec("Anchor on a", lambda sc: L(sc).a.point, lambda sc, v: setattr(L(sc).a, "point", v),
                  lo=-1e4, hi=1e4)
        self._vec("Anchor on b", lambda sc: L(sc).b.point, lambda sc, v: setattr(L(sc).b, "point", v),
                  lo=-1e4, hi=1e4)
        if lj.type == "prismatic":
            def get_axis(sc):
                a = L(sc).axis
                return math.atan2(a[1], a[0])

            def set_axis(sc, v):
                L(sc).axis = [math.cos(v), math.sin(v)]
            self._num("Slide direction (in a)", get_axis, set_axis, unit=DEG, degrees=True, lo=-360, hi=360, step=5)

    def _add_joint_spring(self, joint_name):
        out = {}

        def run(scene):
            out["name"] = ops.add_joint_spring(scene, joint_name)
        self._contact_commit("Add joint spring", run)
        if out.get("name"):
            self.canvas.set_selection([("force", out["name"])])

    def _obstacle_form(self, name):
        o = _find(self.document.scene.obstacles, name)
        O = lambda sc: _find(sc.obstacles, name)  # noqa: E731
        self._name("obstacle", name, lambda sc: sc.obstacles)
        self.form.addRow("Type", _value(o.type))
        if o.type == "segment":
            self._vec("End a", lambda sc: O(sc).a, lambda sc, v: setattr(O(sc), "a", v), lo=-1e4, hi=1e4)
            self._vec("End b", lambda sc: O(sc).b, lambda sc, v: setattr(O(sc), "b", v), lo=-1e4, hi=1e4)
            self._note("The free side is to the left of a → b.")
        else:
            self._vec("Point", lambda sc: O(sc).point, lambda sc, v: setattr(O(sc), "point", v), lo=-1e4, hi=1e4)

            def get_slope(sc):
                n = O(sc).normal
                return math.atan2(-n[0], n[1])

            def set_slope(sc, a):
                O(sc).normal = [-math.sin(a), math.cos(a)]
            self._num("Slope α", get_slope, set_slope, unit=DEG, degrees=True, lo=-180, hi=180, step=1)
            self._note("normal = (−sin α, cos α): α = 0 is a floor, α = ±90° a wall.")
        self._section("Contacts")
        self.contact_table = ContactTable(self.document, obstacle=name, on_commit=self._contact_commit)
        self.form.addRow(self.contact_table)

    def _contact_form(self, name):
        c = _find(self.document.scene.contacts, name)
        C = lambda sc: _find(sc.contacts, name)  # noqa: E731
        self._name("contact", name, lambda sc: sc.contacts)
        other = f"obstacle {c.b.obstacle}" if c.b.obstacle else f"{c.b.body}.{c.b.shape}"
        self.form.addRow("Between", _value(f"{c.a.body}.{c.a.shape}  and  {other}"))
        law = CONTACT["impact_law"]
        self._add(ChoiceField(self, lambda sc: C(sc).impact_law, lambda sc, v: ops.set_impact_law(C(sc), v),
                              "Impact law", _choices(law.choices)))
        moreau = c.impact_law == "moreau"  # its restitution is Moreau's e in [0, 2), else e_N in [0, 1]
        self._num("Restitution e_N", lambda sc: ops.newton_e(C(sc)), lambda sc, v: ops.set_newton_e(C(sc), v),
                  lo=0.0, hi=1e3 if moreau else 1.0, step=0.05)
        self._num("Moreau e", lambda sc: ops.moreau_e(C(sc)), lambda sc, v: ops.set_moreau_e(C(sc), v),
                  lo=0.0, hi=1.999 if moreau else 1.0, step=0.05)
        self._num("Friction μ", lambda sc: C(sc).friction, lambda sc, v: setattr(C(sc), "friction", v),
                  **_spec(CONTACT["friction"], hi=100), step=0.05)
        self._num("Tangential e_T", lambda sc: C(sc).tangential_restitution,
                  lambda sc, v: setattr(C(sc), "tangential_restitution", v),
                  **_spec(CONTACT["tangential_restitution"]), step=0.05)
        self._note("Newton: U⁺ = −e_N U⁻; the thesis's Moreau e = 2e_N/(1+e_N) is the same law. "
                   "At a friction impact a sticking point leaves with U_T⁺ = −e_T U_T⁻.")

    def _force_form(self, name):
        f = _find(self.document.scene.forces, name)
        F = lambda sc: _find(sc.forces, name)  # noqa: E731
        self._name("force", name, lambda sc: sc.forces)
        if f.type == "spring":
            spring = FORCE.types["spring"]
            self.form.addRow("Between", _value(f"{f.a.body} and {f.b.body}"))
            self._num("Stiffness k", lambda sc: F(sc).stiffness, lambda sc, v: setattr(F(sc), "stiffness", v),
                      **_spec(spring["stiffness"], hi=1e9), decimals=3, step=10)
            self._num("Damping c", lambda sc: F(sc).damping, lambda sc, v: setattr(F(sc), "damping", v),
                      **_spec(spring["damping"], hi=1e9), decimals=3, step=1)
            self._num("Rest length", lambda sc: F(sc).rest_length, lambda sc, v: setattr(F(sc), "rest_length", v),
                      **_spec(spring["rest_length"], hi=1e4), nullable=True, auto_value=lambda sc: self._spring_length(sc, name),
                      auto_text="as drawn")
            self._vec("End a (in its body)", lambda sc: F(sc).a.point, lambda sc, v: setattr(F(sc).a, "point", v),
                      lo=-1e4, hi=1e4)
            self._vec("End b (in its body)", lambda sc: F(sc).b.point, lambda sc, v: setattr(F(sc).b, "point", v),
                      lo=-1e4, hi=1e4)
        elif f.type == "joint_spring":
            self.form.addRow("Joint", _value(str(f.joint)))
            self._num("Stiffness k", lambda sc: F(sc).stiffness, lambda sc, v: setattr(F(sc), "stiffness", v),
                      lo=0, hi=1e9, decimals=3, step=1)
            self._num("Damping c", lambda sc: F(sc).damping, lambda sc, v: setattr(F(sc), "damping", v),
                      lo=0, hi=1e9, decimals=3, step=0.1)
            self._num("Rest", lambda sc: F(sc).rest, lambda sc, v: setattr(F(sc), "rest", v), lo=-1e4, hi=1e4)
        else:
            self._note(f"{f.type} force element")

    def _spring_length(self, scene, name):
        from .items import _spring_ends
        from nsgui.scene.geometry import body_poses
        import numpy as np
        a, b = _spring_ends(_find(scene.forces, name), body_poses(scene))
        return float(np.linalg.norm(b - a))

    def _actuator_form(self, name):
        a = _find(self.document.scene.actuators, name)
        A = lambda sc: _find(sc.actuators, name)  # noqa: E731
        self._name("actuator", name, lambda sc: sc.actuators)
        self.form.addRow("Joint", _value(a.joint))
        self._num("Force limit", lambda sc: A(sc).limit, lambda sc, v: setattr(A(sc), "limit", v),
                  **_spec(ACTUATOR["limit"], lo=1e-9, hi=1e9), decimals=3, step=1, nullable=True, auto_text="none",
                  auto_value=lambda sc: 0.0)
        self._section("Controller")
        actuator_controller_rows(self, name)

    def _controller_form(self, name):
        block_rows(self, name)

    def _selection_form(self, sel):
        self.form.addRow(QLabel("Drag to move them together; Delete removes them;\n"
                                "Ctrl+C / Ctrl+V copies them."))
        if all(kind == "actuator" for kind, _ in sel):
            s = self.document.scene
            free = [n for _, n in sel if driven_by(s, n) is None]
            if free:
                self._section("Controller")
                add_block_row(self, free)


__all__ = ["Inspector", "Qt", "WORLD"]
