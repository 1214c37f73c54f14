"""Names of a package imported on first use (PEP 562), so that importing the package stays light."""

from importlib import import_module


def lazy_getattr(package: str, table: dict):
    """A module `__getattr__` for `package` that imports `table[name]` (a submodule) on first use."""
    def __getattr__(name):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = import_module(f"{package}.{table[name]}")
        value = getattr(module, name)
        setattr(import_module(package), name, value)
        return value
    return __getattr__
