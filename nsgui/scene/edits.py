"""Scene edits as plain functions that mutate a Scene in place (run inside `commands.edit`).

They keep the scene consistent as the user works: a new body gets a free joint so that it is
valid at once; joining two bodies replaces the child's free joint and keeps every pose; removing a
body takes its contacts, springs and actuators with it and frees its children where they stand.
"""

from __future__ import annotations

import copy
import math
import re

import numpy as np

from .model import (Actuator, Body, Contact, Controller, ControllerBlock, ForceElement, Joint, JointLimits, LoopJoint,
    Obstacle, PointRef, Shape, ShapeRef)
from .geometry import WORLD, body_poses, joint_coords, joint_of, rot, to_body, vec
from .reach import can_touch, candidate_pairs, pair_key, same_pair

DEFAULT_RESTITUTION = 0.5
DEFAULT_FRICTION = 0.3
DEFAULT_DENSITY = 100.0  # kg/m^2: a 0.1 m disk weighs ~3 kg

PALETTE_COLORS = ["#4c8bd6", "#d6784c", "#5fae5b", "#b45fc2", "#c9a93b", "#4cb8c4", "#d65c7a"]


class EditRefused(Exception):
    """Raised by an edit function to refuse an edit; the message is shown to the user."""


def unique_name(existing, base: str) -> str:
    """`base` if unused, else base2, base3, ... (names become signal names: keep them plain)."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "item"
    names = set(existing)
    if base not in names:
        return base
    m = re.match(r"^(.*?)(\d+)$", base)
    stem, k = (m.group(1), int(m.group(2))) if m else (base, 1)
    while True:
        k += 1
        if f"{stem}{k}" not in names:
            return f"{stem}{k}"


def all_names(scene) -> set[str]:
    out = {WORLD}
    for lst in (scene.bodies, scene.joints, scene.loops, scene.obstacles, scene.contacts, scene.forces,
                scene.actuators, scene.controllers):
        out.update(x.name for x in lst)
    return out


def find(lst, name):
    return next((x for x in lst if x.name == name), None)


# -- shapes and bodies ---------------------------------------------------------------------------
def make_shape(kind: str, **kw) -> Shape:
    """kind: disk (radius), box (width, height), bar (length, radius), polygon (vertices)."""
    if kind == "disk":
        return Shape(type="disk", name="disk0", radius=float(kw.get("radius", 0.1)))
    if kind == "box":
        return Shape(type="box", name="box0", width=float(kw.get("width", 0.2)),
                     height=float(kw.get("height", 0.1)))
    if kind in ("bar", "capsule"):
        return Shape(type="capsule", name="bar0", length=float(kw.get("length", 0.5)),
                     radius=float(kw.get("radius", 0.02)))
    if kind == "polygon":
        return Shape(type="polygon", name="polygon0", vertices=[list(map(float, v)) for v in kw["vertices"]])
    if kind == "point":
        return Shape(type="point", name="point0")
    raise ValueError(f"unknown shape kind {kind!r}")


def add_body(scene, shape: Shape, pose, name: str | None = None, density: float = DEFAULT_DENSITY,
             auto_contacts: bool = True) -> str:
    """Add a body with one shape at world pose (x, y, angle) on a free joint; returns its name."""
    names = all_names(scene)
    name = unique_name(names, name or {"disk": "ball", "box": "block", "capsule": "bar",
                                       "polygon": "plate", "point": "mass"}[shape.type])
    color = PALETTE_COLORS[len(scene.bodies) % len(PALETTE_COLORS)]
    scene.bodies.append(Body(name=name, density=density, shapes=[shape], color=color))
    jname = unique_name(names | {name}, f"{name}_free")
    scene.joints.append(Joint(name=jname, type="free", parent=WORLD, child=name))
    x, y, th = pose
    scene.initial.q.update({f"{jname}.x": float(x), f"{jname}.y": float(y), f"{jname}.theta": float(th)})
    if auto_contacts:
        add_contacts_for(scene, bodies={name})
    return name


def polygon_from_points(points) -> tuple[np.ndarray, list]:
    """(centroid, vertices relative to it, counter-clockwise) of a convex polygon drawn point by
    point; refuses non-convex or degenerate outlines with a message."""
    from .geometry import convex_hull
    pts = np.asarray(points, float)
    if len(pts) < 3:
        raise EditRefused("a polygon needs at least 3 points")
    hull = convex_hull(pts)
    if len(hull) < 3:
        raise EditRefused("the polygon's points are on one line")
    if len(hull) < len(pts):
        raise EditRefused("the polygon must be convex: a point lies inside the outline "
                          "(the hull of your points is used)")
    x, y = hull[:, 0], hull[:, 1]
    area = 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())
    if abs(area) < 1e-8:
        raise EditRefused("the polygon has no area")
    c = hull.mean(axis=0)
    return c, (hull - c).tolist()


# -- poses ---------------------------------------------------------------------------------------
def set_body_world_pose(scene, name: str, target, grab=None) -> None:
    """Move body `name` towards world pose `target` (x, y, angle) through its joint coordinate(s),
    keeping every joint closed: a free body goes there, a pinned body turns about its pin so that the
    grabbed body point `grab` points at the target position, a slider moves along its axis."""
    j = joint_of(scene, name)
    if j is None:
        return
    poses = body_poses(scene)
    parent_pose = poses.get(j.parent, (0.0, 0.0, 0.0)) if j.parent != WORLD else (0.0, 0.0, 0.0)
    tx, ty, tth = target
    q = scene.initial.q
    if j.type == "free":
        local = to_body(parent_pose, (tx, ty))
        q[f"{j.name}.x"], q[f"{j.name}.y"] = float(local[0]), float(local[1])
        q[f"{j.name}.theta"] = float(tth - parent_pose[2])
    elif j.type == "revolute":
        pose = poses[name]
        pivot = np.array(parent_pose[:2]) + rot(parent_pose[2]) @ vec(j.anchor_parent)
        g = vec((0, 0) if grab is None else grab)
        gw = np.array(pose[:2]) + rot(pose[2]) @ g
        cur = math.atan2(*(gw - pivot)[::-1])
        want = math.atan2(ty - pivot[1], tx - pivot[0]) if grab is not None else None
        if want is None or np.linalg.norm(gw - pivot) < 1e-9:
            dq = tth - pose[2]
        else:
            dq = want - cur
        dq = (dq + math.pi) % (2 * math.pi) - math.pi
        q[j.name] = float(q.get(j.name, 0.0) + dq)
    elif j.type == "prismatic":
        pose = poses[name]
        axis = rot(parent_pose[2]) @ vec(j.axis, (1, 0))
        axis = axis / (np.linalg.norm(axis) or 1.0)
        g = vec((0, 0) if grab is None else grab)
        gw = np.array(pose[:2]) + rot(pose[2]) @ g
        q[j.name] = float(q.get(j.name, 0.0) + (np.array([tx, ty]) - gw) @ axis)


def move_joint_anchor(scene, joint_name: str, world_point) -> None:
    """Move where a joint attaches to the world (or to its parent), carrying its child along."""
    j = find(scene.joints, joint_name)
    if j is None or j.type == "free":
        return
    poses = body_poses(scene)
    if j.parent == WORLD:
        j.anchor_parent = [float(world_point[0]), float(world_point[1])]
    else:
        j.anchor_parent = to_body(poses[j.parent], world_point).tolist()


# -- joints --------------------------------------------------------------------------------------
def ancestors(scene, name: str) -> list[str]:
    out, seen = [], set()
    j = joint_of(scene, name)
    while j is not None and j.parent != WORLD and j.parent not in seen:
        seen.add(j.parent)
        out.append(j.parent)
        j = joint_of(scene, j.parent)
    return out


def add_joint(scene, jtype: str, body: str, other: str, world_point, axis_angle: float = 0.0) -> str:
    """Join `body` and `other` (a body or "world") at `world_point` with a revolute (pin),
    prismatic (slider, along `axis_angle` in the world) or fixed (weld) joint, keeping all poses.

    The child is the body not yet attached to anything (its free joint is replaced). Joining two
    bodies that both hang from the tree already (or a body already attached to the world) closes a
    loop: that makes a loop joint (scene `loops`), and returns its name."""
    if body == other:
        raise EditRefused("a joint needs two different bodies (or a body and the world)")
    jb, jo = joint_of(scene, body), joint_of(scene, other) if other != WORLD else None
    free_b = jb is None or jb.type == "free"
    free_o = other != WORLD and (jo is None or jo.type == "free")
    if other == WORLD:
        child, parent = body, WORLD
    elif free_b:
        child, parent = body, other
    elif free_o:
        child, parent = other, body
    else:
        return add_loop_joint(scene, jtype, body, other, world_point, axis_angle)
    if parent != WORLD and child in ancestors(scene, parent) + [parent]:
        return add_loop_joint(scene, jtype, body, other, world_point, axis_angle)
    old = joint_of(scene, child)
    if old is not None and old.type != "free" and parent == WORLD:
        return add_loop_joint(scene, jtype, body, other, world_point, axis_angle)
    if old is not None and old.type != "free":
        raise EditRefused(f"{child!r} is already attached by joint {old.name!r}; delete that joint first")
    poses = body_poses(scene)
    pp = (0.0, 0.0, 0.0) if parent == WORLD else poses[parent]
    cp = poses[child]
    names = all_names(scene)
    base = {"revolute": "pin", "prismatic": "slider", "fixed": "weld"}[jtype]
    if old is not None:
        _drop_joint(scene, old, replace_actuators=False)
        names.discard(old.name)
    jname = unique_name(names, f"{base}_{child}")
    j = Joint(name=jname, type=jtype, parent=parent, child=child,
              anchor_parent=to_body(pp, world_point).tolist(),
              anchor_child=to_body(cp, world_point).tolist(),
              angle=float(cp[2] - pp[2]))
    if jtype == "prismatic":
        a = rot(-pp[2]) @ np.array([math.cos(axis_angle), math.sin(axis_angle)])
        j.axis = [float(a[0]), float(a[1])]
    scene.joints.append(j)
    # joined bodies do not collide with each other; a pinned body may no longer reach some things
    scene.contacts[:] = [c for c in scene.contacts if can_touch(scene, pair_key(c))]
    return jname


def _drop_joint(scene, joint, replace_actuators=True) -> None:
    coords = set(joint_coords(joint)) | {joint.name}
    scene.joints.remove(joint)
    for d in (scene.initial.q, scene.initial.v):
        for k in list(d):
            if k in coords:
                del d[k]
    scene.actuators[:] = [a for a in scene.actuators if a.joint not in coords]
    scene.forces[:] = [f for f in scene.forces if not (f.type == "joint_spring" and f.joint in coords)]


def free_body(scene, name: str, poses=None) -> None:
    """Replace the joint of body `name` by a free joint to the world at its current pose."""
    poses = poses or body_poses(scene)
    old = joint_of(scene, name)
    if old is not None and old.type == "free" and old.parent == WORLD:
        return
    x, y, th = poses.get(name, (0.0, 0.0, 0.0))
    v = {}
    if old is not None:
        _drop_joint(scene, old)
    jname = unique_name(all_names(scene), f"{name}_free")
    scene.joints.append(Joint(name=jname, type="free", parent=WORLD, child=name))
    scene.initial.q.update({f"{jname}.x": x, f"{jname}.y": y, f"{jname}.theta": th})
    scene.initial.v.update(v)


# -- obstacles, springs, actuators ---------------------------------------------------------------
def add_obstacle(scene, otype: str, **kw) -> str:
    name = unique_name(all_names(scene), kw.pop("name", otype))
    if otype == "segment":
        o = Obstacle(name=name, type="segment", a=list(map(float, kw["a"])), b=list(map(float, kw["b"])))
    else:
        n = np.asarray(kw.get("normal", (0.0, 1.0)), float)
        n = n / (np.linalg.norm(n) or 1.0)
        o = Obstacle(name=name, type=otype, point=list(map(float, kw.get("point", (0.0, 0.0)))),
                     normal=[float(n[0]), float(n[1])])
    scene.obstacles.append(o)
    add_contacts_for(scene, obstacles={name})
    return name


def add_spring(scene, a_body: str, a_world, b_body: str, b_world, stiffness=100.0, damping=0.0,
               name: str | None = None) -> str:
    poses = body_poses(scene)

    def ref(body, w):
        if body == WORLD:
            return PointRef(body=WORLD, point=[float(w[0]), float(w[1])])
        return PointRef(body=body, point=to_body(poses[body], w).tolist())

    if a_body == b_body:
        raise EditRefused("a spring needs its two ends on different bodies (or one on the world)")
    name = unique_name(all_names(scene), name or ("damper" if stiffness == 0 else "spring"))
    scene.forces.append(ForceElement(name=name, type="spring", a=ref(a_body, a_world), b=ref(b_body, b_world),
                                     stiffness=float(stiffness), damping=float(damping)))
    return name


def add_loop_joint(scene, jtype: str, body: str, other: str, world_point, axis_angle: float = 0.0) -> str:
    """A loop joint (revolute or prismatic along `axis_angle` in the world) between `body` and `other`
    (a body or "world"), both already in the tree, at `world_point`, keeping all poses."""
    if jtype not in ("revolute", "prismatic"):
        raise EditRefused(f"{body!r} and {other!r} are both attached already: a loop can be closed by a pin "
                          "or a slider, not a weld")
    poses = body_poses(scene)
    pa = poses[body]
    pb = (0.0, 0.0, 0.0) if other == WORLD else poses[other]
    name = unique_name(all_names(scene), f"{'loop_pin' if jtype == 'revolute' else 'loop_slider'}_{body}")
    axis = rot(-pa[2]) @ np.array([math.cos(axis_angle), math.sin(axis_angle)])
    scene.loops.append(LoopJoint(name=name, type=jtype,
                                 a=PointRef(body=body, point=to_body(pa, world_point).tolist()),
                                 b=PointRef(body=other, point=to_body(pb, world_point).tolist()),
                                 axis=[float(axis[0]), float(axis[1])],
                                 angle=float(pa[2] - pb[2]) if jtype == "prismatic" else None))
    scene.contacts[:] = [c for c in scene.contacts if can_touch(scene, pair_key(c))]
    return name


def add_joint_spring(scene, joint_name: str, stiffness=10.0, damping=0.0) -> str:
    """A spring–damper on a pin's or slider's coordinate, at rest at the current value."""
    j = find(scene.joints, joint_name)
    if j is None or j.type not in ("revolute", "prismatic"):
        raise EditRefused("a joint spring acts on a pin or slider joint")
    name = unique_name(all_names(scene), f"spring_{joint_name}")
    scene.forces.append(ForceElement(name=name, type="joint_spring", joint=joint_name, stiffness=float(stiffness),
                                     damping=float(damping), rest=float(scene.initial.q.get(joint_name, 0.0))))
    return name


def add_actuator(scene, joint_name: str) -> str:
    j = find(scene.joints, joint_name)
    if j is None or j.type not in ("revolute", "prismatic"):
        raise EditRefused("an actuator drives a pin or slider joint: click on one")
    name = unique_name(all_names(scene), f"motor_{joint_name}")
    scene.actuators.append(Actuator(name=name, joint=joint_name,
                                    controller=Controller(type="pd", kp=10.0, kd=1.0)))
    return name


def add_controller_block(scene, type_name: str, actuators) -> str:
    """A controller block of a registered type driving `actuators` (in that order), every parameter at its
    default; the actuators' own controllers become `none` (a block's actuators have none of their own)."""
    from .schema import CONTROLLER_BLOCK
    spec = CONTROLLER_BLOCK.types.get(type_name)
    if spec is None:
        raise EditRefused(f"unknown controller type {type_name!r}")
    actuators = list(actuators)
    if not actuators:
        raise EditRefused("select the actuators the controller drives")
    driven = {a: b.name for b in scene.controllers for a in (b.actuators or [])}
    for a in actuators:
        if find(scene.actuators, a) is None:
            raise EditRefused(f"no actuator named {a!r}")
        if a in driven:
            raise EditRefused(f"actuator {a!r} is already driven by controller {driven[a]!r}")
    block = ControllerBlock(name=unique_name(all_names(scene), type_name), type=type_name, actuators=actuators)
    for f in spec.fields:  # a type registered after the dataclass was made adds its keys here
        setattr(block, f.key, new_value(f))
    scene.controllers.append(block)
    for a in actuators:
        find(scene.actuators, a).controller = Controller(type="none")
    return block.name


def new_value(f):
    """A fresh valid value for a schema field: its default, or for a required one without default a
    plain valid value (a required list of numbers gets two increasing ones)."""
    v = f.fallback()
    if v is None and f.required and f.kind == "numbers":
        return [0.0, 1.0]
    return v


def set_limits(scene, joint_name: str, lower, upper, restitution=0.0) -> None:
    j = find(scene.joints, joint_name)
    j.limits = None if lower is None and upper is None else JointLimits(lower, upper, restitution)


# -- contacts ------------------------------------------------------------------------------------
def contact_name(scene, key) -> str:
    (ab, as_), (bk, bs) = key
    body = find(scene.bodies, ab)
    left = ab if body is None or len(body.shapes) <= 1 else f"{ab}_{as_}"
    if bk == "obstacle":
        right = bs
    else:
        other = find(scene.bodies, bk)
        right = bk if other is None or len(other.shapes) <= 1 else f"{bk}_{bs}"
    return unique_name(all_names(scene), f"{left}_{right}")


def make_contact(scene, key, restitution=DEFAULT_RESTITUTION, friction=DEFAULT_FRICTION) -> Contact:
    (ab, as_), (bk, bs) = key
    b = ShapeRef(obstacle=bs) if bk == "obstacle" else ShapeRef(body=bk, shape=bs)
    return Contact(name=contact_name(scene, key), a=ShapeRef(body=ab, shape=as_), b=b,
                   restitution=restitution, friction=friction)


def _norm(key):
    """A pair key independent of the order of two body shapes."""
    a, b = key
    return key if b[0] == "obstacle" else tuple(sorted((a, b)))


def newton_e(contact) -> float:
    """Newton's e_N of a contact, whatever its `impact_law` (Moreau's e: e_N = e/(2 − e))."""
    r = contact.restitution
    return r / (2.0 - r) if contact.impact_law == "moreau" else r


def moreau_e(contact) -> float:
    """The thesis' Moreau e of a contact: e = 2 e_N/(1 + e_N)."""
    e_n = newton_e(contact)
    return 2.0 * e_n / (1.0 + e_n)


