"""The solver's kernel compiled ahead of time, when rulebook is installed, so a first solve compiles nothing.

`setup.py` asks `extension` for a C extension, `_kernel_aot`, that numba's ahead-of-time compiler
(`numba.pycc`) builds from `kernel._solve_states` beside kernel.py; without numba or a C compiler at
install time there is none, and the kernel compiles on first use as before. The extension is loaded
only (`load`):

- if the install put it there as it put the package's own source: owned by root or by kernel.py's
  owner and writable by nobody who cannot write kernel.py (it is no new place to plant code);
- if it was built from this very kernel.py (its `stamp` is kernel.py's digest; an edited kernel
  ignores it until the next install);
- and every call checks its arguments' types, which numba's dispatcher checks for the compiled-at-use
  kernel and an ahead-of-time function does not.

The extension needs no numba at run time: loading it takes a millisecond. It is built for a generic
CPU of the platform (a wheel may run on another machine), so its loops are a little slower than the
kernel numba compiles for this machine; the numbers are the same bit for bit (tests/test_shipped.py).
It holds the GIL while it runs (the solve's workers are processes, so nothing waits on it).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from pathlib import Path
from typing import Callable

import numpy as np

NAME = "_kernel_aot"  # the extension module, in this package


def stamp(source: bytes) -> int:
    """The stamp of a kernel built from kernel.py's bytes `source` (a signed 64-bit digest)."""
    return int.from_bytes(hashlib.blake2b(source, digest_size=8).digest(), "little", signed=True)


def extension(kernel):
    """The setuptools extension that compiles `kernel` (kernel.py, loaded as a module) ahead of time."""
    from numba.pycc import CC
    numba = kernel._numba()
    cc = CC(NAME, source_module=kernel)
    value = stamp(Path(kernel.__file__).read_bytes())
    cc.export("stamp", "i8()")(lambda: value)
    cc.export("solve_states", kernel._signature(numba))(kernel._solve_states)
    return cc.distutils_extension(optional=True)


def trusted(path: Path, source: Path) -> bool:
    """Whether the file at `path` is as safe to load as the package's source file `source`: the same
    owner (or root), and writable by no one who cannot write the source."""
    try:
        st, src = path.stat(), source.stat()
    except OSError:
        return False
    return st.st_uid in (0, src.st_uid) and not (st.st_mode & 0o022 & ~src.st_mode)


def load(package: str, source: Path, args: list[tuple[str, int]]) -> Callable[..., int] | None:
    """The shipped `solve_states`, its arguments checked against `args` ((dtype, ndim) per argument, ndim 0
    for a number); None if it was not built, cannot be trusted or was built from another kernel.py."""
    spec = importlib.util.find_spec(f"{package}.{NAME}")
    if spec is None or spec.origin is None or not trusted(Path(spec.origin), source):
        return None
    try:
        module = importlib.import_module(spec.name)
        if module.stamp() != stamp(source.read_bytes()):
            return None
    except (ImportError, OSError):
        return None
    run = module.solve_states
    want = [(np.dtype(dtype), ndim) for dtype, ndim in args]

    def solve_states(*values) -> int:
        if len(values) != len(want):
            raise TypeError(f"the shipped kernel takes {len(want)} arguments, not {len(values)}")
        for i, (value, (dtype, ndim)) in enumerate(zip(values, want)):
            if ndim and not (type(value) is np.ndarray and value.dtype == dtype and value.ndim == ndim
                             and value.flags.c_contiguous and value.flags.writeable):
                raise TypeError(f"argument {i} of the shipped kernel: a C-contiguous, writable {ndim}-d "
                                f"{dtype} array is wanted")
        return run(*values)
    return solve_states


_FOUND: list = []  # the loaded kernel (or None), once looked for


def kernel(package: str, source: str, args: list[tuple[str, int]]) -> Callable[..., int] | None:
    """`load`, once per process; None when RULEBOOK_KERNEL asks for numpy or for numba's compile at use (jit)."""
    if os.environ.get("RULEBOOK_KERNEL", "").lower() in ("numpy", "jit"):
        return None
    if not _FOUND:
        _FOUND.append(load(package, Path(source), args))
    return _FOUND[0]


def shipped_here() -> bool:
    """Whether this installed copy has the extension file at all (tests skip what needs it otherwise)."""
    return importlib.util.find_spec(f"{__package__}.{NAME}") is not None

