"""nsgui: planar mechanisms with contacts, impacts and friction."""

__version__ = "0.1.0"
