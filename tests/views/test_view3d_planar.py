"""The 3D view of a planar scene: obstacles are always drawn, the default camera looks at the plane
face-on without perspective (orbit and perspective one toggle away, remembered), and normal-force
arrows have a visible length whatever the masses, times the user's factor. Checked on rendered
pixels and on the drawn data mapped to the screen by the view's own transform."""

import copy
import glob
import json
import os

import numpy as np
import pytest

from .test_window import ROOT, run_to

pytestmark = pytest.mark.gui

SCENES = os.path.join(ROOT, "resources", "scenes")
EXAMPLES = sorted(glob.glob(os.path.join(SCENES, "*.json")))
SIZE = (800, 600)

BOX_ON_GROUND = {
    "format": "nsgui-scene", "version": 1, "name": "box on the ground",
    "bodies": [{"name": "box", "mass": 1.0, "color": "#d6a04c",
                "shapes": [{"type": "box", "width": 0.4, "height": 0.3}]}],
    "joints": [{"name": "box", "type": "free", "child": "box"}],
    "obstacles": [{"name": "ground", "type": "ground"}],
    "contacts": [{"name": "box_ground", "a": {"body": "box", "shape": "box0"}, "b": {"obstacle": "ground"},
                  "friction": 0.5}],
    "initial": {"q": {"box.x": 0.3, "box.y": 0.15}},
    "settings": {"dt": 0.001},
}


@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings
    return QSettings(str(tmp_path / "nsgui.ini"), QSettings.IniFormat)


@pytest.fixture(scope="class")
def planar_window(qapp, gl, tmp_path_factory):
    """One window for the tests of `TestOneWindow` (closed after them, see `class_window`), with a
    settings file of its own: each test opens its scene first, which gives the 3D view the new model
    and fits its camera to it. The orbit test makes a window of its own, with settings of its own,
    to see the choice remembered by a new window."""
    from PySide6.QtCore import QSettings
    from .conftest import shared_window
    ini = tmp_path_factory.mktemp("planar") / "nsgui.ini"
    yield from shared_window(tmp_path_factory, QSettings(str(ini), QSettings.IniFormat))


@pytest.fixture
def window(planar_window):
    """The shared window put back to a new window's view settings: front view, force arrows x 1."""
    view = planar_window.view3d
    view.act_orbit.setChecked(False)
    next(a for a in view.force_actions.actions() if a.data() == 1.0).trigger()
    assert not view.orbit and view.force_scale == 1.0
    return planar_window


@pytest.fixture
def own_window(qtbot, gl, settings):
    """A new window with the test's own settings file."""
    from .conftest import shown_window
    yield from shown_window(qtbot, settings)


def to_pixels(view, points):
    """Canvas pixels (x right, y down) of world points (n, 3) through the view's transform."""
    tr = view._points.get_transform("visual", "canvas")
    p = tr.map(np.asarray(points, float))
    return p[:, :2] / p[:, 3:4]


def render(view):
    img = view.render_image(SIZE)[:, :, :3].astype(int)  # (the canvas now has SIZE)
    return img


def background():
    from nsgui.views.view3d import BACKGROUND
    h = BACKGROUND.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)])


def is_background(img, xy):
    x, y = int(round(xy[0])), int(round(xy[1]))
    return np.abs(img[y, x] - background()).max() < 6


def scene_file(tmp_path, scene, name="scene.json"):
    path = tmp_path / name
    path.write_text(json.dumps(scene))
    return str(path)


def test_orbit_view_is_one_toggle_away_and_remembered(own_window, settings, qtbot):
    window = own_window
    view = window.view3d
    assert window.open_scene(os.path.join(SCENES, "bouncing_ball.json"))
    assert view.act_orbit in window.menus["View"].actions() and not view.act_orbit.isChecked()
    button = view._orbit_button
    assert button.isVisible() and button.defaultAction() is view.act_orbit
    button.click()
    cam = view.view.camera
    assert view.orbit and cam.fov > 0 and cam.azimuth != 90.0
    px = to_pixels(view, [[0, 0, 0], [0, 0, 0.5]])
    assert np.abs(px[1] - px[0]).max() > 1  # depth shows
    assert settings.value("view3d/orbit", type=bool) is True
    from nsgui.views.main_window import MainWindow
    w2 = MainWindow(settings=settings)
    qtbot.addWidget(w2)
    assert w2.open_scene(os.path.join(SCENES, "bouncing_ball.json"))
    assert w2.view3d.orbit and w2.view3d.view.camera.fov > 0
    w2.view3d.act_orbit.trigger()  # and back to the front view, remembered too
    assert not w2.view3d.orbit and w2.view3d.view.camera.fov == 0
    assert settings.value("view3d/orbit", type=bool) is False
    w2.close()


def arrow_lengths(view):
    """On-screen lengths of the drawn force arrows as shares of the view's height."""
    assert view._arrows.visible
    seg = np.asarray(view._arrows.pos, float)
    px = to_pixels(view, seg)
    return np.hypot(*(px[1::2] - px[0::2]).T) / view.canvas.size[1]


