"""Controllers (docs/controllers.md): blocks that drive groups of actuators, sampled inside the
compiled loop (kernel.py), one law per file, each packed from its scene declaration
(nsgui/scene/controller_types.py) by `build.py`; Python controllers run between kernel calls
(external.py)."""
