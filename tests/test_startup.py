"""Start-up paths: the engine's light modules come without numba; `nsgui COMMAND` leaves without the
interpreter's teardown but after the atexit handlers. (Start-up times: benchmarks/startup.py.)"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))


def test_light_engine_modules_and_simulate_import_without_numba():
    out = python("import sys, nsgui.engine, nsgui.engine.codes, nsgui.engine.signals, nsgui.engine.export;"
                 "from nsgui.engine import simulate, Result; print(sorted(m for m in sys.modules if"
                 " m.split('.')[0] in ('numba', 'llvmlite', 'scipy')))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_engine_names_load_on_first_use_and_simulate_stays_the_function():
    out = python("import sys, inspect, nsgui.engine.simulate, nsgui.engine as e;"
                 "from nsgui.engine import Simulator, compile_scene, simulate, SimulationError, Model;"
                 "print(inspect.isfunction(simulate), inspect.isfunction(e.simulate), Simulator.__name__,"
                 " compile_scene.__module__, SimulationError.__module__, Model is e.Model, 'numba' in sys.modules)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "Simulator", "nsgui.engine.compile", "nsgui.engine.simulator",
                                  "True", "True"]
    missing = python("import nsgui.engine as e; e.no_such_name")
    assert "has no attribute 'no_such_name'" in missing.stderr


def test_a_command_run_as_the_program_runs_the_atexit_handlers_and_keeps_its_exit_code():
    out = python("import atexit, sys; atexit.register(lambda: print('atexit ran', flush=True));"
                 "sys.argv = ['nsgui', 'run', 'no_such_scene_anywhere'];"
                 "from nsgui.__main__ import main; sys.exit(main())")
    assert out.returncode == 2, out.stderr
    assert "no_such_scene_anywhere" in out.stderr
    assert out.stdout.strip() == "atexit ran"


def test_the_collector_paused_for_the_start_up_runs_again_once_the_run_steps():
    out = python("import atexit, gc, sys; atexit.register(lambda: print('collector on:', gc.isenabled(), flush=True));"
                 "sys.argv = ['nsgui', 'run', 'bouncing_ball', '--duration', '0.05', '--quiet'];"
                 "from nsgui.__main__ import main; sys.exit(main())")
    assert out.returncode == 0, out.stderr
    assert "steps            10" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "collector on: True"
