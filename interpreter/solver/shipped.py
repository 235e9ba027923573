"""The solver's numba loops compiled ahead of time, when rulebook is installed, so a first run compiles nothing.

`MODULES` lists the modules of this package whose loops ship compiled; each names them in `SHIPPED`,
{function name: [argument spec, ...]} (`spec`), from which both numba's signatures at use and the
install's build come. `setup.py` asks `aotbuild` for one C extension per module, `_<module>_aot`,
built by numba's ahead-of-time compiler (`numba.pycc`); without numba or a C compiler at install
time there is none, and the loops compile on first use as before (`numbajit.compiled`). A function
of an extension is used (`load`) only:

- if the install put the extension there as it put the package's own source: owned by root or by the
  module's owner and writable by nobody who cannot write the module (it is no new place to plant code);
- if it was built from this very module (its `stamp` is the module file's digest; an edited module
  ignores it until the next install);
- and every call checks its arguments' types, which numba's dispatcher checks for the compiled-at-use
  loops and an ahead-of-time function does not.

Nothing is read from the cache folder, and no numba is imported: loading one takes about a millisecond.
The extensions are built for a generic CPU of the platform (a wheel may run on another machine), so
their loops are a little slower than numba's for this machine; the numbers are the same bit for bit
(tests/test_shipped.py). Like numba's (`nogil`), they release the GIL while they run. The modules of
`LEVELS` (the solver's kernel, where a solve spends its time) also get an extension for x86-64's
level v4 (`_kernel_aot_x86_64_v4`: AVX-512, its masks), used on a CPU that has the level's features
(`cpu_levels`) and checked as the generic one is: wider vectors for the same operations in the same
order (numba contracts no multiply-add), so the same numbers bit for bit; a fifth less kernel time
on an AMD EPYC (Zen 4). Not level v3 (AVX2): there LLVM turns the kernel's running
maxima into masked stores (vmaskmovpd), which AMD's cores run slowly: twice the generic time.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np

MODULES = ("kernel", "turnplan", "distribution", "moments", "winplan", "reach", "winsweeps", "lockstep")

_DTYPES = {"f8": "float64", "i8": "int64", "i2": "int16", "i1": "int8", "u1": "uint8", "b1": "bool"}

Arg = tuple[str, int, bool]  # (dtype code, dimensions: 0 for a number, read-only allowed)
Spec = tuple[str, tuple[Arg, ...]]  # (the return's dtype code, the arguments)


def spec(returns: str, args: str) -> Spec:
    """A function's types from words like `f8.1` (a C-ordered 1-d float64 array), `i1.2r` (a 2-d int8 array
    that may be read-only), `i8` (an int64 number); codes f8, i8, i2, i1, u1, b1 (bool)."""
    out = []
    for word in args.split():
        code, _, dims = word.partition(".")
        if code not in _DTYPES:
            raise ValueError(f"unknown dtype code {code!r}")
        out.append((code, int(dims.rstrip("r") or 0), dims.endswith("r")))
    return returns, tuple(out)


def signature(numba, s: Spec):
    """numba's signature of the spec `s`."""
    def one(code: str, dims: int, readonly: bool):
        scalar = getattr(numba, "boolean" if code == "b1" else _DTYPES[code])
        return numba.types.Array(scalar, dims, "C", readonly=readonly) if dims else scalar
    return one(s[0], 0, False)(*(one(*a) for a in s[1]))


def stamp(source: bytes) -> int:
    """The stamp of an extension built from a module's bytes `source` (a signed 64-bit digest)."""
    return int.from_bytes(hashlib.blake2b(source, digest_size=8).digest(), "little", signed=True)


def export_name(function: str, i: int) -> str:
    """The name of the `i`-th spec of `function` in its module's extension."""
    return f"{function.lstrip('_')}_{i}"


