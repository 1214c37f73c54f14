"""Write box_pyramid.json (a pyramid of boxes with friction), disk_pile.json (45 disks dropped into a box,
friction) and disk_pile_200.json (200 disks packed in a box, at rest from the start).

Run from the repository root: `.venv/bin/python resources/scenes/make_heaps.py`.
`box_pyramid(rows)` and `disk_pile(rows, per_row, packed)` also make other sizes (the tests run small ones,
benchmarks/peers.py the example files, a 55-box pyramid and the dropped 200-disk pile `disk_pile()`). The piles
are hyperstatic (more contact rows than the disks' coordinates can separate): NSGS alone stalls on
their landing steps, and the `auto` solver finishes those with Lemke (solvers/fc2d_auto.py). That costs
O(contacts²) a pivot: the dropped example is 45 disks (a few s of CPU to land, then 0.03 ms a step at rest);
a dropped 200-disk pile's landing steps take 0.1-30 s each (docs/benchmarks.md, sessions 8-16), so the
200-disk example starts packed: every disk touching the two below it, at rest, as a poured pile has
settled (its first steps take up the weight: ~300 NSGS sweeps, then 0-1 a step). Scenes list their contact
pairs explicitly (nsgui has no broad phase), so the heaps start close to where they settle and list every
pair that can touch:
- the pyramid: each box with the two it stands on, and with its row neighbours (1 cm apart);
- the piles: disks on a hexagonal lattice (each row 1 cm above its rest height, or packed); every pair
  closer than 2.5 r (the lattice's first neighbours; second ones are 2 sqrt(3) r apart), walls and ground
  for the disks next to them; the walls are frictionless, so the ground carries the whole weight. The
  piles' tests check that no pair left out ever comes closer than 2 r.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from nsgui.scene import (Body, Contact, Initial, Joint, Obstacle, Scene, Settings, Shape, ShapeRef,
    save_scene, validate_scene)

GRAVITY = 9.81
DROP = 0.01                         # every row starts this far above its rest height (it settles)
# pyramid: square boxes, side BOX, rows BOX_GAP apart sideways; the top row has one box
BOX, BOX_MASS, BOX_GAP, BOX_MU = 0.2, 1.0, 0.01, 0.5
PYRAMID_ROWS = 5                    # 15 boxes
# pile: disks of radius R on a hexagonal lattice, in a box of inner width 2 R PER_ROW + PLAY
R, DISK_MASS, DISK_MU, PER_ROW, PILE_ROWS, PLAY = 0.1, 1.0, 0.3, 10, 21, 0.01   # 11 x 10 + 10 x 9 = 200
EXAMPLE_PILE = (10, 5)              # disk_pile.json: 10 rows of 5 and 4 disks, dropped
PACKED_PILE = (PILE_ROWS, PER_ROW)  # disk_pile_200.json: 200 disks, packed (at rest from the start)
NEIGHBOUR = 2.5                     # pairs closer than NEIGHBOUR * R (centres) at the start are listed


def _free_body(name, shape, mass, color):
    body = Body(name=name, mass=mass, shapes=[shape], color=color)
    return body, Joint(name=name, type="free", child=name)


def _contact(name, a, b, mu):
    return Contact(name=name, a=a, b=b, restitution=0.0, friction=mu)


def box_pyramid(rows: int = PYRAMID_ROWS) -> Scene:
    """rows * (rows + 1) / 2 boxes; row k (from the ground) holds rows - k boxes, each centred over
    the gap between two boxes of the row below."""
    bodies, joints, contacts, q0 = [], [], [], {}
    pitch = BOX + BOX_GAP
    names = []
    for k in range(rows):
        row = []
        for i in range(rows - k):
            name = f"box{k}_{i}"
            body, joint = _free_body(name, Shape(type="box", name="box", width=BOX, height=BOX), BOX_MASS,
                                     "#c98a3c" if (k + i) % 2 == 0 else "#8a5cc9")
            bodies.append(body)
            joints.append(joint)
            q0[f"{name}.x"] = round((i - (rows - k - 1) / 2) * pitch, 12)
            q0[f"{name}.y"] = round(BOX / 2 + k * (BOX + DROP) + DROP, 12)
            ref = ShapeRef(body=name, shape="box")
            if k == 0:
                contacts.append(_contact(f"{name}_ground", ref, ShapeRef(obstacle="ground"), BOX_MU))
            else:
                for j in (i, i + 1):
                    contacts.append(_contact(f"{name}_on_box{k - 1}_{j}", ref,
                                             ShapeRef(body=f"box{k - 1}_{j}", shape="box"), BOX_MU))
            if i > 0:
                contacts.append(_contact(f"{name}_box{k}_{i - 1}", ref,
                                         ShapeRef(body=f"box{k}_{i - 1}", shape="box"), BOX_MU))
            row.append(name)
        names.append(row)
    n = len(bodies)
    return Scene(
        name=f"Box pyramid ({n} boxes)",
        description=(f"{n} square boxes (side {BOX} m, m = {BOX_MASS} kg, inertia from the box) on free joints, "
                     f"stacked in {rows} rows with {BOX_GAP} m between neighbours; each box stands on the two "
                     f"below it. Every row starts {DROP} m above its rest height and settles. Contacts: "
                     f"ground, the two boxes below and the row neighbours; mu = {BOX_MU}, restitution 0. At "
                     "rest the ground carries the whole weight and nothing creeps. Generated by make_heaps.py "
                     "(box_pyramid(rows))."),
        bodies=bodies, joints=joints,
        obstacles=[Obstacle(name="ground", type="ground", point=[0.0, 0.0], normal=[0.0, 1.0])],
        contacts=contacts, initial=Initial(q=q0),
        settings=Settings(dt=1e-3, duration=2.0))


def pile_positions(rows: int = PILE_ROWS, per_row: int = PER_ROW, packed: bool = False):
    """Disk centres (x, y) row by row: even rows per_row disks spread over the width, odd rows
    per_row - 1 disks in the pockets; row k starts sqrt(3) R + DROP above row k - 1 (the first DROP above
    the ground), or, packed, at its resting height: touching the two disks below it, at rest."""
    width = 2 * R * per_row + PLAY
    pitch = (width - 2 * R) / (per_row - 1)      # even rows: the end disks touch the walls
    # packed: the rows' spacing where a disk touches the two below it (pitch > 2 R: a row's disks do not touch)
    rise, drop = (math.sqrt(4 * R * R - pitch * pitch / 4), 0.0) if packed else (math.sqrt(3.0) * R + DROP, DROP)
    out = []
    for k in range(rows):
        y = R + k * rise + drop
        if k % 2 == 0:
            xs = [R + i * pitch for i in range(per_row)]
        else:
            xs = [R + (i + 0.5) * pitch for i in range(per_row - 1)]
        out.extend((round(x - width / 2, 12), round(y, 12)) for x in xs)
    return out, width


def pile_pairs(positions):
    """Index pairs (i, j), i > j, of the disks whose centres start closer than NEIGHBOUR * R."""
    lim = (NEIGHBOUR * R) ** 2
    return [(i, j) for i, (xi, yi) in enumerate(positions) for j, (xj, yj) in enumerate(positions[:i])
            if (xi - xj) ** 2 + (yi - yj) ** 2 < lim]


def disk_pile(rows: int = PILE_ROWS, per_row: int = PER_ROW, packed: bool = False) -> Scene:
    positions, width = pile_positions(rows, per_row, packed)
    bodies, joints, contacts, q0 = [], [], [], {}
    walls = [("ground", 1, 0.0), ("left", 0, -width / 2), ("right", 0, width / 2)]
    for i, (x, y) in enumerate(positions):
        name = f"disk{i}"
        body, joint = _free_body(name, Shape(type="disk", name="disk", radius=R), DISK_MASS,
                                 "#d64c4c" if i % 2 == 0 else "#4c8bd6")
        bodies.append(body)
        joints.append(joint)
        q0[f"{name}.x"], q0[f"{name}.y"] = x, y
        ref = ShapeRef(body=name, shape="disk")
        for wall, axis, at in walls:
            if abs((x, y)[axis] - at) < NEIGHBOUR * R:
                # frictionless walls: the ground alone carries the weight (no Janssen effect)
                contacts.append(_contact(f"{name}_{wall}", ref, ShapeRef(obstacle=wall),
                                         DISK_MU if wall == "ground" else 0.0))
    for i, j in pile_pairs(positions):
        contacts.append(_contact(f"disk{i}_disk{j}", ShapeRef(body=f"disk{i}", shape="disk"),
                                 ShapeRef(body=f"disk{j}", shape="disk"), DISK_MU))
    n = len(bodies)
    return Scene(
        name=f"Disk pile ({n} disks)",
        description=(f"{n} disks (r = {R} m, m = {DISK_MASS} kg, inertia from the disk) on free joints in a box "
                     f"{width:g} m wide ({PLAY} m wider than {per_row} disks), on a hexagonal lattice of {rows} rows "
                     f"({per_row} and {per_row - 1} disks); "
                     + ("every disk starts at rest touching the two below it (the pile as poured and settled: "
                        "it takes up its weight in the first steps and stays). " if packed else
                        f"every row starts {DROP} m above its rest height and settles. ")
                     + f"Contacts: ground, walls and first neighbours; mu = {DISK_MU} (the walls are "
                     "frictionless), restitution 0. At rest the ground carries the whole weight and nothing "
                     "creeps. Generated by make_heaps.py "
                     f"(disk_pile(rows, per_row{', packed=True' if packed else ''}))."),
        bodies=bodies, joints=joints,
        obstacles=[Obstacle(name="ground", type="ground", point=[0.0, 0.0], normal=[0.0, 1.0]),
                   Obstacle(name="left", type="wall", point=[-width / 2, 0.0], normal=[1.0, 0.0]),
                   Obstacle(name="right", type="wall", point=[width / 2, 0.0], normal=[-1.0, 0.0])],
        contacts=contacts, initial=Initial(q=q0),
        settings=Settings(dt=1e-3, duration=2.0))


def main() -> None:
    for name, scene in (("box_pyramid", box_pyramid()), ("disk_pile", disk_pile(*EXAMPLE_PILE)),
                        ("disk_pile_200", disk_pile(*PACKED_PILE, packed=True))):
        problems = validate_scene(scene)
        if problems:
            raise SystemExit("\n".join(map(str, problems)))
        save_scene(scene, HERE / f"{name}.json")


if __name__ == "__main__":
    main()
