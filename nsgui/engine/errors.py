"""The engine's run-time failures (the simulator re-exports them)."""


class SimulationError(RuntimeError):
    """A numerical failure: the message names the time and the contact, or for a blow-up the signal
    (`q.<coord>`, `v.<coord>`...) and its body; the state before it is kept."""

    def __init__(self, message, t=None, contact=None, signal=None, body=None):
        super().__init__(message)
        self.t = t
        self.contact = contact
        self.signal = signal
        self.body = body


class ControllerError(SimulationError):
    """User code (a `python` controller block) raised: the run stops there, its rows are kept, and
    `user_traceback` holds the traceback of the user's frames only (nsgui's left out)."""

    def __init__(self, message, t=None, user_traceback=""):
        super().__init__(message, t)
        self.user_traceback = user_traceback


__all__ = ["SimulationError", "ControllerError"]
