# The README's two set-up commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SCENE ?= default

# System packages the GUI tests need (Xvfb + Mesa software OpenGL + Qt's xcb deps).
SYSTEM_PACKAGES := xvfb xauth libgl1-mesa-dri libegl1 libgl1 libglx-mesa0 libxkbcommon-x11-0 \
	libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 \
	libxcb-render-util0 libxcb-image0 libdbus-1-3 libfontconfig1 libegl-mesa0

.PHONY: run test wheel-smoke system-deps venv bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m nsgui.engine.warmup
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(PY) -m nsgui.engine.warmup -q
	$(VENV)/bin/nsgui $(SCENE)

# Installs Xvfb and Mesa when run as root on a Debian-like machine and they are missing.
system-deps:
	@if ! command -v Xvfb >/dev/null 2>&1 || ! ldconfig -p | grep -q libxcb-cursor || ! ldconfig -p | grep -q libEGL_mesa; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing system packages for the GUI tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null; \
	  else \
	    echo "warning: Xvfb/Mesa missing and not root; GUI tests will be skipped" >&2; \
	  fi; \
	fi

# The wheel smoke test (a fresh venv outside the checkout) runs first: pytest's summary stays last.
test: system-deps $(STAMP)
	$(PY) -m nsgui.engine.warmup -q
	$(PY) tests/wheel_smoke.py
	$(PY) -m pytest -q

wheel-smoke: $(STAMP)
	$(PY) tests/wheel_smoke.py

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
