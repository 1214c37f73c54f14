"""Area, centroid and polar moment of the scene's shapes, and a body's mass, inertia and centre of mass.

Works on any objects with the Shape / Body attribute names (dataclasses or namespaces), so the
validator can use it on half-checked data. All moments are *per unit density*; a body scales them to
its mass. Thin bars (capsules of radius 0) have no area: a body made only of those is treated as a
uniform line (J = L^3/12 per unit length), which gives the textbook m L^2 / 12.
"""
from __future__ import annotations

import math

import numpy as np

from .geometry import rot

__all__ = ["shape_area_properties", "shape_line_properties", "polygon_area_properties",
           "body_mass_properties", "combine"]


def polygon_area_properties(vertices) -> tuple[float, np.ndarray, float]:
    """(signed area, centroid, polar moment about the centroid) of a simple polygon, per unit density."""
    p = np.asarray(vertices, dtype=float)
    x, y = p[:, 0], p[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = 0.5 * cross.sum()
    if area == 0.0:
        return 0.0, p.mean(axis=0), 0.0
    cx = ((x + xn) * cross).sum() / (6.0 * area)
    cy = ((y + yn) * cross).sum() / (6.0 * area)
    # second moment about the origin, then the parallel-axis theorem back to the centroid
    j_origin = (cross * (x * x + x * xn + xn * xn + y * y + y * yn + yn * yn)).sum() / 12.0
    c = np.array([cx, cy])
    return area, c, j_origin - area * float(c @ c)


def shape_area_properties(shape) -> tuple[float, np.ndarray, float]:
    """(area, centroid in the body frame, polar moment of area about that centroid)."""
    offset = np.asarray(shape.offset, dtype=float)
    t = shape.type
    if t == "disk":
        r = float(shape.radius)
        a = math.pi * r * r
        return a, offset, a * r * r / 2.0
    if t == "box":
        w, h = float(shape.width), float(shape.height)
        a = w * h
        return a, offset, a * (w * w + h * h) / 12.0
    if t == "capsule":
        r, length = float(shape.radius), float(shape.length)
        if r == 0.0:
            return 0.0, offset, 0.0
        rect = 2.0 * r * length
        j = rect * (length * length + 4.0 * r * r) / 12.0
        # two half disks: polar moment about their flat edge's centre is (pi r^2/2) r^2/2 each;
        # move to their own centroid (distance d0) then to the capsule centre (distance L/2 + d0)
        half = math.pi * r * r / 2.0
        d0 = 4.0 * r / (3.0 * math.pi)
        j_half = half * r * r / 2.0 - half * d0 * d0 + half * (length / 2.0 + d0) ** 2
        return rect + 2.0 * half, offset, j + 2.0 * j_half
    if t == "polygon":
        a, c, j = polygon_area_properties(shape.vertices)
        return abs(a), offset + rot(float(shape.angle)) @ c, abs(j)
    if t == "point":
        return 0.0, offset, 0.0
    raise ValueError(f"unknown shape type {t!r}")


def shape_line_properties(shape) -> tuple[float, np.ndarray, float]:
    """(length, centre, polar moment per unit length) of a thin bar; zero for every other shape."""
    offset = np.asarray(shape.offset, dtype=float)
    if shape.type == "capsule" and float(shape.radius) == 0.0:
        length = float(shape.length)
        return length, offset, length ** 3 / 12.0
    return 0.0, offset, 0.0


def combine(parts) -> tuple[float, np.ndarray, float]:
    """Union of (measure, centroid, polar moment about own centroid): sum about the common centroid."""
    parts = [p for p in parts if p[0] > 0.0]
    total = sum(p[0] for p in parts)
    if total == 0.0:
        return 0.0, np.zeros(2), 0.0
    c = sum(p[0] * p[1] for p in parts) / total
    j = sum(p[2] + p[0] * float((p[1] - c) @ (p[1] - c)) for p in parts)
    return total, c, j


def body_mass_properties(body) -> tuple[float, float, np.ndarray]:
    """(mass, inertia about the centre of mass, centre of mass in the body frame) of a body.

    Explicit `mass`, `inertia` and `com` win. Missing ones come from the shapes with uniform density:
    `density` times area, or the given mass spread over the area (a thin-bar-only body spreads it
    over the bars' length). A body with neither mass nor density raises ValueError.
    """
    area, centroid, j_area = combine([shape_area_properties(s) for s in body.shapes])
    if area > 0.0:
        measure, centroid, j = area, centroid, j_area
    else:
        measure, centroid, j = combine([shape_line_properties(s) for s in body.shapes])
    if body.mass is not None:
        mass = float(body.mass)
    elif body.density is not None and area > 0.0:
        mass = float(body.density) * area
    elif body.density is not None:
        raise ValueError(f"body {body.name!r}: its shapes have no area, so the mass cannot come from the density")
    else:
        raise ValueError(f"body {body.name!r}: give mass or density")
    com = np.asarray(body.com, dtype=float) if body.com is not None else (
        centroid if measure > 0.0 else np.zeros(2))
    if body.inertia is not None:
        inertia = float(body.inertia)
    elif measure > 0.0:
        # uniform density over the shapes, about the centre of mass (which may be given apart)
        d = centroid - com
        inertia = mass / measure * (j + measure * float(d @ d))
    else:
        inertia = 0.0
    return mass, inertia, np.array(com, dtype=float)