def set_newton_e(contact, e_n: float) -> None:
    """Set the contact's restitution from Newton's e_N, in the terms of its impact law."""
    contact.restitution = 2.0 * e_n / (1.0 + e_n) if contact.impact_law == "moreau" else e_n


def set_moreau_e(contact, e: float) -> None:
    """Set the contact's restitution from Moreau's e, in the terms of its impact law."""
    contact.restitution = e if contact.impact_law == "moreau" else e / (2.0 - e)


def set_impact_law(contact, law: str) -> None:
    """Switch the contact's impact law keeping the same physical law (its restitution is converted)."""
    e_n = newton_e(contact)
    contact.impact_law = law
    set_newton_e(contact, e_n)


def contact_index(scene) -> dict:
    """{normalized pair key: contact} for fast lookups in long lists."""
    return {_norm(pair_key(c)): c for c in scene.contacts}


def find_contact(scene, key, index=None):
    if index is not None:
        return index.get(_norm(key))
    return next((c for c in scene.contacts if same_pair(pair_key(c), key)), None)


def add_contacts_for(scene, bodies=(), obstacles=()) -> list[str]:
    """Create a contact for every pair that can touch and involves one of the given items."""
    added = []
    index = contact_index(scene)
    for key in candidate_pairs(scene):
        (ab, _), (bk, bs) = key
        involved = ab in bodies or (bk == "obstacle" and bs in obstacles) or (bk != "obstacle" and bk in bodies)
        if involved and find_contact(scene, key, index) is None:
            c = make_contact(scene, key)
            scene.contacts.append(c)
            index[_norm(key)] = c
            added.append(c.name)
    return added


