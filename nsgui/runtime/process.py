"""The simulation in a child process, behind the same interface as `SimRunner`.

A thread in the GUI process competes with the GUI for Python's GIL: every Qt/OpenGL call that
releases and re-takes it waits for the stepping thread, and frames stall. In a child process the
stepping never touches the GUI's interpreter. The child runs a `SimRunner` (the same worker thread
and bounded buffer) and forwards what it drains through a pipe; at most a few messages are in flight,
so the child's bounded buffer still applies back-pressure and nothing is dropped.

The child compiles the scene itself (from its dict), so only plain data crosses: scene dicts,
SimState snapshots, signal rows, events. A scene with user code (`python` controller blocks) comes
with the window's consent to run it (a Consent, its files' hashes): the module is imported, and its
`sample` runs, here.
"""

from __future__ import annotations

import collections
import multiprocessing as mp
import os
import signal
import threading
import time

import numpy as np

from nsgui.runtime.snapshots import Snapshots
from nsgui.runtime.worker import SNAPSHOT_INTERVAL, Drained, RunnerState

MAX_IN_FLIGHT = 6  # messages sent and not yet taken by the window: its reader holds at most these
POLL_SECONDS = 0.01
MAX_MESSAGE_ROWS = 2000  # a message the window unpickles and stores in a few milliseconds...
MAX_MESSAGE_BYTES = 2_000_000  # ...also when a row is wide (many contacts: hundreds of signals)
RECEIVE_BUDGET = 0.006  # seconds of storing messages per GUI tick; the rest waits for the next tick


def _child_factory(scene_dict):
    from nsgui.scene import scene_from_dict
    from nsgui.engine import Simulator, compile_scene
    return Simulator(compile_scene(scene_from_dict(scene_dict)))


def _code_consent(model):
    """The consent to run the model's user code (python blocks) that the child needs to compile the
    scene again, or None: the window asked for it when it compiled (python_block.py)."""
    if not any(getattr(b, "user", None) is not None for b in getattr(model, "controller_blocks", ())):
        return None
    from nsgui.engine.control.python_block import consent
    return consent()


def _child_main(conn, snapshot_interval):
    try:  # when CPUs are short, the window's responsiveness comes before stepping speed
        os.nice(10)
    except (AttributeError, OSError):
        pass
    # Ctrl-C in the terminal reaches the whole process group: the window decides when this process
    # stops (it sends "quit"); if the window is gone, the pipe says so and this process leaves quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    from nsgui.runtime.worker import SimRunner
    runner = SimRunner(_child_factory, snapshot_interval=snapshot_interval)
    gen = 0
    acked = 0
    sent = 0
    ncmd = 0  # requests handled (acks excluded): replies tell the parent which requests they follow
    outbox = collections.deque()  # parts of the last drain not sent yet (at most MAX_IN_FLIGHT out)
    try:
        while True:
            while conn.poll(0 if sent - acked < MAX_IN_FLIGHT else POLL_SECONDS):
                cmd, *args = conn.recv()
                if cmd == "quit":
                    return
                if cmd == "ack":
                    acked = args[0]
                    continue
                ncmd += 1
                if cmd == "load":
                    gen, scene_dict, state, running, code_consent = args
                    if code_consent is not None:  # the window's consent to the scene's user code
                        from nsgui.engine.control.python_block import set_consent
                        set_consent(code_consent)
                    runner.load(scene_dict, state=state, running=running)
                    outbox.clear()  # rows of the old run: the window would drop them anyway
                else:
                    getattr(runner, cmd)(*args)
                if sent - acked >= MAX_IN_FLIGHT:
                    break
            if not outbox and sent - acked < MAX_IN_FLIGHT:
                # idle before the drain means nothing can follow it (requests come from this loop);
                # asked after, a batch ending in between would be left behind, unsent
                busy = runner.busy
                parts = _split(runner.drain())
                # a part says busy unless it is the last one: the window must not take a pause in
                # the middle of a drain for the end of the run (flush, exports). Stamped now: the
                # state they describe is the one after `ncmd` requests
                outbox.extend((ncmd, gen, busy or k < len(parts), part)
                              for k, part in enumerate(parts, 1))
            while outbox and sent - acked < MAX_IN_FLIGHT:
                sent += 1
                conn.send((sent, *outbox.popleft()))
            time.sleep(POLL_SECONDS)
            if os.getppid() != parent:  # the window died without a word (SIGKILL): nobody listens
                return
    except (EOFError, OSError, KeyboardInterrupt):  # the window went away (ConnectionResetError...)
        pass
    finally:
        runner.quit(timeout=2.0)


