"""The benchmark examples: where each nsgui scene comes from, and the Siconos parameters derived from it.

Runs in the project venv. `siconos_params(key, scene)` reads the nsgui Scene (masses, geometry,
restitution, friction, initial state, settings) so that the Siconos model in siconos_scenes.py does the
same work; it raises ValueError, naming the scene and the key, when a scene no longer has the shape the
Siconos model assumes (e.g. a body whose centre of mass is off its frame origin).
"""
import copy
import os

from nsgui.scene import body_mass_properties, coordinate_names, load_scene, scene_from_dict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE_DIR = os.path.join(ROOT, "resources", "scenes")

# benchmark key -> nsgui scene file (None: built in memory by bead_column_scene)
EXAMPLES = {
    "bouncing_ball": "bouncing_ball.json",
    "falling_rod": "falling_rod.json",
    "sliding_box": "sliding_box.json",
    "double_pendulum": "double_pendulum_wall.json",
    "bead_column_10": None,
    "bead_column_50": None,
    "bead_column_100": None,
}


def bead_column_scene(n, radius=0.1, mass=1.0, y0=0.3, spacing=0.201, e=0.5, dt=1e-3, duration=2.0):
    """N 1-dof beads on vertical prismatic joints (q = centre height), ground contact under bead 0 and
    bead i+1 on bead i, dropped from rest with bead i at y0 + spacing * i."""
    bodies, joints, contacts, q0 = [], [], [], {}
    for i in range(n):
        bodies.append({"name": f"b{i}", "mass": mass, "inertia": 0.5 * mass * radius ** 2,
                       "shapes": [{"name": "disk", "type": "disk", "radius": radius}]})
        joints.append({"name": f"y{i}", "type": "prismatic", "parent": "world", "child": f"b{i}",
                       "axis": [0.0, 1.0]})
        q0[f"y{i}"] = y0 + spacing * i
        if i == 0:
            contacts.append({"name": "c0", "a": {"body": "b0", "shape": "disk"}, "b": {"obstacle": "ground"},
                             "restitution": e})
        else:
            contacts.append({"name": f"c{i}", "a": {"body": f"b{i}", "shape": "disk"},
                             "b": {"body": f"b{i - 1}", "shape": "disk"}, "restitution": e})
    return scene_from_dict({
        "format": "nsgui-scene", "version": 1, "name": f"Bead column N = {n}",
        "bodies": bodies, "joints": joints,
        "obstacles": [{"name": "ground", "type": "ground", "point": [0.0, 0.0], "normal": [0.0, 1.0]}],
        "contacts": contacts, "initial": {"q": q0},
        "settings": {"dt": dt, "duration": duration, "theta": 0.5, "projection": False},
    })


def load_example(key):
    """The nsgui Scene of a benchmark example, with projection off (the plain Moreau–Jean scheme)."""
    if key not in EXAMPLES:
        raise ValueError(f"unknown example '{key}'; known: {', '.join(EXAMPLES)}")
    fname = EXAMPLES[key]
    if fname is None:
        scene = bead_column_scene(int(key.rsplit("_", 1)[1]))
    else:
        scene = load_scene(os.path.join(SCENE_DIR, fname))
    scene = copy.deepcopy(scene)
    scene.settings.projection = False
    return scene


def _fail(key, what):
    raise ValueError(f"{key}: the Siconos model assumes {what}")


def _common(key, scene):
    s = scene.settings
    gx, gy = scene.gravity
    if gx != 0.0:
        _fail(key, "vertical gravity")
    return dict(h=s.dt, T=s.duration, theta=s.theta, g=-gy)


def _initial(scene):
    names = coordinate_names(scene)
    return ([float(scene.initial.q.get(n, 0.0)) for n in names],
            [float(scene.initial.v.get(n, 0.0)) for n in names])


def _ground_y(key, scene, obstacle_name):
    ob = next(o for o in scene.obstacles if o.name == obstacle_name)
    nx, ny = ob.normal
    if ob.type not in ("ground", "wall") or abs(nx) > 1e-15 or ny <= 0:
        _fail(key, f"obstacle '{obstacle_name}' is a horizontal ground with normal +y")
    return float(ob.point[1])


def _single_free_body(key, scene):
    if len(scene.bodies) != 1 or len(scene.joints) != 1 or scene.joints[0].type != "free":
        _fail(key, "one body on a free joint")
    body = scene.bodies[0]
    m, inertia, com = body_mass_properties(body)
    if abs(com[0]) > 1e-15 or abs(com[1]) > 1e-15:
        _fail(key, f"body '{body.name}' has its centre of mass at its frame origin")
    if len(scene.contacts) != 1 or scene.contacts[0].b.obstacle is None:
        _fail(key, "a single contact between the body and a ground")
    shape = next(sh for sh in body.shapes if sh.name == scene.contacts[0].a.shape)
    if any(abs(x) > 1e-15 for x in shape.offset) or abs(shape.angle or 0.0) > 1e-15:
        _fail(key, f"shape '{shape.name}' is centred on the body frame and not rotated")
    q0, v0 = _initial(scene)
    c = scene.contacts[0]
    return body, shape, c, dict(m=m, inertia=inertia, q0=q0, v0=v0, e=c.restitution,
                                ground_y=_ground_y(key, scene, c.b.obstacle))