def set_contact_enabled(scene, key, enabled: bool) -> None:
    c = find_contact(scene, key)
    if enabled and c is None:
        scene.contacts.append(make_contact(scene, key))
    elif not enabled and c is not None:
        scene.contacts.remove(c)


# -- removal -------------------------------------------------------------------------------------
def dependants(scene, refs) -> dict[str, list[str]]:
    """What else goes when the items `refs` [(kind, name)] are removed: {kind: [names]}."""
    bodies = {n for k, n in refs if k == "body"}
    obstacles = {n for k, n in refs if k == "obstacle"}
    out = {"joint": [], "contact": [], "force": [], "actuator": []}
    for j in scene.joints:
        if (j.child in bodies or j.parent in bodies) and ("joint", j.name) not in refs:
            out["joint"].append(j.name)
    for c in scene.contacts:
        (ab, _), (bk, bs) = pair_key(c)
        if (ab in bodies or bk in bodies or (bk == "obstacle" and bs in obstacles)) and ("contact", c.name) not in refs:
            out["contact"].append(c.name)
    for f in scene.forces:
        ends = [getattr(f.a, "body", None), getattr(f.b, "body", None), f.body]
        if any(e in bodies for e in ends) and ("force", f.name) not in refs:
            out["force"].append(f.name)
    gone_joints = set(out["joint"]) | {n for k, n in refs if k == "joint"}
    for a in scene.actuators:
        base = a.joint.split(".")[0] if a.joint else ""
        if (a.joint in gone_joints or base in gone_joints) and ("actuator", a.name) not in refs:
            out["actuator"].append(a.name)
    return out


