"""The *Gait analysis* panel: a walker's Poincaré analysis (nsgui/engine/gait), run in a child process
(nsgui/runtime/gait_job.py) so the window stays responsive, drawn here. It computes nothing itself.

Plots: the eigenvalues of DP in the complex plane with the unit circle; the step-to-step iterates
x_k against k from the scene's first strike, and the cobweb of one coordinate (x_{k+1} against x_k,
with the diagonal); the bifurcation diagram of a sweep (the gait's coordinate against the parameter,
stable solid, unstable hollow, period-2 branches, crossings marked: PD period doubling, PD₂ that of
the period-2 gait); the limit cycle's phase portrait
(each body's angle against its rate over a step, dashed lines for the jumps at the strikes)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QProgressBar,
                               QPushButton, QVBoxLayout, QWidget)

from nsgui.runtime.gait_job import GaitJob

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"]
POLL_MS = 100


def _plot(title, x_label, y_label):
    w = pg.PlotWidget(background="w")
    w.setTitle(title, size="9pt")
    w.setLabel("bottom", x_label)
    w.setLabel("left", y_label)
    w.showGrid(x=True, y=True, alpha=0.2)
    for ax in ("bottom", "left"):
        w.getAxis(ax).enableAutoSIPrefix(False)
    w.setMinimumHeight(150)
    return w


class GaitPanel(QWidget):
    """Analyse / Sweep buttons, the section event and the sweep range, a summary, five plots."""

    finished = Signal(dict)      # a result arrived (tests wait on it)
    failed = Signal(str)

    def __init__(self, scene_source, parent=None):
        """scene_source(): the scene dict to analyse (the window's current document)."""
        super().__init__(parent)
        self.scene_source = scene_source
        self.job = None
        self.result = None
        self._sweep_entries = []
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

        self.analyse_button = QPushButton("Analyse gait")
        self.analyse_button.setToolTip("Fixed point of the step-to-step map, its eigenvalues and the limit cycle")
        self.analyse_button.clicked.connect(lambda: self.start(sweep=False))
        self.section_edit = QLineEdit("impact")
        self.section_edit.setToolTip("The section event: 'impact' (a heel strike of any foot but the stance "
                                     "foot) or 'impact:CONTACT,CONTACT'")
        self.section_edit.setMinimumWidth(90)
        self.section_edit.setMaximumWidth(160)
        self.sweep_edit = QLineEdit("slope=0.04:0.09:11")
        self.sweep_edit.setToolTip("PATH=START:STOP:N: a scene path (as for --set) or 'slope' (the ground's "
                                   "angle, rad)")
        self.sweep_edit.setMinimumWidth(150)
        self.sweep_button = QPushButton("Sweep")
        self.sweep_button.setToolTip("Continue the gait along the parameter: bifurcation diagram, crossings "
                                     "of |λ| = 1, the period-2 gait after a period doubling")
        self.sweep_button.clicked.connect(lambda: self.start(sweep=True))
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(90)
        self.progress.setTextVisible(False)
        self.status = QLabel("Analyse the gait of a walker (its heel strikes are the section).")
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.status.setWordWrap(True)
        self.coord_combo = QComboBox()
        self.coord_combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.coord_combo.setToolTip("The section coordinate of the step-to-step plots and the bifurcation diagram")
        self.coord_combo.currentIndexChanged.connect(lambda _i: self._draw_coordinate_plots())

        bar = QHBoxLayout()
        bar.addWidget(self.analyse_button)
        bar.addWidget(QLabel("section"))
        bar.addWidget(self.section_edit)
        bar.addSpacing(12)
        bar.addWidget(self.sweep_button)
        bar.addWidget(self.sweep_edit, 1)
        bar.addWidget(self.stop_button)
        bar.addWidget(self.progress)
        bar2 = QHBoxLayout()
        bar2.addWidget(QLabel("plotted coordinate"))
        bar2.addWidget(self.coord_combo)
        bar2.addWidget(self.status, 1)

        self.eig_plot = _plot("Eigenvalues of DP", "Re λ", "Im λ")
        self.eig_plot.setAspectLocked(True)
        self.iter_plot = _plot("Step to step", "step k", "x_k")
        self.cobweb_plot = _plot("Cobweb", "x_k", "x_k+1")
        self.bif_plot = _plot("Bifurcation diagram", "parameter", "x*")
        self.phase_plot = _plot("Limit cycle (impact jumps dashed)", "body angle (rad)", "rate (rad/s)")
        self.phase_plot.addLegend(offset=(5, 5), labelTextSize="8pt")

        grid = QGridLayout()
        grid.addWidget(self.eig_plot, 0, 0)
        grid.addWidget(self.iter_plot, 0, 1)
        grid.addWidget(self.cobweb_plot, 0, 2)
        grid.addWidget(self.phase_plot, 1, 0, 1, 2)
        grid.addWidget(self.bif_plot, 1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addLayout(bar2)
        layout.addLayout(grid, 1)
        self._draw_unit_circle()

    # ---------------------------------------------------------------- running
    def start(self, sweep=False):
        self.stop()
        try:
            scene = self.scene_source()
        except Exception as e:  # the document has problems: say so on one line
            self._fail(str(e).splitlines()[0] if str(e) else "the scene cannot be read")
            return
        self.result = None
        self._sweep_entries = []
        text = self.sweep_edit.text().strip() if sweep else None
        self.job = GaitJob(scene, self.section_edit.text().strip() or "impact", text)
        self.progress.setValue(0)
        self.status.setText("Running the return map… (in a separate process: the window stays responsive)")
        self._set_running(True)
        self._timer.start()

    def stop(self):
        if self.job is not None and not self.job.finished:
            self.job.cancel()
            self.status.setText("Stopped.")
        self.job = None
        self._timer.stop()
        self._set_running(False)

    def clear(self):
        """Stop and forget the results (another scene was opened)."""
        self.stop()
        self.result = None
        self._sweep_entries = []
        for w in (self.iter_plot, self.cobweb_plot, self.bif_plot, self.phase_plot):
            w.clear()
        self.eig_plot.clear()
        self._draw_unit_circle()
        self.coord_combo.clear()
        self.progress.setValue(0)
        self.status.setText("Analyse the gait of a walker (its heel strikes are the section).")

    def _set_running(self, running):
        self.analyse_button.setEnabled(not running)
        self.sweep_button.setEnabled(not running)
        self.stop_button.setEnabled(running)

    def _poll(self):
        if self.job is None:
            return
        for msg in self.job.poll():
            if msg[0] == "progress":
                _kind, fraction, text, entry = msg
                self.progress.setValue(int(1000 * fraction))
                self.status.setText(text)
                if entry is not None and "error" not in entry:
                    self._sweep_entries.append(entry)
                    self._sweep_entries.sort(key=lambda e: e["value"])
                    self._draw_bifurcation(self._sweep_entries, [])
            elif msg[0] == "result":
                self.progress.setValue(1000)
                self.show_result(msg[1])
                self.finished.emit(msg[1])
            elif msg[0] == "error":
                self._fail(msg[1])
        if self.job is not None and self.job.finished:
            self.job = None
            self._timer.stop()
            self._set_running(False)

    def _fail(self, text):
        self.status.setText(f"<span style='color:#b00'>Gait analysis failed: {text}</span>")
        self.failed.emit(text)

    # ---------------------------------------------------------------- drawing
    def show_result(self, out):
        self.result = out
        names = out["names"]
        self.coord_combo.blockSignals(True)
        keep = self.coord_combo.currentText()
        self.coord_combo.clear()
        self.coord_combo.addItems(names)
        if keep in names:
            self.coord_combo.setCurrentText(keep)
        self.coord_combo.blockSignals(False)
        self.status.setText(self.summary_html(out))
        self._draw_eigenvalues(out)
        self._draw_cycle(out.get("cycle"))
        self._draw_coordinate_plots()

    @staticmethod
    def summary_html(out):
        fp = ", ".join(f"{k} = {v:.6g}" for k, v in out["fixed_point"].items())
        eig = ", ".join(f"{re:.4g}{im:+.3g}i" if abs(im) > 1e-12 else f"{re:.4g}" for re, im in out["eigenvalues"])
        verdict = out["verdict"]
        colour = {"stable": "#2a7d2a", "unstable": "#b00"}.get(verdict, "#a60")
        text = (f"<b>Fixed point</b> {fp} &nbsp; residual {out['residual']:.1e} &nbsp; "
                f"<b>period</b> {out['period']:.4g} s, <b>step</b> {out['step_length']:.4g} m, "
                f"<b>speed</b> {out['mean_speed']:.4g} m/s &nbsp; <b>λ</b> {eig} "
                f"(|λ| max {max(out['moduli']):.4g}): <b style='color:{colour}'>{verdict}</b>"
                " &nbsp; <i>(trivial eigenvalues of the section constraint excluded)</i>")
        for b in out.get("bifurcations", []):
            of = f" of the {b['of']}" if "of" in b else ""
            text += f"<br><b>{b['kind']}</b>{of} at {out.get('sweep_parameter', 'parameter')} = {b['value']:.5g} ({b['direction']})"
        if "sweep" in out and not out.get("bifurcations"):
            text += "<br>no crossing of |λ| = 1 in the sweep"
        return text

    def _draw_unit_circle(self):
        a = np.linspace(0, 2 * math.pi, 200)
        self.eig_plot.plot(np.cos(a), np.sin(a), pen=pg.mkPen("#888", width=1, style=Qt.DashLine))

    def _draw_eigenvalues(self, out):
        self.eig_plot.clear()
        self._draw_unit_circle()
        ev = np.array(out["eigenvalues"], float).reshape(-1, 2)
        colour = "#2a7d2a" if out["stable"] else "#b00"
        self.eig_plot.addItem(pg.ScatterPlotItem(ev[:, 0], ev[:, 1], size=10, symbol="x",
                                                 pen=pg.mkPen(colour, width=2), brush=pg.mkBrush(colour)))
        for entry in (e for e in out.get("sweep", []) if "error" not in e):   # faint: to see them travel
            e = np.array(entry["eigenvalues"], float).reshape(-1, 2)
            self.eig_plot.addItem(pg.ScatterPlotItem(e[:, 0], e[:, 1], size=5, pen=None,
                                                     brush=pg.mkBrush(31, 119, 180, 90)))
        r = max(1.15, float(np.abs(ev).max()) * 1.1 if len(ev) else 1.15)
        self.eig_plot.setRange(xRange=(-r, r), yRange=(-r, r))

    def _draw_coordinate_plots(self):
        out = self.result
        if not out:
            return
        j = max(0, self.coord_combo.currentIndex())
        name = out["names"][j]
        star = out["fixed_point"][name]
        self.iter_plot.clear()
        self.cobweb_plot.clear()
        xs = np.array(out.get("iterates", []), float)
        self.iter_plot.setLabel("left", name)
        self.iter_plot.setLabel("bottom", f"step k (from {out.get('iterates_from', 'the first strike')})")
        self.cobweb_plot.setLabel("bottom", f"{name} (step k)")
        self.cobweb_plot.setLabel("left", f"{name} (step k+1)")
        if len(xs):
            xk = xs[:, j]
            self.iter_plot.plot(np.arange(len(xk)), xk, pen=pg.mkPen(PALETTE[0], width=1.2), symbol="o",
                                symbolSize=5, symbolBrush=PALETTE[0])
            self.iter_plot.addItem(pg.InfiniteLine(star, angle=0, pen=pg.mkPen("#2a7d2a", style=Qt.DashLine)))
            lo, hi = float(min(xk.min(), star)), float(max(xk.max(), star))
            pad = 0.1 * (hi - lo) + 1e-9
            self.cobweb_plot.plot([lo - pad, hi + pad], [lo - pad, hi + pad], pen=pg.mkPen("#888", style=Qt.DashLine))
            cx, cy = [xk[0]], [xk[0]]
            for a, b in itertools.pairwise(xk):
                cx += [a, b]
                cy += [b, b]
            self.cobweb_plot.plot(cx, cy, pen=pg.mkPen(PALETTE[1], width=1))
            self.cobweb_plot.plot(xk[:-1], xk[1:], pen=None, symbol="o", symbolSize=4, symbolBrush=PALETTE[0])
            self.cobweb_plot.addItem(pg.ScatterPlotItem([star], [star], size=9, symbol="star",
                                                        brush=pg.mkBrush("#2a7d2a")))
        self._draw_bifurcation(out.get("sweep", []), out.get("bifurcations", []))

    def _draw_bifurcation(self, entries, bifurcations):
        self.bif_plot.clear()
        entries = [e for e in entries if "error" not in e]
        if not entries:
            return
        names = list(entries[0]["fixed_point"])
        j = max(0, self.coord_combo.currentIndex()) if self.coord_combo.count() else 0
        name = names[min(j, len(names) - 1)]
        self.bif_plot.setLabel("left", f"{name} at the strike")
        self.bif_plot.setLabel("bottom", entries[0].get("parameter", "parameter"))
        p = np.array([e["value"] for e in entries])
        x = np.array([e["fixed_point"][name] for e in entries])
        stable = np.array([e["stable"] for e in entries], bool)
        self.bif_plot.plot(p, x, pen=pg.mkPen(PALETTE[0], width=1))
        self.bif_plot.addItem(pg.ScatterPlotItem(p[stable], x[stable], size=7, brush=pg.mkBrush(PALETTE[0]),
                                                 pen=pg.mkPen(PALETTE[0]), name="period 1"))
        self.bif_plot.addItem(pg.ScatterPlotItem(p[~stable], x[~stable], size=7, brush=pg.mkBrush("w"),
                                                 pen=pg.mkPen(PALETTE[0])))
        p2 = [(e["value"], [pt[name] for pt in e["period2"]["fixed_point"]], e["period2"]["stable"])
              for e in entries if "period2" in e]
        for branch in (0, 1):
            if p2:
                pv = np.array([v for v, _xs, _s in p2])
                xv = np.array([xs[branch] for _v, xs, _s in p2])
                st = np.array([s for _v, _xs, s in p2], bool)
                self.bif_plot.plot(pv, xv, pen=pg.mkPen(PALETTE[1], width=1))
                self.bif_plot.addItem(pg.ScatterPlotItem(pv[st], xv[st], size=7, brush=pg.mkBrush(PALETTE[1]),
                                                         pen=pg.mkPen(PALETTE[1])))
                self.bif_plot.addItem(pg.ScatterPlotItem(pv[~st], xv[~st], size=7, brush=pg.mkBrush("w"),
                                                         pen=pg.mkPen(PALETTE[1])))
        for b in bifurcations:
            second = "of" in b
            short = "".join(w[0].upper() for w in b["kind"].split()[:2]) + ("₂" if second else "")
            line = pg.InfiniteLine(b["value"], angle=90, pen=pg.mkPen("#a60", style=Qt.DotLine if second else Qt.DashLine),
                                   label=short, labelOpts={"position": 0.75 if second else 0.92, "color": "#a60"})
            line.setToolTip(f"{b['kind']}{' of the period-2 gait' if second else ''} at {b['value']:.5g}")
            self.bif_plot.addItem(line)

    def _draw_cycle(self, cycle):
        self.phase_plot.clear()
        if not cycle:
            return
        angle, rate = np.array(cycle["angle"]), np.array(cycle["rate"])
        for b, name in enumerate(cycle["bodies"]):
            colour = PALETTE[b % len(PALETTE)]
            self.phase_plot.plot(angle[b], rate[b], pen=pg.mkPen(colour, width=1.5), name=name)
        impact = pg.mkPen("#555", width=1.2, style=Qt.DashLine)
        rename = pg.mkPen("#999", width=1, style=Qt.DotLine)
        for jump in cycle["jumps"]:
            (pa, pw), (qa, qw), (sa, sw) = jump["pre"], jump["post"], jump["start"]
            for b in range(len(cycle["bodies"])):
                # the strike: the rates jump; then the bodies are renamed for the next step (the legs
                # swap, the wheel's next spoke): each body's state continues as the body nearest to it
                self.phase_plot.plot([pa[b], qa[b]], [pw[b], qw[b]], pen=impact)
                k = int(np.argmin(np.hypot(np.array(sa) - qa[b], np.array(sw) - qw[b])))
                if abs(sa[k] - qa[b]) + abs(sw[k] - qw[b]) > 1e-6:
                    self.phase_plot.plot([qa[b], sa[k]], [qw[b], sw[k]], pen=rename)
