"""A constant input: u = value (P = [value])."""

from numba import njit


def pack(c, model, coords):
    return [c.value], [], []


@njit(cache=True)
def constant_law(m, d, t, P, S, u, dudq, dudv, sig, coords):
    u[0] = P[0]
