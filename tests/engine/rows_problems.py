"""A pile of free bodies' step problems on the rows, for the tests of that path (test_rows_columns.py,
test_nsgs_dv.py): the stepper's own state at a run's steps, its problem about to be solved."""
from nsgui.engine import Simulator
from nsgui.engine import stepper as st
from nsgui.engine.tiny_problem import TINY_CONTACTS


def rows_problems(model, steps, every):
    """Runs `model` for `steps` steps and yields (m, d, data, nact, fric) at every `every`-th step whose
    problem goes to the rows (more contacts than the tiny path takes, with friction), its free velocity and
    active contacts computed (stepper.free_velocity, activate_contacts), not solved."""
    sim = Simulator(model)
    m, d = sim._args
    for step in range(steps):
        sim.run(1, record=False)
        if step % every:
            continue
        st.free_velocity(m, d)
        nact, fric = st.activate_contacts(m, d)
        if nact <= TINY_CONTACTS or not fric:   # (the tiny path: no rows)
            continue
        yield m, d, sim._data, nact, fric