def _split(d):
    """Cut a large drain into messages of at most MAX_MESSAGE_ROWS rows and about
    MAX_MESSAGE_BYTES (order kept)."""
    n = len(d.rows)
    width = d.rows.shape[1] if d.rows.ndim == 2 else 1
    per = max(100, min(MAX_MESSAGE_ROWS, MAX_MESSAGE_BYTES // (8 * max(width, 1))))
    if n <= per:
        return [d]
    parts = []
    for a in range(0, n, per):
        b = min(a + per, n)
        last = b == n
        parts.append(Drained(d.generation, d.names, d.rows[a:b],
                             d.snapshots.between(a, b),
                             d.events if last else [], d.errors if last else [], d.running,
                             d.steps_per_second, d.realtime_factor, d.new_run and a == 0))
    return parts


class ProcessRunner(RunnerState):
    """Same requests as SimRunner; `load` takes the Model whose `scene` the child compiles."""

    def __init__(self, snapshot_interval=SNAPSHOT_INTERVAL):
        self.snapshot_interval = snapshot_interval
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_child_main, args=(child, snapshot_interval),
                                 name="nsgui-simulation", daemon=True)
        self._proc.start()
        child.close()
        self._generation = 0
        self._running = False
        self._speed = 1.0
        self._ncmd = 0  # requests sent
        self._seen = 0  # requests the child had handled when it sent its last reply
        self._child_busy = False
        self._pending: list[Drained] = []
        self._names = []
        self._alive = True
        # A reader thread takes each message off the pipe as soon as it is written and unpickles
        # it: the GUI thread never waits for the simulation process to finish writing a message
        # (messages exceed the pipe's buffer) and a tick only stores what has arrived. Messages are
        # acknowledged when the GUI thread takes them, so the simulation process still waits for
        # the window (at most MAX_IN_FLIGHT messages are held here).
        self._inbox = collections.deque()
        self._lost = False  # the pipe broke (the simulation process died)
        self._reader = threading.Thread(target=self._read_loop, name="nsgui-simulation-pipe", daemon=True)
        self._reader.start()

    def _read_loop(self):
        try:
            while self._alive:
                if self._conn.poll(0.05):
                    seq, ncmd, gen, busy, d = self._conn.recv()
                    self._inbox.append((seq, ncmd, gen, busy, d))
        except (EOFError, OSError):
            self._lost = True

    # ------------------------------------------------------------------ requests
    def _send(self, *msg):
        if not self._alive:
            return
        try:
            self._conn.send(msg)
            self._ncmd += 1
        except (BrokenPipeError, OSError):
            self._alive = False

    def load(self, model, state=None, running=None):
        from nsgui.scene import scene_to_dict
        self._generation += 1
        if running is not None:
            self._running = running
        self._send("load", self._generation, scene_to_dict(model.scene), state, bool(self._running),
                   _code_consent(model))
        return self._generation

    def play(self):
        self._running = True
        self._send("play")

    def pause(self):
        self._running = False
        self._send("pause")

    def step(self, n=1):
        self._running = False
        self._send("step", int(n))

    def set_speed(self, factor):
        self._speed = factor
        self._send("set_speed", factor)

    def run_until(self, t):
        self._running = True
        self._send("run_until", float(t))

    def perturb(self, body, point, target):
        self._send("perturb", body, None if point is None else tuple(map(float, point)),
                   None if target is None else tuple(map(float, target)))

    def release_perturbation(self):
        self._send("release_perturbation")

    @property
    def busy(self):
        """True until a reply sent after the last request says the child is idle."""
        self._receive()
        if not self._alive:
            return False
        return self._child_busy or self._seen < self._ncmd or bool(self._inbox)

    def quit(self, timeout=5.0):
        self._send("quit")
        self._proc.join(timeout)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(1.0)
        self._alive = False
        self._reader.join(1.0)
        return not self._proc.is_alive()

    # ------------------------------------------------------------------ data
    def _receive(self):
        if not self._alive:
            return
        start = time.perf_counter()
        try:
            while self._inbox and time.perf_counter() - start < RECEIVE_BUDGET:
                seq, ncmd, gen, busy, d = self._inbox.popleft()
                self._conn.send(("ack", seq))
                self._seen = ncmd
                if gen != self._generation:
                    continue
                if ncmd == self._ncmd:  # the reply follows every request: its state is current
                    self._child_busy = busy
                    self._running = d.running
                self._pending.append(d)
            if self._lost and not self._inbox:
                raise EOFError
        except (EOFError, OSError):
            self._alive = False
            self._pending.append(Drained(self._generation, self._names, np.empty((0, len(self._names))),
                                         errors=["the simulation process stopped unexpectedly"]))

    def drain(self) -> Drained:
        self._receive()
        parts, self._pending = self._pending, []
        out = Drained(self._generation, self._names, np.empty((0, len(self._names))),
                      running=self._running and self._alive)
        blocks, snaps, base = [], [], 0  # the parts' rows and snapshots, joined once at the end
        for d in parts:
            if d.new_run:
                self._names = list(d.names)
                out = Drained(self._generation, self._names, d.rows, d.snapshots, list(d.events),
                              list(d.errors), new_run=True)
                blocks, snaps, base = [d.rows], [d.snapshots], len(d.rows)
                continue
            if len(d.rows):
                blocks.append(d.rows)
            snaps.append(d.snapshots.shifted(base))
            base += len(d.rows)
            out.events += d.events
            out.errors += d.errors
            out.steps_per_second, out.realtime_factor = d.steps_per_second, d.realtime_factor
        out.snapshots = Snapshots.join(snaps)
        if len(blocks) > 1:
            out.rows = np.concatenate(blocks)
        elif blocks:
            out.rows = blocks[0]
        out.running = self._running and self._alive
        return out