def remove_items(scene, refs) -> None:
    """Remove items [(kind, name)] and everything that depends on them. A removed joint frees its
    child where it stands (every body keeps exactly one joint); the children of a removed body are
    freed the same way."""
    refs = set(refs)
    poses = body_poses(scene)
    bodies = {n for k, n in refs if k == "body"}
    obstacles = {n for k, n in refs if k == "obstacle"}
    # children of removed bodies and of removed joints become free
    to_free = set()
    for j in list(scene.joints):
        if j.parent in bodies and j.child not in bodies:
            to_free.add(j.child)
        if ("joint", j.name) in refs and j.child not in bodies:
            to_free.add(j.child)
    for j in list(scene.joints):
        if j.child in bodies:
            _drop_joint(scene, j)
    for name in to_free:
        free_body(scene, name, poses)
    scene.bodies[:] = [b for b in scene.bodies if b.name not in bodies]
    scene.loops[:] = [lj for lj in scene.loops if ("loop", lj.name) not in refs
                      and lj.a.body not in bodies and lj.b.body not in bodies]
    scene.obstacles[:] = [o for o in scene.obstacles if o.name not in obstacles]
    gone_contacts = {n for k, n in refs if k == "contact"}

    def contact_alive(c):
        (ab, _), (bk, bs) = pair_key(c)
        return (c.name not in gone_contacts and ab not in bodies and bk not in bodies
                and not (bk == "obstacle" and bs in obstacles))

    scene.contacts[:] = [c for c in scene.contacts if contact_alive(c)]
    gone_forces = {n for k, n in refs if k == "force"}
    scene.forces[:] = [f for f in scene.forces if f.name not in gone_forces and not any(
        e in bodies for e in (getattr(f.a, "body", None), getattr(f.b, "body", None), f.body))]
    gone_act = {n for k, n in refs if k == "actuator"}
    scene.actuators[:] = [a for a in scene.actuators if a.name not in gone_act]
    kept = {a.name for a in scene.actuators}
    gone_blocks = {n for k, n in refs if k == "controller"}
    for b in scene.controllers:
        b.actuators = [a for a in (b.actuators or []) if a in kept]
    scene.controllers[:] = [b for b in scene.controllers if b.name not in gone_blocks and b.actuators]
    for d in (scene.initial.q, scene.initial.v):
        coords = {q for j in scene.joints for q in joint_coords(j)}
        for k in list(d):
            if k not in coords:
                del d[k]


