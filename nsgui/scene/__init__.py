"""The scene: plain, validated data (the file format, docs/scene-format.md), its loading and saving,
the editor's operations and templates, and scene geometry. No Qt, no engine: Python users build and
check scenes with this package alone.
"""

from .model import (Actuator, Body, Contact, Controller, ControllerBlock, ForceElement, Trajectory, Initial, Joint, JointLimits, LoopJoint, Obstacle,
                    PointRef, Problem, Scene, SceneError, Settings, Shape, ShapeRef, body_mass_properties,
                    coordinate_names, dumps_scene, joint_coordinates, load_scene, loads_scene, save_scene,
                    scene_from_dict, scene_to_dict, sorted_joints, validate_scene)
from .model import FORMAT_TAG, VERSION
from .paths import PathError, get_value, resolve_path, set_value, with_values
from .builder import SceneBuilder

__all__ = [
    "Actuator", "Body", "Contact", "Controller", "ControllerBlock", "Trajectory", "ForceElement", "Initial", "Joint", "JointLimits", "LoopJoint", "Obstacle",
    "PointRef", "Problem", "Scene", "SceneError", "Settings", "Shape", "ShapeRef", "body_mass_properties",
    "coordinate_names", "dumps_scene", "joint_coordinates", "load_scene", "loads_scene", "save_scene",
    "scene_from_dict", "scene_to_dict", "sorted_joints", "validate_scene", "FORMAT_TAG", "VERSION",
    "PathError", "get_value", "resolve_path", "set_value", "with_values", "SceneBuilder",
]