class TestOneWindow:
    """The tests on the shared window (`planar_window`, reset by `window`)."""

    def test_bouncing_ball_draws_its_ground(self, window):
        assert window.open_scene(os.path.join(SCENES, "bouncing_ball.json"))
        view = window.view3d
        img = render(view)
        z = 0.0
        below = to_pixels(view, [[x, -0.03, z] for x in (-0.3, 0.0, 0.3)])
        above = to_pixels(view, [[x, 0.03, z] for x in (-0.3, 0.3)])
        for xy in below:
            assert 0 <= xy[1] < SIZE[1] and not is_background(img, xy), xy
        for xy in above:
            assert is_background(img, xy), xy

    @pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: os.path.basename(p)[:-5])
    def test_every_obstacle_of_every_example_is_drawn(self, window, path):
        """Just on the solid side of each ground, wall and segment, the view shows it (not the
        background), wherever that point is on screen."""
        from nsgui.scene import load_scene
        assert window.open_scene(path)
        view = window.view3d
        img = render(view)
        scene = load_scene(path)
        inside = 0.004 * view.extent
        for o in scene.obstacles:
            if o.type == "segment":
                a, b = np.asarray(o.a, float), np.asarray(o.b, float)
                d = (b - a) / np.linalg.norm(b - a)
                p, n = (a + b) / 2, np.array([-d[1], d[0]])
            else:
                p, n = np.asarray(o.point, float), np.asarray(o.normal, float) / np.linalg.norm(o.normal)
            xy = to_pixels(view, [[*(p - inside * n), 0.0]])[0]
            if 0 <= xy[0] < SIZE[0] and 0 <= xy[1] < SIZE[1]:
                assert not is_background(img, xy), (o.name, xy)

    def test_default_camera_is_front_orthographic(self, window, tmp_path):
        """Depth does not move a point on screen and x, y map to screen columns and rows with one
        scale: a vertical edge of a box is vertical in pixels, and the 50-bead column is straight
        (it looked tilted in perspective)."""
        assert window.open_scene(scene_file(tmp_path, BOX_ON_GROUND))
        view = window.view3d
        assert not view.orbit and view.view.camera.fov == 0
        img = render(view)
        px = to_pixels(view, [[0, 0, 0], [0, 0, 0.5], [1, 0, 0], [0, 1, 0]])
        assert px[1] == pytest.approx(px[0], abs=1e-6)  # no perspective, seen along -z
        (dx, dy), (ex, ey) = px[2] - px[0], px[3] - px[0]
        assert dy == pytest.approx(0, abs=1e-6) and ex == pytest.approx(0, abs=1e-6)
        assert dx > 0 and ey == pytest.approx(-dx)  # x right, y up, same scale
        # the box's left edge, found in the pixels: the same column in every row it spans
        cx, cy = to_pixels(view, [[0.3, 0.15, 0.0]])[0]
        colour = img[int(cy), int(cx)]
        mask = np.abs(img - colour).max(axis=2) < 12
        rows = [r for r in range(int(cy) - 20, int(cy) + 21) if mask[r].any()]
        left = [np.nonzero(mask[r])[0].min() for r in rows]
        assert len(rows) == 41 and max(left) - min(left) <= 1
        assert abs(min(left) - to_pixels(view, [[0.1, 0.15, 0.0]])[0][0]) <= 1.5
        # the bead column: the beads' pixels lie in one column band, centred on x = 0
        assert window.open_scene(os.path.join(SCENES, "bead_column_50.json"))
        img = render(view)
        x0 = to_pixels(view, [[0.0, 0.0, 0.0]])[0][0]
        beads = (img[:, :, 0] > img[:, :, 1] + 60) | (img[:, :, 2] > img[:, :, 0] + 60)  # red or blue
        ys, xs = np.nonzero(beads)
        assert len(xs) > 500
        assert np.abs(xs - x0).max() <= 8  # a bead's radius on screen; tilted, it drifted by ~40

    @pytest.mark.parametrize("mass", [0.01, 1.0, 300.0])
    def test_resting_force_arrows_are_visible_whatever_the_mass(self, window, tmp_path, mass):
        """A box resting on two corners: each arrow is 5-30 % of the view's height for any mass
        (percussions per step drawn in metres per newton gave ~0.03 %), and the user's factor
        multiplies it."""
        scene = copy.deepcopy(BOX_ON_GROUND)
        scene["bodies"][0]["mass"] = mass
        assert window.open_scene(scene_file(tmp_path, scene))
        run_to(window, 0.3)
        view = window.view3d
        rec = window.controller.recorder
        fn = [rec.column(f"contact.box_ground[{k}].fn")[-1] for k in range(4)]
        assert sorted(fn)[-2:] == pytest.approx([mass * 9.81 / 2] * 2, rel=0.05)  # resting on 2 corners
        render(view)
        lengths = arrow_lengths(view)
        assert len(lengths) == 2 and np.all((0.05 < lengths) & (lengths < 0.30)), lengths
        twice = next(a for a in view.force_actions.actions() if a.data() == 2.0)
        twice.trigger()
        render(view)
        np.testing.assert_allclose(arrow_lengths(view), 2 * lengths, rtol=1e-6)
        assert window.settings.value("view3d/force_scale", type=float) == 2.0