# -- copy / paste --------------------------------------------------------------------------------
def extract(scene, refs) -> dict:
    """A clipboard fragment: the selected bodies with their joints among themselves (or to the
    world), their world poses, the selected obstacles and springs between selected bodies."""
    bodies = [copy.deepcopy(b) for b in scene.bodies if ("body", b.name) in refs]
    names = {b.name for b in bodies}
    poses = body_poses(scene)
    return {
        "bodies": bodies,
        "poses": {n: poses[n] for n in names},
        "joints": [copy.deepcopy(j) for j in scene.joints
                   if j.child in names and (j.parent == WORLD or j.parent in names) and j.type != "free"],
        "q": dict(scene.initial.q),
        "v": dict(scene.initial.v),
        "obstacles": [copy.deepcopy(o) for o in scene.obstacles if ("obstacle", o.name) in refs],
        "forces": [copy.deepcopy(f) for f in scene.forces if f.type == "spring" and (
            ("force", f.name) in refs or (f.a.body in names | {WORLD} and f.b.body in names | {WORLD}
                                          and (f.a.body in names or f.b.body in names)))],
    }


def paste(scene, fragment, offset=(0.2, -0.2)) -> list[tuple[str, str]]:
    """Insert a copy of a clipboard fragment shifted by `offset`; returns the new items' refs."""
    dx, dy = offset
    rename = {}
    out = []
    for b in fragment["bodies"]:
        b = copy.deepcopy(b)
        new = unique_name(all_names(scene), b.name)
        rename[b.name] = new
        x, y, th = fragment["poses"][b.name]
        b.name = new
        scene.bodies.append(b)
        jname = unique_name(all_names(scene), f"{new}_free")
        scene.joints.append(Joint(name=jname, type="free", parent=WORLD, child=new))
        scene.initial.q.update({f"{jname}.x": x + dx, f"{jname}.y": y + dy, f"{jname}.theta": th})
        out.append(("body", new))
    for j0 in fragment["joints"]:
        j = j0
        child = rename[j.child]
        parent = rename.get(j.parent, WORLD)
        old = joint_of(scene, child)
        _drop_joint(scene, old)
        j = copy.deepcopy(j)
        j.name = unique_name(all_names(scene), j.name)
        j.child, j.parent = child, parent
        if parent == WORLD:
            j.anchor_parent = [j.anchor_parent[0] + dx, j.anchor_parent[1] + dy]
        scene.joints.append(j)
        for old_c, new_c in zip(joint_coords(j0), joint_coords(j)):  # same pose and speed as copied
            for key in ("q", "v"):
                if old_c in fragment.get(key, {}):
                    getattr(scene.initial, key)[new_c] = fragment[key][old_c]
        out.append(("joint", j.name))
    for o in fragment["obstacles"]:
        o = copy.deepcopy(o)
        o.name = unique_name(all_names(scene), o.name)
        if o.type == "segment":
            o.a = [o.a[0] + dx, o.a[1] + dy]
            o.b = [o.b[0] + dx, o.b[1] + dy]
        else:
            o.point = [o.point[0] + dx, o.point[1] + dy]
        scene.obstacles.append(o)
        out.append(("obstacle", o.name))
    for f in fragment["forces"]:
        f = copy.deepcopy(f)
        f.name = unique_name(all_names(scene), f.name)
        for end in (f.a, f.b):
            if end.body == WORLD:
                end.point = [end.point[0] + dx, end.point[1] + dy]
            else:
                end.body = rename.get(end.body, end.body)
        scene.forces.append(f)
        out.append(("force", f.name))
    add_contacts_for(scene, bodies={n for k, n in out if k == "body"},
                     obstacles={n for k, n in out if k == "obstacle"})
    return out


