"""Small scenes shared by the GUI tests."""

BALL_BOX = {
    "format": "nsgui-scene", "version": 1, "name": "ball and block",
    "bodies": [
        {"name": "ball", "mass": 1.0, "shapes": [{"type": "disk", "radius": 0.1}], "color": "#d65a4c"},
        {"name": "block", "mass": 2.0, "shapes": [{"type": "box", "width": 0.3, "height": 0.2}]},
    ],
    "joints": [{"name": "ball", "type": "free", "child": "ball"},
               {"name": "block", "type": "free", "child": "block"}],
    "obstacles": [{"name": "ground", "type": "ground"}],
    "contacts": [
        {"name": "ball_ground", "a": {"body": "ball", "shape": "disk0"}, "b": {"obstacle": "ground"},
         "restitution": 0.7, "friction": 0.3},
        {"name": "block_ground", "a": {"body": "block", "shape": "box0"}, "b": {"obstacle": "ground"},
         "friction": 0.4},
    ],
    "initial": {"q": {"ball.x": -0.5, "ball.y": 0.6, "block.x": 0.3, "block.y": 0.1},
                "v": {"ball.x": 0.5, "block.x": 2.0}},
    "settings": {"dt": 0.001},
}
