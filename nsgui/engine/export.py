"""Writers for recorded signals: CSV and HDF5, atomic (complete or absent, never half written)."""

import numpy as np

from .atomic import atomic_write


def write_csv(path, signals: dict):
    """One column per signal, header = signal names (same names as `nsgui run`)."""
    names = list(signals)
    data = np.column_stack([np.asarray(signals[n], float) for n in names]) if names else np.zeros((0, 0))

    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(",".join(names) + "\n")
            np.savetxt(f, data, delimiter=",", fmt="%.17g")
    atomic_write(path, write)


def read_csv(path) -> dict:
    with open(path, encoding="utf-8") as f:
        names = f.readline().strip().split(",")
        data = np.loadtxt(f, delimiter=",", ndmin=2)
    if data.size == 0:
        return {n: np.zeros(0) for n in names}
    return {n: data[:, i] for i, n in enumerate(names)}


def write_hdf5(path, signals: dict, attrs: dict | None = None):
    """One dataset per signal at the file's root, named as the signal; attrs go on the root."""
    import h5py

    def write(tmp):
        with h5py.File(tmp, "w") as f:
            for name, values in signals.items():
                f.create_dataset(name, data=np.asarray(values, float))
            for k, v in (attrs or {}).items():
                f.attrs[k] = v
    atomic_write(path, write)


def read_hdf5(path) -> dict:
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out
