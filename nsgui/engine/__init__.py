"""The physics engine: scene model, planar multibody dynamics, contacts, Moreau–Jean time stepping.

Pure numpy/scipy/numba; never imports Qt or views. See docs/engine-api.md.
"""

from ._numba_cache import ensure_fresh as _ensure_fresh

_ensure_fresh()

from .scene import (Actuator, Body, Contact, Controller, ForceElement, Initial, Joint, JointLimits, Obstacle,
                    PointRef, Problem, Scene, SceneError, Settings, Shape, ShapeRef, body_mass_properties,
                    coordinate_names, dumps_scene, load_scene, loads_scene, save_scene, scene_from_dict,
                    scene_to_dict, validate_scene)
from .compile import Model, compile_scene
from .simulator import Event, SimState, SimulationError, Simulator
from .simulate import Result, simulate

__all__ = [
    "Actuator", "Body", "Contact", "Controller", "ForceElement", "Initial", "Joint", "JointLimits", "Obstacle",
    "PointRef", "Problem", "Scene", "SceneError", "Settings", "Shape", "ShapeRef", "body_mass_properties",
    "coordinate_names", "dumps_scene", "load_scene", "loads_scene", "save_scene", "scene_from_dict",
    "scene_to_dict", "validate_scene", "Model", "compile_scene", "Event", "SimState", "SimulationError",
    "Simulator", "Result", "simulate",
]
