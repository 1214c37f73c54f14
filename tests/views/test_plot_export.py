"""Plot exports usable in a paper (issue 8, item 9): PNG and SVG carry the title, the legend, axis
labels with units and tick labels, at a chosen size in pixels and DPI; files are written atomically
with the permissions the umask gives a new file."""

import os
import re

import numpy as np
import pytest

from tests.helpers import SCENES

from .test_window import run_to

pytestmark = pytest.mark.gui


@pytest.fixture
def ran(class_window):
    """Opens an example in the class's window (a new document, model and history) and runs it."""
    window = class_window

    def run(scene, t):
        assert window.open_scene(os.path.join(SCENES, f"{scene}.json"))
        run_to(window, t)
        return window
    return run


@pytest.fixture
def out(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    return d


def svg_texts(path):
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    return svg, [t.strip() for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


def numbers(texts):
    out = []
    for t in texts:
        try:
            out.append(float(t.replace("−", "-")))
        except ValueError:
            pass
    return out


class TestPlotExports:
    """One window for all (`class_window`): each test opens and runs its example first."""

    @pytest.mark.parametrize("width, height, dpi", [(1000, 700, 150), (2400, 1500, 600)])
    def test_png_has_the_chosen_pixel_size_and_dpi(self, ran, out, width, height, dpi):
        from PIL import Image

        from nsgui.views import exports
        from nsgui.views.plot_figure import FigureOptions
        window = ran("default", 1.0)
        path = out / "energy.png"
        exports.export_plot(window.plots.plot_named("Energy"), str(path),
                            FigureOptions(width=width, height=height, dpi=dpi, font_pt=9))
        with Image.open(path) as img:
            assert img.size == (width, height)
            assert img.info["dpi"] == pytest.approx((dpi, dpi), abs=0.03)  # PNG stores pixels per metre
            gray = np.asarray(img.convert("L"), float)
        # drawn, not blank: dark text and lines in the margins (ticks, labels, legend) and in the plot
        dark = gray < 100
        assert dark[: height // 10].any()                        # the title
        assert dark[:, : width // 12].any()                      # the value axis' label and ticks
        assert dark[-height // 6:].any()                         # time axis label, legend

    def test_svg_carries_title_legend_axis_labels_and_ticks(self, ran, out):
        from nsgui.views import exports
        from nsgui.views.plot_figure import FigureOptions
        window = ran("default", 1.0)
        card = window.plots.plot_named("Contact forces")
        path = out / "forces.svg"
        exports.export_plot(card, str(path), FigureOptions(width=1500, height=1000, dpi=300, font_pt=8))
        svg, texts = svg_texts(path)
        assert "<title>Contact forces</title>" in svg and "Contact forces" in texts
        assert "t (s)" in texts and "Contact forces (N)" in texts          # axis labels with units
        joined = "".join(texts).replace(" ", "")  # (Qt writes a run of text per font: "Σ" may be one)
        for name in ("ball_ground.fn", "box_ground.fn (Σ 4 points)", "bob_wall.fn"):   # the legend
            assert name.replace(" ", "") in joined
        ticks = numbers(texts)
        assert len(ticks) >= 6 and len(set(ticks)) >= 6                    # more than a lone "0"
        assert any(0.2 <= v <= 1.0 for v in ticks)                          # the time axis, in seconds
        assert max(ticks) >= 100                                            # the force axis, in newtons
        assert 'width="127.000mm" height="84.667mm"' in svg                 # 1500 x 1000 px at 300 DPI

    def test_phase_portrait_svg_names_its_coordinate_and_units(self, ran, out):
        from nsgui.views import exports
        window = ran("two_link_arm", 3.0)
        path = out / "phase.svg"
        exports.export_plot(window.plots.plot_named("Phase portrait"), str(path))
        _svg, texts = svg_texts(path)
        assert "Phase portrait: shoulder" in texts
        assert "q.shoulder (rad)" in texts and "v.shoulder (rad/s)" in texts
        x_ticks = [v for v in numbers(texts) if 0.5 <= v <= 1.0]
        assert len(x_ticks) >= 2                                            # radians, not milliradians

    def test_dashed_previous_branch_is_in_the_legend(self, class_window, out):
        from nsgui.views import exports

        from .test_previous_branch import branch_in_default_scene
        window = class_window
        branch_in_default_scene(window)  # (the plots refreshed, the old branch drawn dashed)
        path = out / "energy.svg"
        exports.export_plot(window.plots.plot_named("Energy"), str(path))
        _svg, texts = svg_texts(path)
        assert "energy.total" in texts and "energy.total (previous run)" in texts

    def test_plot_exports_get_the_permissions_of_a_new_file(self, ran, out):
        """0o666 minus the umask, as for any file a program creates (they were 0600 or 0644)."""
        from nsgui.views import exports
        window = ran("bouncing_ball", 0.2)
        card = window.plots.plot_named("Energy")
        old = os.umask(0o002)
        try:
            for ext in ("png", "svg"):
                path = out / f"energy.{ext}"
                exports.export_plot(card, str(path))
                assert os.stat(path).st_mode & 0o777 == 0o664, ext
        finally:
            os.umask(old)
        assert sorted(os.listdir(out)) == ["energy.png", "energy.svg"]  # no temporary file left

    def test_a_bad_figure_size_is_refused_in_one_line(self, ran, out):
        from nsgui.views import exports
        from nsgui.views.plot_figure import FigureOptions
        window = ran("bouncing_ball", 0.1)
        with pytest.raises(ValueError, match="figure size 10x700 px"):
            exports.export_plot(window.plots.plot_named("Energy"), str(out / "x.png"),
                                FigureOptions(width=10, height=700))
        assert os.listdir(out) == []
