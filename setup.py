"""The build: pyproject.toml says everything but one thing, the solver's kernel compiled ahead of time.

`interpreter/solver/shipped.py` makes it a C extension with numba's ahead-of-time compiler, so the
first solve after an install compiles nothing. Without numba or a C compiler the install goes on
without it (a warning), and the kernel compiles on first use instead.
"""
import importlib.util
import sys
import sysconfig
from pathlib import Path

import setuptools.command.build_ext
from setuptools import setup

HERE = Path(__file__).resolve().parent / "interpreter" / "solver"


def _module(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (numba reads a function's globals through its module)
    spec.loader.exec_module(module)
    return module


def _warn(exc: BaseException) -> None:
    print(f"rulebook: the solver's kernel is not compiled ahead of time ({type(exc).__name__}: {exc}); "
          "it compiles on first use instead", file=sys.stderr)


def _current() -> bool:
    """An editable install whose extension in the source tree was built from this kernel.py: nothing to
    compile again (`make test` reinstalls each time)."""
    built = HERE / f"_kernel_aot{sysconfig.get_config_var('EXT_SUFFIX')}"
    if "editable_wheel" not in sys.argv or not built.exists():
        return False
    try:
        spec = importlib.util.spec_from_file_location("_kernel_aot", built)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.stamp() == _module("rulebook_shipped_kernel", "shipped.py").stamp((HERE / "kernel.py").read_bytes())
    except Exception:
        return False


def _extensions() -> list:
    if _current():
        return []
    try:
        kernel = _module("rulebook.interpreter.solver.kernel", "kernel.py")
        ext = _module("rulebook_shipped_kernel", "shipped.py").extension(kernel)
        ext.depends = [str(Path(d).resolve().relative_to(Path.cwd())) for d in ext.depends]  # (sdists want them relative)
        return [ext]
    except Exception as exc:  # numba missing or broken
        _warn(exc)
        return []


EXTENSIONS = _extensions()


class OptionalBuild(setuptools.command.build_ext.build_ext):  # (numba's pycc has put its own subclass there)
    """build_ext that leaves the kernel out, with a warning, when it cannot be compiled."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(exc)


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": OptionalBuild})
