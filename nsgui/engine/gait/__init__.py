"""Gait analysis of walkers by Poincaré return maps (walking.md §7.3): the section, the return map,
its fixed point, eigenvalues and continuation in a scene parameter. Qt-free; docs/walking.md."""

from .return_map import ReturnMap, SectionEvent, Step
from .section import GaitError, Section

__all__ = ["GaitError", "ReturnMap", "Section", "SectionEvent", "Step"]
