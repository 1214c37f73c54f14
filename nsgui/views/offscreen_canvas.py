"""A vispy SceneCanvas rendered offscreen (EGL) and shown in a plain raster widget.

Why: a QOpenGLWidget anywhere in a window makes Qt compose the *whole* window through OpenGL on
every repaint. With a software renderer (Mesa llvmpipe, as under Xvfb or on a machine without a
GPU driver) that composition alone cost 30-300 ms per repaint and froze the event loop while a run
streamed in. Rendering the 3D scene into an EGL pbuffer and painting the pixels into a normal widget
costs a few milliseconds for the 3D view only, and keeps the rest of the window raster-painted.

Where EGL is not available (macOS, some Windows drivers) `make_canvas` falls back to vispy's Qt
widget; where no OpenGL works at all it raises and the caller shows a message.
"""

from __future__ import annotations

import functools
import os
import sys
import time

import numpy as np
from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from nsgui.views import frame_budget

_BUTTONS = {Qt.LeftButton: 1, Qt.RightButton: 2, Qt.MiddleButton: 3}
RESOLUTION_STEPS = (1.0, 0.75, 0.5)  # live-frame scales, pixels per side
SLOW_FRAME = 0.018  # seconds: a live frame slower than this steps the resolution down
FAST_FRAME = 0.010  # a frame expected faster than this at the next finer step steps it up
SHARPEN_DELAY_MS = 250  # still this long after a reduced frame: draw it again at full resolution


_EGL_APP = None  # the vispy application of the platform that worked


def _egl_canvas(bgcolor):
    """A SceneCanvas on vispy's EGL backend. Mesa's surfaceless platform is tried first: it needs no
    display and does not depend on the X screen's depth; then the driver's default platform."""
    global _EGL_APP
    from vispy import app as vapp
    from vispy import scene
    if _EGL_APP is not None:
        return scene.SceneCanvas(app=_EGL_APP, keys=None, bgcolor=bgcolor, show=False, size=(640, 480))
    forced = os.environ.get("EGL_PLATFORM")
    errors = []
    for platform in ([forced] if forced else ["surfaceless", None]):
        if platform:
            os.environ["EGL_PLATFORM"] = platform
        else:
            os.environ.pop("EGL_PLATFORM", None)
        sys.modules.pop("vispy.app.backends._egl", None)  # its import initialises the display
        try:
            app = vapp.Application("egl")
            canvas = scene.SceneCanvas(app=app, keys=None, bgcolor=bgcolor, show=False, size=(640, 480))
            _EGL_APP = app
            return canvas
        except Exception as exc:
            errors.append(f"{platform or 'default'}: {exc}")
    raise RuntimeError("; ".join(errors))


def make_canvas(bgcolor, backend=None):
    """A SceneCanvas and the name of the way it is shown: "egl" (offscreen, preferred) or "qt".

    `backend` (or the NSGUI_3D_BACKEND environment variable) forces one of the two."""
    from vispy import scene
    backend = backend or os.environ.get("NSGUI_3D_BACKEND") or "auto"
    errors = []
    if backend in ("auto", "egl"):
        try:
            return _egl_canvas(bgcolor), "egl"
        except Exception as exc:
            errors.append(f"EGL: {exc}")
    if backend in ("auto", "qt"):
        from PySide6.QtGui import QGuiApplication
        platform = QGuiApplication.platformName()
        if platform in ("offscreen", "minimal"):  # a QOpenGLWidget would stay blank there
            errors.append(f"Qt OpenGL: no OpenGL window on the '{platform}' platform")
            raise RuntimeError("; ".join(errors))
        try:
            from vispy import app as vapp
            vapp.use_app("pyside6")
            canvas = scene.SceneCanvas(keys=None, bgcolor=bgcolor, show=False, size=(640, 480))
            return canvas, "qt"
        except Exception as exc:
            errors.append(f"Qt OpenGL: {exc}")
    raise RuntimeError("; ".join(errors) or f"unknown 3D backend {backend!r}")


