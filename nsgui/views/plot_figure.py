"""A plot card drawn as a figure for a paper: title, axis labels with units, tick labels, and a legend
below the plot, at a chosen size in pixels and resolution (DPI), with fonts and lines sized in
points, written as PNG (with its DPI in the file) or SVG (text kept as text).

The figure is laid out directly in the image's pixels (a hidden view of that size): a length of
p points is p * dpi / 72 pixels, so a 9 pt font is 9 pt tall when the image is printed at its DPI."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPicture

MAX_SIDE = 8000  # pixels


@dataclass
class FigureOptions:
    width: int = 1800  # pixels
    height: int = 1200
    dpi: float = 300.0
    font_pt: float = 9.0  # tick labels and legend; the axis labels and the title are larger
    line_pt: float = 1.0  # curves

    def check(self):
        if not (100 <= self.width <= MAX_SIDE and 100 <= self.height <= MAX_SIDE):
            raise ValueError(f"figure size {self.width}x{self.height} px: each side must be 100 to {MAX_SIDE}")
        if not (10 <= self.dpi <= 2400):
            raise ValueError(f"figure resolution {self.dpi} DPI: must be 10 to 2400")
        if not (2 <= self.font_pt <= 72):
            raise ValueError(f"font size {self.font_pt} pt: must be 2 to 72")

    def px(self, pt):
        """Pixels of a length in points."""
        return pt * self.dpi / 72.0


@dataclass
class Series:
    """One thing drawn: a line (`dashed` for a previous run) or markers (`symbol`, e.g. impacts)."""
    label: str
    x: np.ndarray
    y: np.ndarray
    color: str
    dashed: bool = False
    symbol: str | None = None


@dataclass
class FigureContent:
    title: str
    x_label: str
    y_label: str
    series: list
    x_range: tuple
    y_range: tuple
    bands: list = field(default_factory=list)  # [(t0, t1, colour, label)]: a phase, behind the curves


class Figure:
    """The figure's items in a hidden view of the image's size (nothing on screen changes).
    Call close() when done."""

    def __init__(self, content: FigureContent, options: FigureOptions):
        options.check()
        self.options = o = options
        self.view = pg.GraphicsLayoutWidget()
        self.view.setAttribute(Qt.WA_DontShowOnScreen)
        self.view.setBackground("w")
        self.view.resize(o.width, o.height)
        self.view.show()  # (not on screen) delivers the resize: the layout takes the image's size
        layout = self.view.ci
        layout.setContentsMargins(*(o.px(4),) * 4)
        layout.setSpacing(o.px(2))
        small, large = f"{o.px(o.font_pt):.1f}px", f"{o.px(o.font_pt * 1.1):.1f}px"
        layout.addLabel(content.title, row=0, col=0, size=f"{o.px(o.font_pt * 1.3):.1f}px", bold=True,
                        color="#000")
        self.plot = plot = layout.addPlot(row=1, col=0)
        tick_font = QFont()
        tick_font.setPixelSize(max(1, round(o.px(o.font_pt))))
        axis_pen = pg.mkPen("#000", width=o.px(0.6))
        tick = round(o.px(3))
        for side, text in (("bottom", content.x_label), ("left", content.y_label)):
            axis = plot.getAxis(side)
            axis.enableAutoSIPrefix(False)
            axis.setPen(axis_pen)
            axis.setTextPen(pg.mkPen("#000"))
            axis.setStyle(tickFont=tick_font, tickLength=-tick, tickTextOffset=tick)
            axis.setLabel(text, **{"font-size": large, "color": "#000"})
            if side == "bottom":  # room for the label below the tick labels (pyqtgraph's is too tight)
                axis.setHeight(round(2 * tick + o.px(o.font_pt) * 1.4 + axis.label.boundingRect().height()))
        for side in ("top", "right"):  # a closed frame, ticks without labels
            plot.showAxis(side)
            axis = plot.getAxis(side)
            axis.setPen(axis_pen)
            axis.setStyle(showValues=False, tickLength=-tick)
        plot.showGrid(x=True, y=True, alpha=0.1)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        drawn = self._draw_bands(content.bands) + [(self._draw(s), s.label) for s in content.series]
        labelled = [(item, label) for item, label in drawn if label]
        self.legend = None
        if labelled:
            longest = max(len(label) for _item, label in labelled)
            columns = int(max(1, min(len(labelled), o.width // (o.px(o.font_pt) * (0.62 * longest + 4)))))
            self.legend = pg.LegendItem(colCount=columns, labelTextSize=small, labelTextColor="#000",
                                        frame=False, horSpacing=round(o.px(8)), verSpacing=-round(o.px(1)))
            layout.addItem(self.legend, row=2, col=0)
            for item, label in labelled:
                self.legend.addItem(item, label)
        layout.layout.activate()  # place the items now (not at the next pass of the event loop)
        plot.vb.setRange(xRange=content.x_range, yRange=content.y_range, padding=0)
        # pyqtgraph widens an axis for its tick labels only at a later repaint, and until then
        # leaves out the labels that do not fit (all but "0"): make the room first
        left = plot.getAxis("left")
        metrics = QFontMetrics(tick_font)
        widest = max((metrics.horizontalAdvance(text) for text in self._tick_strings(left, content.y_range)),
                     default=0)
        left.setWidth(round(widest + 2 * tick + left.label.boundingRect().height() + o.px(2)))
        plot.layout.activate()
        layout.layout.activate()
        plot.vb.setRange(xRange=content.x_range, yRange=content.y_range, padding=0)

    @staticmethod
    def _tick_strings(axis, value_range):
        lo, hi = min(value_range), max(value_range)
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
            return []
        out = []
        for spacing, values in axis.tickValues(lo, hi, max(axis.height(), 1.0)):
            out += axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        return out

    def _draw_bands(self, bands):
        """The phase bands behind the curves; returns one (item, label) per label for the legend."""
        from nsgui.views.phase_bands import BAND_ALPHA
        legend = {}
        for t0, t1, color, label in bands:
            c = QColor(color)
            c.setAlpha(BAND_ALPHA)
            item = pg.LinearRegionItem((t0, t1), movable=False, brush=pg.mkBrush(c), pen=pg.mkPen(None))
            for line in item.lines:
                line.setPen(pg.mkPen(None))
            item.setZValue(-100)
            self.plot.addItem(item, ignoreBounds=True)
            if label not in legend:  # the legend's swatch: a thick line of the band's colour
                legend[label] = pg.PlotDataItem([], [], pen=pg.mkPen(c, width=self.options.px(6)))
        return [(item, label) for label, item in legend.items()]

    def _draw(self, s: Series):
        o = self.options
        color = QColor(s.color)
        if s.symbol:
            item = pg.ScatterPlotItem(s.x, s.y, symbol=s.symbol, size=o.px(4.5), pen=pg.mkPen(color),
                                      brush=pg.mkBrush(color))
        else:
            pen = pg.mkPen(color, width=o.px(o.line_pt), style=Qt.DashLine if s.dashed else Qt.SolidLine)
            item = pg.PlotDataItem(s.x, s.y, pen=pen, antialias=True)
        self.plot.addItem(item)
        return item

    def close(self):
        self.view.close()
        self.view.deleteLater()

    def render(self, painter: QPainter):
        """Draw the figure on `painter` (a device of width x height pixels)."""
        o = self.options
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setRenderHint(QPainter.TextAntialiasing, True)
        scene = self.view.scene()
        items = [i for i in scene.items() if hasattr(i, "setExportMode")]
        opts = {"antialias": True, "background": QColor("white"), "painter": painter, "resolutionScale": 1.0}
        for i in items:
            i.setExportMode(True, opts)
        try:
            target = QRectF(0, 0, o.width, o.height)
            painter.fillRect(target, QColor("white"))
            source = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
            scene.render(painter, target, source)
        finally:
            for i in items:
                i.setExportMode(False)

    def image(self) -> QImage:
        o = self.options
        img = QImage(o.width, o.height, QImage.Format_ARGB32)
        painter = QPainter(img)  # at the image's default resolution, as the axes' QPictures were
        try:                     # recorded (played on a device of another DPI they are rescaled)
            self.render(painter)
        finally:
            painter.end()
        dots_per_meter = round(o.dpi / 0.0254)  # then the chosen DPI, in the file's metadata
        img.setDotsPerMeterX(dots_per_meter)
        img.setDotsPerMeterY(dots_per_meter)
        return img

    def write_png(self, path):
        if not self.image().save(str(path), "PNG"):
            raise OSError(f"could not write the PNG image {path}")

    def write_svg(self, path, title=""):
        from PySide6.QtSvg import QSvgGenerator
        o = self.options
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(o.width, o.height))
        gen.setViewBox(QRectF(0, 0, o.width, o.height))
        gen.setResolution(QPicture().logicalDpiX())  # not rescaling the axes' QPictures
        gen.setTitle(title or "nsgui plot")
        painter = QPainter(gen)
        try:
            self.render(painter)
        finally:
            painter.end()
        # the physical size for the chosen DPI (the generator wrote it for its own resolution)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        size = f'width="{25.4 * o.width / o.dpi:.3f}mm" height="{25.4 * o.height / o.dpi:.3f}mm"'
        text = re.sub(r'width="[0-9.]+mm" height="[0-9.]+mm"', size, text, count=1)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
