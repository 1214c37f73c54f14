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
	touch $(STAMP)

# numba compiles the engine's kernels into its on-disk cache once (about 10 minutes on a fresh
# machine); later calls load them in seconds.
venv: $(STAMP)
	$(PY) -m nsgui.engine.warmup

run: venv
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

# The wheel smoke test (a fresh venv outside the checkout, which compiles its own kernels) runs beside
# the checkout's warm-up, each compile on its own core (~7 min saved on a fresh 2-core machine); its
# output is printed when both are done, so pytest's summary stays last. Either failing fails the target.
# pytest on PYTEST_WORKERS pytest-xdist workers (`make test PYTEST_WORKERS=0`: one process); --dist loadfile
# keeps a file's tests in one worker, so the windows and runs its class and module fixtures share are made
# once; each worker starts its own Xvfb (pytest-xvfb) and has its own display ticks' budget.
PYTEST_WORKERS ?= 2

test: system-deps $(STAMP)
	@$(PY) tests/wheel_smoke.py > $(VENV)/wheel-smoke.log 2>&1 & smoke=$$!; \
	$(PY) -m nsgui.engine.warmup; warm=$$?; \
	wait $$smoke; wheel=$$?; cat $(VENV)/wheel-smoke.log; \
	[ $$warm -eq 0 ] && [ $$wheel -eq 0 ]
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

wheel-smoke: $(STAMP)
	$(PY) tests/wheel_smoke.py

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
