"""The install's build of `shipped.MODULES`: one C extension per module, by numba's ahead-of-time compiler.

Used by setup.py only (it needs numba and a C compiler; nothing at run time imports it). Each module's
`SHIPPED` functions are exported for every spec; while they compile, the module's shipped functions are
numba's, so one may call another (as winsweeps' sweeps call its Tarjan). The code is compiled as numba's
at use is: numpy's error model, the GIL released.
"""
from __future__ import annotations

import sysconfig
from pathlib import Path

from . import shipped


def _flags_as_at_use() -> None:
    """numba.pycc compiles with numba's default flags (python's error model, the GIL held); make them
    those of `numbajit.jit` (numpy's error model, nogil)."""
    import numba.pycc.compiler as pycc
    if getattr(pycc.Flags, "rulebook", False):
        return
    base = pycc.Flags

    class Flags(base):
        rulebook = True

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.error_model = "numpy"
            self.release_gil = True
    pycc.Flags = Flags


def extension(module, cpu: str = ""):
    """The setuptools extension that compiles `module`'s `SHIPPED` functions ahead of time, for the CPU
    level `cpu` (an LLVM CPU name such as x86-64-v3; '' for the platform's generic CPU)."""
    import numba
    from numba.pycc import CC
    _flags_as_at_use()
    name = module.__name__.rpartition(".")[2]
    cc = CC(shipped.extension_name(name, cpu), source_module=module)
    cc.target_cpu = cpu
    value = shipped.stamp(Path(module.__file__).read_bytes())
    cc.export("stamp", "i8()")(lambda: value)
    plain = {f: getattr(getattr(module, f), "py_func", getattr(module, f)) for f in module.SHIPPED}  # (once more per CPU)
    for f, function in plain.items():  # (compiled when first called from another, for its argument types)
        setattr(module, f, numba.njit(nogil=True, error_model="numpy")(function))
    for f, specs in module.SHIPPED.items():
        for i, s in enumerate(specs):
            cc.export(shipped.export_name(f, i), shipped.signature(numba, s))(plain[f])
    return cc.distutils_extension(optional=True)


def current(module, folder: Path, cpu: str = "") -> bool:
    """Whether `folder` (the source tree of an editable install) has `module`'s extension (for `cpu`) built from it."""
    import importlib.util
    name = shipped.extension_name(module.__name__.rpartition(".")[2], cpu)
    built = folder / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    if not built.exists():
        return False
    try:
        spec = importlib.util.spec_from_file_location(name, built)
        ext = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ext)
        return ext.stamp() == shipped.stamp(Path(module.__file__).read_bytes())
    except Exception:
        return False
