"""The plot cards as a user reads them (issue 8, items 6 and 7).

Axes: every value axis names the units of its curves, time is "t (s)" on every card (also empty,
also for a run of a few milliseconds), and no axis rescales its values to an SI prefix (the arm's
angles of 0.6-0.9 rad read 0.6-0.9, not 600-900). Contact forces: the card plots forces in newtons,
one curve per contact (a multi-point contact as the sum over its points); every contact can be
drawn, and when there are more than the card draws at first, its header says so and offers the rest."""

import os

import numpy as np
import pytest

from nsgui.engine import codes
from tests.helpers import SCENES

from .test_window import run_to

pytestmark = pytest.mark.gui


@pytest.fixture
def window(class_window):
    """One window for the tests below (`class_window`), put back to File ▸ New first: the plot panel
    keeps a card a test added (or a contact it picked) while the next scene has the same signals,
    and rebuilds its default cards when the signals change (the empty scene's, then the test's)."""
    class_window.document.new()
    assert class_window.controller.model.nbodies == 0
    return class_window


def run(window, scene, t):
    assert window.open_scene(os.path.join(SCENES, f"{scene}.json"))
    run_to(window, t)
    return window.controller


def ticks(card, side):
    """The tick labels the axis draws for its current range, as pyqtgraph writes them."""
    axis = card.item.getAxis(side)
    lo, hi = axis.range
    size = axis.width() if side == "bottom" else axis.height()
    out = []
    for spacing, values in axis.tickValues(min(lo, hi), max(lo, hi), size)[:1]:  # major ticks
        out += axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
    return out


def values_of(strings):
    return [float(s.replace("−", "-")) for s in strings]


def assert_axes_in_si(card):
    for side in ("left", "bottom"):
        axis = card.item.getAxis(side)
        assert axis.autoSIPrefixScale == 1.0 and not axis.autoSIPrefix, (card.title, side)


DEFAULT_UNITS = {"Energy": "J", "Coordinates": "m, rad", "Velocities": "m/s, rad/s", "Contact gaps": "m",
                 "Contact forces": "N"}
ARM_UNITS = {"Energy": "J", "Coordinates": "rad", "Velocities": "rad/s", "Contact gaps": "m",
             "Contact forces": "N", "Actuator torques": "N·m"}


def contact_names(window):
    return [ct.name for ct in window.document.scene.contacts]