class OffscreenCanvasWidget(QWidget):
    """Shows the frames of an offscreen SceneCanvas and forwards mouse and wheel events to it.

    Every `canvas.update()` (camera moves, new data) schedules one render; requests that arrive
    while one is pending are merged, and renders are spaced so that drawing takes at most about a
    third of the GUI thread's time (`min_interval` grows with the measured cost)."""

    frameRendered = Signal()

    def __init__(self, canvas, parent=None):
        super().__init__(parent)
        self.canvas = canvas
        self.image = None  # the last frame (QImage), kept alive for paintEvent
        self.render_cost = 0.0
        self._last_render = 0.0
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setMinimumSize(80, 60)
        self.setMouseTracking(False)
        self.setFocusPolicy(Qt.ClickFocus)
        self.setAttribute(Qt.WA_OpaquePaintEvent)
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self._render_when_free)
        # Dynamic resolution: when frames get slow (software OpenGL, many bodies) the live frames
        # are drawn at 3/4 or 1/2 of the pixels and scaled up; once the view is still for a moment
        # a full-resolution frame replaces the last one.
        self.scale = 1.0
        self._sharpen = QTimer(self, singleShot=True, interval=SHARPEN_DELAY_MS)
        self._sharpen.timeout.connect(self._render_sharp)
        canvas._backend._vispy_update = self.request_render  # vispy's update() lands here
        # (a function of the canvas, not a method: the widget is gone when it is called)
        self.destroyed.connect(functools.partial(release_canvas, canvas))

    # ------------------------------------------------------------------ rendering
    def request_render(self):
        if self._timer.isActive():
            return
        wait = self.frame_interval(self.render_cost) - (time.perf_counter() - self._last_render)
        self._timer.start(max(0, int(1000 * wait)))

    def _physical_size(self):
        r = self.devicePixelRatioF()
        return max(1, round(self.width() * r)), max(1, round(self.height() * r))

    def _render_when_free(self):
        if not self.isVisible():
            self._last_render = 0.0
            return
        wait = frame_budget.wait_before_job()
        if wait > 0:  # another heavy job just ran in this loop pass: let the loop turn first
            self._timer.start(int(1000 * wait) + 2)
            return
        # full resolution while a mouse button is down: the camera's drag works in canvas pixels
        self.render_now(1.0 if QApplication.mouseButtons() != Qt.NoButton else self.scale)
        cost = self.render_cost
        steps = RESOLUTION_STEPS
        k = steps.index(self.scale)
        if cost > SLOW_FRAME and k + 1 < len(steps):
            self.scale = steps[k + 1]
        elif k > 0 and cost * (steps[k - 1] / self.scale) ** 2 < FAST_FRAME:
            self.scale = steps[k - 1]
        if self._scale_used < 1.0:
            self._sharpen.start()

    def _render_sharp(self):
        if self.isVisible() and not self._timer.isActive():
            self.render_now(1.0, measure=False)

    _scale_used = 1.0

    @staticmethod
    def frame_interval(cost):
        """Seconds between frames that cost `cost` (the 3D view replaces this: flat-out runs)."""
        return frame_budget.interval("3d", cost, flat_out=False)

    before_render = None  # callable(scale), run before each frame (the 3D view sizes its markers)

    def render_now(self, scale=1.0, measure=True):
        """Render the scene at the widget's size (times `scale` in pixels per side) and show it;
        returns the RGBA frame."""
        self._timer.stop()
        start = time.perf_counter()
        full = self._physical_size()
        size = (max(1, round(full[0] * scale)), max(1, round(full[1] * scale)))
        self._scale_used = size[0] / full[0]
        rgba = np.ascontiguousarray(self._draw_at(size, self._scale_used))
        h, w = rgba.shape[:2]
        img = QImage(rgba.data, w, h, rgba.strides[0], QImage.Format_RGBX8888)
        img.keep_alive = rgba  # QImage does not own the numpy buffer
        img.setDevicePixelRatio(self.devicePixelRatioF())
        self.image = img
        self._last_render = time.perf_counter()
        if measure:
            self.render_cost = 0.7 * self.render_cost + 0.3 * (self._last_render - start)
        frame_budget.job_done()
        self.update()
        self.frameRendered.emit()
        return rgba

    def render_frame(self, size):
        """An RGBA frame of exactly `size` = (w, h) pixels at full resolution, not shown (video
        frames). The display's next frame goes back to the widget's size."""
        return self._draw_at(tuple(int(v) for v in size), 1.0)

    def _draw_at(self, size, px_scale):
        if tuple(self.canvas.size) != size:
            # a smaller canvas shows the same framing (the camera's scale is relative to the view)
            self.canvas.size = size
            self.canvas.events.resize(size=size, physical_size=size)  # the viewbox and camera follow
        if self.before_render is not None:
            self.before_render(px_scale)
        self._timer.stop()  # (the resize and the hook asked for a render: this is it)
        return self._render_rgba(size)

    _fbo = None
    _fbo_size = None

    def _render_rgba(self, size):
        """SceneCanvas.render() into a framebuffer kept from frame to frame (render() makes and
        frees one each time)."""
        from vispy import gloo
        c = self.canvas
        c.set_current()
        c._update_pending = False  # SceneCanvas merges update() calls until it draws
        if self._fbo is None or self._fbo_size != size:
            shape = (size[1], size[0])
            self._fbo = gloo.FrameBuffer(color=gloo.RenderBuffer(shape), depth=gloo.RenderBuffer(shape))
            self._fbo_size = size
        # (pushing and popping the framebuffer changes the scene transforms, which ask for another
        # draw: SceneCanvas ignores updates while `_drawing`)
        c._drawing = True
        c.push_fbo(self._fbo, (0, 0), size)
        try:
            c._draw_scene()
            return self._fbo.read()
        finally:
            c._drawing = True  # (draw_visual resets it)
            c.pop_fbo()
            c._drawing = False

    def paintEvent(self, _ev):
        p = QPainter(self)
        if self.image is None:
            p.fillRect(self.rect(), QColor(self.canvas.bgcolor.hex))
        else:
            if self._scale_used < 1.0:
                p.setRenderHint(QPainter.SmoothPixmapTransform)
            p.drawImage(QRect(0, 0, self.width(), self.height()), self.image)
        p.end()

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        self.request_render()

    def showEvent(self, ev):
        super().showEvent(ev)
        self.request_render()

    # ------------------------------------------------------------------ input
    def _pos(self, ev):
        r = self.devicePixelRatioF() * self._scale_used  # canvas pixels per widget pixel
        p = ev.position()
        return (p.x() * r, p.y() * r)

    @staticmethod
    def _modifiers(ev):
        from vispy.util import keys
        m, out = ev.modifiers(), ()
        for q, v in ((Qt.ShiftModifier, keys.SHIFT), (Qt.ControlModifier, keys.CONTROL),
                     (Qt.AltModifier, keys.ALT), (Qt.MetaModifier, keys.META)):
            if m & q:
                out += (v,)
        return out

    @staticmethod
    def _buttons(ev):
        return [b for q, b in _BUTTONS.items() if ev.buttons() & q]

    def mousePressEvent(self, ev):
        self.canvas._backend._vispy_mouse_press(pos=self._pos(ev), button=_BUTTONS.get(ev.button(), 0),
                                                buttons=self._buttons(ev), modifiers=self._modifiers(ev))

    def mouseReleaseEvent(self, ev):
        self.canvas._backend._vispy_mouse_release(pos=self._pos(ev), button=_BUTTONS.get(ev.button(), 0),
                                                  buttons=self._buttons(ev), modifiers=self._modifiers(ev))

    def mouseDoubleClickEvent(self, ev):
        self.canvas._backend._vispy_mouse_double_click(pos=self._pos(ev),
                                                       button=_BUTTONS.get(ev.button(), 0),
                                                       buttons=self._buttons(ev),
                                                       modifiers=self._modifiers(ev))

    def mouseMoveEvent(self, ev):
        self.canvas._backend._vispy_mouse_move(pos=self._pos(ev), buttons=self._buttons(ev),
                                               modifiers=self._modifiers(ev))

    def wheelEvent(self, ev):
        d = ev.angleDelta()
        self.canvas.events.mouse_wheel(pos=self._pos(ev), delta=(d.x() / 120.0, d.y() / 120.0),
                                       modifiers=self._modifiers(ev))


