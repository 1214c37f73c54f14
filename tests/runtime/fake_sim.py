"""A stand-in simulator with the engine-api.md interface (a ball dropped on the ground), used to test
the worker plumbing without the real engine. Not physics for the app."""

import copy
import time

import numpy as np

from nsgui.engine.simulator import Event  # (the app's own events: the window's table says them in words)


class FakeModel:
    def __init__(self, dt=0.001, e=0.5, slow=0.0):
        self.dt = dt
        self.e = e
        self.slow = slow  # seconds of busy-waiting per step (to test pacing and back-pressure)
        self.coord_names = ["y"]


class FakeSimulator:
    signal_names = ["t", "q.y", "v.y", "energy.total"]

    def __init__(self, model):
        self.model = model
        self.t, self.y, self.vy = 0.0, 1.0, 0.0
        self.step_count = 0
        self._events = []

    def step(self):
        if self.model.slow:
            end = time.perf_counter() + self.model.slow
            while time.perf_counter() < end:
                pass
        h = self.model.dt
        self.vy -= 9.81 * h
        if self.y + h * self.vy < 0 and self.vy < 0:
            self.vy = -self.model.e * self.vy
            self._events.append(Event(self.t + h, "impact", "ball"))
        self.y += h * self.vy
        self.t += h
        self.step_count += 1

    def signal_vector(self):
        return np.array([self.t, self.y, self.vy, 0.5 * self.vy**2 + 9.81 * self.y])

    def get_state(self):
        return copy.deepcopy((self.t, self.y, self.vy, self.step_count))

    def set_state(self, s):
        self.t, self.y, self.vy, self.step_count = s

    def pop_events(self):
        ev, self._events = self._events, []
        return ev