def drag_body(scene, name: str, grab, mouse, snap=None) -> None:
    """Drag body `name` so that its body-frame point `grab` follows the world point `mouse` as far
    as its joint allows: free bodies translate (their origin snapped by `snap` if given), pinned
    bodies turn about the pin, sliders slide, welded bodies drag what they are welded to."""
    j = joint_of(scene, name)
    if j is None:
        return
    poses = body_poses(scene)
    pose = poses[name]
    grab = np.asarray(grab, float)
    mouse = np.asarray(mouse, float)
    if j.type == "free":
        origin = mouse - rot(pose[2]) @ grab
        if snap is not None:
            origin = np.asarray(snap(origin), float)
        set_body_world_pose(scene, name, (origin[0], origin[1], pose[2]))
    elif j.type == "fixed":
        if j.parent == WORLD:
            delta = mouse - (np.array(pose[:2]) + rot(pose[2]) @ grab)
            j.anchor_parent = (vec(j.anchor_parent) + delta).tolist()
        else:
            world_grab = np.array(pose[:2]) + rot(pose[2]) @ grab
            drag_body(scene, j.parent, to_body(poses[j.parent], world_grab), mouse, snap)
    else:
        set_body_world_pose(scene, name, (mouse[0], mouse[1], pose[2]), grab)