class TestOneWindow:
    """The tests on the shared window."""

    @pytest.mark.parametrize("scene, units", [("default", DEFAULT_UNITS), ("two_link_arm", ARM_UNITS)])
    def test_every_value_axis_names_its_units_and_time_is_in_seconds(self, window, scene, units):
        c = run(window, scene, 1.0)
        cards = {card.title: card for card in window.plots.cards}
        for title, unit in units.items():
            card = cards[title]
            assert card.axis_text("left") == unit, title
            assert card.axis_text("bottom") == "t (s)", title
            assert card.value_label() == f"{title} ({unit})"  # what an exported figure says
            assert_axes_in_si(card)
            t_ticks = values_of(ticks(card, "bottom"))
            assert len(t_ticks) >= 3 and 0.0 <= min(t_ticks) and max(t_ticks) <= 1.0 + 1e-9, (title, t_ticks)
            assert card.cursor_line.value() == pytest.approx(c.cursor_time)  # same seconds as the axis
        assert set(cards) == set(units) | {"Phase portrait"}

    def test_phase_portrait_of_the_arm_reads_radians_unscaled(self, window):
        run(window, "two_link_arm", 3.0)
        phase = window.plots.plot_named("Phase portrait")
        assert phase.combo.currentText() == "shoulder"
        assert phase.axis_text("bottom") == "q.shoulder (rad)"
        assert phase.axis_text("left") == "v.shoulder (rad/s)"
        assert_axes_in_si(phase)
        q = window.controller.column("q.shoulder")
        x_ticks = values_of(ticks(phase, "bottom"))
        assert len(x_ticks) >= 2
        # the ticks span the drawn angles (0.59 .. 0.9 rad) in radians, not in milliradians
        assert min(q) - 0.2 <= min(x_ticks) and max(x_ticks) <= max(q) + 0.2, x_ticks

    def test_time_is_in_seconds_on_an_empty_plot_and_at_the_first_milliseconds(self, window):
        c = run(window, "bouncing_ball", 0.004)                    # a run of 4 ms
        empty = window.plots.add_time_plot("Plot", [])
        window.plots.refresh_all()
        assert empty.axis_text("bottom") == "t (s)" and empty.axis_text("left") == ""   # no curve, no unit
        assert_axes_in_si(empty)
        empty.add_signal("q.ball.y")
        assert empty.axis_text("left") == "m"
        for card in window.plots.time_plots():
            assert card.axis_text("bottom") == "t (s)", card.title
            if card.curves:
                t_ticks = values_of(ticks(card, "bottom"))
                assert t_ticks and max(t_ticks) <= 0.01, (card.title, t_ticks)   # 0.004 s, not 4 (ms)
        assert 0.0 < c.cursor_time < 0.01

    def test_contact_forces_card_plots_every_contact_of_the_default_scene_in_newtons(self, window):
        c = run(window, "default", 1.0)
        card = window.plots.plot_named("Contact forces")
        names = contact_names(window)
        assert "ball_ground" in names
        wanted = [f"contact.{n}.fn" for n in names]
        assert len(names) <= 8 and list(card.curves) == wanted      # they fit: all drawn at once
        assert card.picker.text().startswith(f"{len(names)} of {len(names)} contacts")
        rec = c.recorder
        for name in names:
            points = [p for p in rec.names if p.startswith(f"contact.{name}") and p.endswith(".fn")]
            expected = sum(rec.column(p) for p in points)           # a box corner per point: their sum
            got = c.column(f"contact.{name}.fn")
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
            x, y = card.curves[f"contact.{name}.fn"].getData()
            assert len(x) > 0 and np.nanmax(y) <= np.nanmax(expected) + 1e-9
        # the ball on the ground between bounces carries its weight (0.5 kg): a force, not m g h
        ball = c.column("contact.ball_ground.fn")
        status = c.column("contact.ball_ground.status")
        resting = np.flatnonzero(status == codes.STICK)
        if len(resting):
            assert np.median(ball[resting]) > 1.0
        # tangential forces are offered too
        card._fill_picker()
        texts = [a.text() for a in card.picker.menu().actions()]
        assert any(t.startswith("ball_ground.ft") for t in texts)
        assert any(t.startswith("box_ground.fn (Σ 4 points)") for t in texts)

    def test_more_contacts_than_fit_are_said_and_can_be_picked(self, window):
        c = run(window, "bead_column_10", 0.3)                     # 10 contacts, a card draws 8 at first
        card = window.plots.plot_named("Contact forces")
        assert len(card.curves) == 8
        assert card.picker.text().startswith("8 of 10 contacts")   # not a silent cut
        assert "font-weight: bold" in card.picker.styleSheet()
        card._fill_picker()
        menu = card.picker.menu()
        action = next(a for a in menu.actions() if a.text() == "bead9_bead8.fn")
        assert action.isCheckable() and not action.isChecked()
        action.trigger()                                           # the user picks the top contact
        window.plots.refresh_all()
        assert "contact.bead9_bead8.fn" in card.curves
        assert card.picker.text().startswith("9 of 10 contacts")
        x, y = card.curves["contact.bead9_bead8.fn"].getData()
        rec = c.recorder
        assert len(x) > 0 and np.nanmax(y) == pytest.approx(rec.column("contact.bead9_bead8.fn").max())
        next(a for a in menu.actions() if a.text().startswith("Draw all")).trigger()
        assert card.picker.text().startswith("10 of 10 contacts")
        assert "font-weight: bold" not in card.picker.styleSheet()