def siconos_params(key, scene):
    """Parameters for siconos_scenes.py (keys of its DEFAULTS) doing the same work as `scene`."""
    p = _common(key, scene)
    if key == "bouncing_ball":
        body, shape, c, extra = _single_free_body(key, scene)
        if shape.type != "disk" or c.friction != 0.0:
            _fail(key, "a frictionless disk")
        p.update(extra, radius=shape.radius)
    elif key == "falling_rod":
        body, shape, c, extra = _single_free_body(key, scene)
        if shape.type != "capsule" or c.friction != 0.0:
            _fail(key, "a frictionless capsule")
        p.update(extra, length=shape.length, radius=shape.radius or 0.0)
    elif key == "sliding_box":
        body, shape, c, extra = _single_free_body(key, scene)
        if shape.type != "box" or c.friction <= 0.0:
            _fail(key, "a box with friction")
        p.update(extra, width=shape.width, height=shape.height, mu=c.friction,
                 tolerance=scene.settings.tolerance, max_iterations=scene.settings.max_iterations)
    elif key == "double_pendulum":
        p.update(_double_pendulum(key, scene))
    elif key.startswith("bead_column_"):
        p.update(_bead_column(key, scene))
    else:
        raise ValueError(f"unknown example '{key}'")
    return p


def _double_pendulum(key, scene):
    j1, j2 = scene.joints
    if (j1.type, j2.type) != ("revolute", "revolute") or j1.parent != "world" or j2.parent != j1.child:
        _fail(key, "a chain of two revolute joints from the world")
    bodies = {b.name: b for b in scene.bodies}
    out = {}
    for k, j in ((1, j1), (2, j2)):
        b = bodies[j.child]
        m, inertia, com = body_mass_properties(b)
        # body frame at the mass (com at the origin), pivot at anchor_child straight above it at q = 0
        ax, ay = j.anchor_child
        if abs(com[0]) > 1e-15 or abs(com[1]) > 1e-15 or abs(ax) > 1e-15 or ay <= 0 or abs(j.angle) > 1e-15:
            _fail(key, f"body '{b.name}' has its mass at its frame origin, 1 link length below its pivot")
        if k == 2 and (abs(j.anchor_parent[0]) > 1e-15 or abs(j.anchor_parent[1]) > 1e-15):
            _fail(key, "joint 2 pivots at the first mass")
        out.update({f"m{k}": m, f"i{k}": inertia, f"l{k}": ay})
    if abs(j1.anchor_parent[0]) > 1e-15 or abs(j1.anchor_parent[1]) > 1e-15:
        _fail(key, "the first pivot at the origin")
    by_body = {}
    for c in scene.contacts:
        ob = next(o for o in scene.obstacles if o.name == c.b.obstacle)
        if abs(ob.normal[1]) > 1e-15 or ob.normal[0] <= 0 or c.friction != 0.0:
            _fail(key, "frictionless contacts with a wall of normal +x")
        shape = next(sh for sh in bodies[c.a.body].shapes if sh.name == c.a.shape)
        if any(abs(x) > 1e-15 for x in shape.offset):
            _fail(key, "contact shapes centred on the masses")
        r = shape.radius if shape.type == "disk" else 0.0
        by_body[c.a.body] = (c.restitution, float(ob.point[0]) + r)
    (out["e1"], out["wall_x1"]), (out["e2"], out["wall_x2"]) = by_body[j1.child], by_body[j2.child]
    q0, v0 = _initial(scene)
    out.update(q0=q0, v0=v0, relative=True)  # nsgui coordinates: theta2 is relative to link 1
    return out


def _bead_column(key, scene):
    index = {}
    for i, j in enumerate(scene.joints):
        if j.type != "prismatic" or j.parent != "world" or abs(j.axis[0]) > 1e-15 or j.axis[1] <= 0:
            _fail(key, "beads on vertical prismatic joints from the world")
        if abs(j.anchor_parent[1]) > 1e-15 or abs(j.anchor_child[1]) > 1e-15:
            _fail(key, "prismatic coordinates equal to the bead heights")
        index[j.child] = i
    masses = {body_mass_properties(b)[0] for b in scene.bodies}
    radii = {sh.radius for b in scene.bodies for sh in b.shapes if sh.type == "disk"}
    rest = {c.restitution for c in scene.contacts}
    if len(masses) != 1 or len(radii) != 1 or len(rest) != 1:
        _fail(key, "identical beads and one restitution")
    pairs, ground_y = [], 0.0
    for c in scene.contacts:
        if c.b.obstacle is not None:
            ground_y = _ground_y(key, scene, c.b.obstacle)
            pairs.append([-1, index[c.a.body]])
        else:
            lo, hi = sorted((index[c.a.body], index[c.b.body]))
            pairs.append([lo, hi])
    q0, v0 = _initial(scene)
    return dict(n=len(scene.bodies), m=masses.pop(), radius=radii.pop(), e=rest.pop(), ground_y=ground_y,
                y_init=q0, v_init=v0, pairs=pairs)