# modules built once more per x86-64 level (LLVM's CPU names), the best first, each with the CPU flags
# (as Linux's /proc/cpuinfo names them) a level needs beyond the one after it
LEVELS = {"kernel": ("x86-64-v4",)}
_FLAGS = {"x86-64-v4": {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"},
          "x86-64-v3": {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"},
          "x86-64-v2": {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}}
_ORDER = ("x86-64-v4", "x86-64-v3", "x86-64-v2")


def extension_name(module: str, cpu: str = "") -> str:
    """The extension of `module` for the CPU level `cpu` ('' for the platform's generic CPU)."""
    return f"_{module}_aot" + (f"_{cpu.replace('-', '_')}" if cpu else "")


def build_levels(machine: str | None = None) -> tuple[str, ...]:
    """The CPU levels a build for this platform may make extra extensions for (x86-64 only)."""
    import platform
    return _ORDER if (machine or platform.machine()).lower() in ("x86_64", "amd64") else ()


_CPU: list[set[str]] = []


def cpu_levels(flags: set[str] | None = None) -> set[str]:
    """The x86-64 levels this CPU (its `flags`, else Linux's /proc/cpuinfo) runs; none elsewhere or unknown."""
    if flags is None:
        if not _CPU:
            found = set()
            try:
                with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
                    for line in info:
                        if line.startswith("flags"):
                            found = set(line.partition(":")[2].split())
                            break
            except OSError:
                pass
            _CPU.append(found)
        flags = _CPU[0]
    out = set()
    for i, level in enumerate(_ORDER):
        if all(_FLAGS[lower] <= flags for lower in _ORDER[i:]):
            out.add(level)
    return out


def trusted(path: Path, source: Path) -> bool:
    """Whether the file at `path` is as safe to load as the package's source file `source`: the same
    owner (or root), and writable by no one who cannot write the source."""
    try:
        st, src = path.stat(), source.stat()
    except OSError:
        return False
    return st.st_uid in (0, src.st_uid) and not (st.st_mode & 0o022 & ~src.st_mode)


def extension(package: str, module: str, source: Path, cpu: str | None = None):
    """The extension of `package.module` if it is trusted and was built from the file `source`, else None:
    for the CPU level `cpu` ('' generic), or by default the best level this CPU runs that was built."""
    if cpu is None:
        runs = cpu_levels()
        for level in LEVELS.get(module, ()):
            if level in runs:
                found = extension(package, module, source, level)
                if found is not None:
                    return found
        cpu = ""
    spec_ = importlib.util.find_spec(f"{package}.{extension_name(module, cpu)}")
    if spec_ is None or spec_.origin is None or not trusted(Path(spec_.origin), source):
        return None
    try:
        ext = importlib.import_module(spec_.name)
        return ext if ext.stamp() == stamp(source.read_bytes()) else None
    except (ImportError, OSError, AttributeError):
        return None


_EXTENSIONS: dict[str, object] = {}  # module name: its extension (or None), once looked for


def load(function, specs: list[Spec]) -> Callable | None:
    """`function` as the install compiled it for `specs`, each call's arguments checked against them; None
    if it was not built, cannot be trusted or was built from another source, or when RULEBOOK_KERNEL
    asks for numpy or for numba's compile at use (jit)."""
    if os.environ.get("RULEBOOK_KERNEL", "").lower() in ("numpy", "jit"):
        return None
    module = function.__module__
    if module not in _EXTENSIONS:
        package, _, name = module.rpartition(".")
        _EXTENSIONS[module] = extension(package, name, Path(sys.modules[module].__file__))
    ext = _EXTENSIONS[module]
    runs = [getattr(ext, export_name(function.__name__, i), None) for i in range(len(specs))]
    if ext is None or None in runs:
        return None
    return checked(function.__name__, runs, specs)


def checked(name: str, runs: list[Callable], specs: list[Spec]) -> Callable:
    """A function calling the first of `runs` whose spec its arguments fit (a TypeError if none)."""
    wants = [[(np.dtype(_DTYPES[code]), dims, readonly) for code, dims, readonly in s[1]] for s in specs]

    def fits(values: tuple, want: list) -> bool:
        if len(values) != len(want):
            return False
        for value, (dtype, dims, readonly) in zip(values, want):
            if dims and not (type(value) is np.ndarray and value.dtype == dtype and value.ndim == dims
                             and value.flags.c_contiguous and (readonly or value.flags.writeable)):
                return False
        return True

    def run(*values):
        for call, want in zip(runs, wants):
            if fits(values, want):
                return call(*values)
        raise TypeError(f"the shipped {name} takes C-contiguous arrays of its types ({len(wants[0])} arguments)")
    run.__name__ = name
    return run


def shipped_here(module: str = "kernel") -> bool:
    """Whether this installed copy has `module`'s extension file at all (tests skip what needs it otherwise)."""
    return importlib.util.find_spec(f"{__package__}.{extension_name(module)}") is not None