def release_canvas(canvas):
    """Free an EGL canvas whose widget is gone. vispy's EGL backend lists every canvas it makes in
    a module-level list and never takes one out, and never destroys the EGL contexts it creates
    (one per canvas): each closed window kept its canvas and scene, through the update hook the
    widget, the 3D view, the controller and the whole history, and in Mesa its context's buffers.
    Closes the canvas (its pbuffer), unhooks it, takes it off that list and destroys its context
    when no other canvas shares it."""
    backend = canvas._backend
    if backend is None:
        return
    shared = canvas.context.shared
    alone = [r() for r in shared._refs if r() is not None] == [backend]
    context = getattr(backend, "_native_context", None)
    backend._vispy_update = _nothing
    try:
        canvas.close()
    except RuntimeError:  # at exit, after vispy's EGL display was terminated: nothing to free
        return
    names = getattr(type(backend)._vispy_close, "__globals__", {})
    windows = names.get("_VP_EGL_ALL_WINDOWS")
    if windows is not None and backend in windows:
        windows.remove(backend)
    if alone and context and names.get("_EGL_DISPLAY") is not None:
        _destroy_egl_context(names["egl"], names["_EGL_DISPLAY"], context)
        backend._native_context = None


def _destroy_egl_context(egl, display, context):
    """eglDestroyContext (vispy does not wrap it), made not current first."""
    import ctypes
    lib = ctypes.CDLL(egl._lib._name)  # own function pointers: vispy's argtypes stay as they are
    lib.eglGetCurrentContext.restype = ctypes.c_void_p
    lib.eglMakeCurrent.argtypes = (ctypes.c_void_p,) * 4
    lib.eglDestroyContext.argtypes = (ctypes.c_void_p,) * 2
    ctx = getattr(context, "value", context)
    if lib.eglGetCurrentContext() == ctx:
        lib.eglMakeCurrent(display, None, None, None)
    lib.eglDestroyContext(display, ctx)


def _nothing():
    pass


def gl_renderer(canvas):
    """The OpenGL renderer's name ("llvmpipe (LLVM 15...)" for Mesa's software renderer)."""
    from vispy.gloo import gl
    canvas.set_current()
    return str(gl.glGetParameter(gl.GL_RENDERER) or "")
