"""Event-driven integration (settings.integrator = "event_driven"): smooth phases by an adaptive
Dormand–Prince 5(4) with dense output, impacts, closures and take-offs at their own times,
accumulations of impacts bridged. Rows on the same time grid as time stepping (docs/numerics.md).

- dopri5.py: the Runge–Kutta step, its dense output and step-size control
- contact_dynamics.py: constrained accelerations, the acceleration LCP, Newton's impact law
- loop.py: the compiled loop (rows, event location and handling, accumulation)
- layout.py: the integrator's own state array and the event log's columns
"""
