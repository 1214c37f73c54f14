"""BLAS and OpenMP on one thread for the benchmark scripts: `import single_blas` before numpy, numba or
Siconos load (they read these variables once, when their BLAS loads); a value already set is kept.

The step problems are tiny: OpenBLAS's threads only add overhead, several-fold on a loaded 2-core machine
(and on a busy one they spin waiting for each other: docs/test-suite.md). A script run as
`python benchmarks/NAME.py` has benchmarks/ on sys.path. (peers.py keeps its own lines: other scripts load it
with runpy.run_path, with or without benchmarks/ on their path; tests/conftest.py too: the tests do not
import benchmarks/.)
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
