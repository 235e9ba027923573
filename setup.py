"""The build: pyproject.toml says everything but one thing, the solver's numba loops compiled ahead of time.

`interpreter/solver/aotbuild.py` makes a C extension of each module `shipped.MODULES` names, with
numba's ahead-of-time compiler, so a first run after an install compiles nothing. Without numba or a
C compiler the install goes on without them (a warning), and the loops compile on first use instead.
"""
import importlib
import sys
import types
from pathlib import Path

import setuptools.command.build_ext
from setuptools import setup

ROOT = Path(__file__).resolve().parent
HERE = ROOT / "interpreter" / "solver"


def _warn(what: str, exc: BaseException) -> None:
    print(f"rulebook: {what}: not compiled ahead of time ({type(exc).__name__}: {exc}); "
          "compiled at first use instead", file=sys.stderr)


def _solver(name: str):
    """interpreter/solver/<name>.py imported as the installed package's module (the build environment has
    numpy and numba, not the interpreter's other requirements: a module that needs them is left out)."""
    if "rulebook" not in sys.modules:
        package = types.ModuleType("rulebook")
        package.__path__ = [str(ROOT)]  # (the repository's folders are `rulebook`'s subpackages)
        sys.modules["rulebook"] = package
    return importlib.import_module(f"rulebook.interpreter.solver.{name}")


def _extensions() -> list:
    try:
        shipped, build = _solver("shipped"), _solver("aotbuild")
        from numba.pycc.platform import external_compiler_works
        if not external_compiler_works():
            raise RuntimeError("no working C compiler")
    except Exception as exc:  # numba missing or broken, or no C compiler: one warning for all
        _warn("the solver's numba loops", exc)
        return []
    out = []
    for name in shipped.MODULES:
        levels = [level for level in shipped.LEVELS.get(name, ()) if level in shipped.build_levels()]
        for cpu in ["", *levels]:  # the generic CPU's, and the kernel's for wider vectors (shipped.LEVELS)
            try:
                module = _solver(name)
                if "editable_wheel" in sys.argv and build.current(module, HERE, cpu):
                    continue  # `make test` reinstalls each time: an extension built from this very source is kept
                ext = build.extension(module, cpu)
                ext.depends = [str(Path(d).resolve().relative_to(ROOT)) for d in ext.depends]  # (sdists want them relative)
                out.append(ext)
            except Exception as exc:  # a module the build cannot import, or numba refuses
                _warn(f"solver/{name}.py" + (f" for {cpu}" if cpu else ""), exc)
    return out


EXTENSIONS = _extensions()


class OptionalBuild(setuptools.command.build_ext.build_ext):  # (numba's pycc has put its own subclass there)
    """build_ext that leaves a module's loops out, with a warning, when they cannot be compiled."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(ext.name, exc)


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": OptionalBuild})
