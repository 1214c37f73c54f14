"""The runtime: what runs a simulation for the window, without Qt — the worker thread and the
simulation child process with its message protocol, the run history the window reads (with its
spill files, snapshots and branches), and the data reductions the plots draw (envelopes, contact
totals). Importable and testable without PySide6.
"""
