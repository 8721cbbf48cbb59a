"""Public names of a package that import their module on first use (PEP 562).

A subpackage's `__init__` lists its public names without importing their modules, so that importing one
module of it (a sandboxed process imports the runtime guards; `repair --help` imports nothing) pays for that
module alone.
"""
from __future__ import annotations

from importlib import import_module


def exports(package: str, where: dict[str, list[str]], modules: tuple[str, ...] = ()):
    """`__all__` and `__getattr__` for a package whose public names are `{module: [name, ...]}`.

    `modules` are submodules that are public as a whole (imported as `from package import module`).
    """
    home = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str):
        if name in modules:
            return import_module(f"{package}.{name}")
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{home[name]}"), name)

    return sorted([*home, *modules]), __getattr__