def rotate_body(scene, name: str, angle: float) -> None:
    """Set the world angle of a body through its joint (free or pin)."""
    j = joint_of(scene, name)
    if j is None or j.type not in ("free", "revolute"):
        return
    pose = body_poses(scene)[name]
    set_body_world_pose(scene, name, (pose[0], pose[1], angle))


def resize_shape(scene, body_name: str, shape_name: str, local) -> None:
    """Resize a shape so that its size handle sits at body-frame point `local`."""
    body = find(scene.bodies, body_name)
    s = find(body.shapes, shape_name)
    rel = rot(-float(s.angle or 0.0)) @ (np.asarray(local, float) - vec(s.offset))
    minimum = 0.005
    if s.type == "disk":
        s.radius = max(minimum, float(np.linalg.norm(rel)))
    elif s.type == "box":
        s.width = max(minimum, 2 * abs(float(rel[0])))
        s.height = max(minimum, 2 * abs(float(rel[1])))
    elif s.type == "capsule":
        s.length = max(minimum, 2 * abs(float(rel[0])))


def translate_obstacle(obstacle, delta) -> None:
    dx, dy = float(delta[0]), float(delta[1])
    if obstacle.type == "segment":
        obstacle.a = [obstacle.a[0] + dx, obstacle.a[1] + dy]
        obstacle.b = [obstacle.b[0] + dx, obstacle.b[1] + dy]
    else:
        obstacle.point = [obstacle.point[0] + dx, obstacle.point[1] + dy]


# -- renaming ------------------------------------------------------------------------------------
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def rename_item(scene, kind: str, old: str, new: str, body: str | None = None) -> None:
    """Rename an item and every reference to it (joints, contacts, springs, actuators, initial
    coordinates). `body` names the owner when renaming a shape."""
    new = new.strip()
    if new == old:
        return
    if not NAME_RE.match(new):
        raise EditRefused(f"{new!r} is not a usable name: use letters, digits and _ (no spaces or dots)")
    if kind == "shape":
        b = find(scene.bodies, body)
        if find(b.shapes, new) is not None:
            raise EditRefused(f"body {body!r} already has a shape named {new!r}")
        find(b.shapes, old).name = new
        for c in scene.contacts:
            for r in (c.a, c.b):
                if r.body == body and r.shape == old:
                    r.shape = new
        return
    lists = {"body": scene.bodies, "joint": scene.joints, "loop": scene.loops, "obstacle": scene.obstacles,
             "contact": scene.contacts, "force": scene.forces, "actuator": scene.actuators,
             "controller": scene.controllers}
    if new in all_names(scene):
        raise EditRefused(f"the name {new!r} is already used")
    find(lists[kind], old).name = new
    if kind == "body":
        for j in scene.joints:
            j.parent = new if j.parent == old else j.parent
            j.child = new if j.child == old else j.child
        for c in scene.contacts:
            for r in (c.a, c.b):
                if r.body == old:
                    r.body = new
        for lj in scene.loops:
            for r in (lj.a, lj.b):
                if r.body == old:
                    r.body = new
        for f in scene.forces:
            for r in (f.a, f.b):
                if r is not None and r.body == old:
                    r.body = new
            if f.body == old:
                f.body = new
    elif kind == "joint":
        def ren(k):
            if k == old:
                return new
            if k.startswith(old + ".") and k[len(old) + 1:] in ("x", "y", "theta"):
                return new + k[len(old):]
            return k
        for d in (scene.initial.q, scene.initial.v):
            items = list(d.items())
            d.clear()
            d.update({ren(k): v for k, v in items})
        for a in scene.actuators:
            a.joint = ren(a.joint)
        for f in scene.forces:
            if f.joint:
                f.joint = ren(f.joint)
    elif kind == "obstacle":
        for c in scene.contacts:
            if c.b.obstacle == old:
                c.b.obstacle = new
    elif kind == "actuator":
        for b in scene.controllers:
            b.actuators = [new if a == old else a for a in (b.actuators or [])]
