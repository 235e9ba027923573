"""numba's compile at use, for every compiled loop of the solver: `compiled` gives a function's copy compiled
at install (`shipped.py`) when there is one, else numba's (`jit`), its machine code cached in rulebook's
cache folder (`<cache>/numba`, sealed), never beside the installed package."""
from __future__ import annotations

import os
from typing import Callable

from . import shipped


def compiled(function, specs: list) -> Callable | bool:
    """`function` compiled at install (`shipped.load`, checked), else by numba for `specs` (`jit`); False
    without numba (the caller computes with numpy)."""
    found = shipped.load(function, specs)
    return found if found is not None else at_use(function, specs)


def at_use(function, specs: list) -> Callable | bool:
    """`function` compiled by numba for `specs` (`jit`), never the install's copy; False without numba."""
    return jit(function, lambda numba: [shipped.signature(numba, spec) for spec in specs])


def numba_cache_dir():
    """Where numba keeps compiled code: `<rulebook cache>/numba` (None if it cannot be written).

    numba's cache is pickles (its index) and machine code, loaded without a check of who wrote
    them. So the folder must be this user's alone (`cachedir.checked_folder`), and every file in it
    must be listed with its digest in a manifest sealed with the user's key (`cachedir.verify_tree`,
    written after each compile by `jit`); anything else empties the folder first, and numba compiles
    again. It is checked and filled under a lock (`cachedir.locked`), so a process (such as the child
    of `compile_in_background`) never finds another's files half written."""
    from ..model import cachedir
    from .cache import cache_dir
    path = cachedir.checked_folder(cache_dir() / "numba")
    if path is None or cachedir.key() is None:
        return None
    try:
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return None
    with cachedir.locked(path):
        return path if cachedir.verify_tree(path) else None


def jit(function, signatures):
    """`function` compiled by numba for `signatures(numba)`, its machine code cached in rulebook's cache
    folder (never numba's default beside the installed source; nothing cached if that folder cannot be
    written or trusted). False if numba is missing: the caller then computes with numpy."""
    numba = _numba()
    if numba is None:
        return False
    from ..model.cachedir import locked, seal_tree
    where = numba_cache_dir()
    if where is None:
        with _without_blas_check():
            return numba.njit(signatures(numba), nogil=True, error_model="numpy")(function)
    with locked(where):  # another process compiling into the folder finishes (and seals) first
        if numba_cache_dir() is None:
            with _without_blas_check():
                return numba.njit(signatures(numba), nogil=True, error_model="numpy")(function)
        before = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(where)  # read when decorating
        try:
            dispatcher = numba.njit(cache=True, nogil=True, error_model="numpy")(function)
        finally:
            numba.config.CACHE_DIR = before
        try:
            wanted = signatures(numba)
            for signature in wanted if isinstance(wanted, list) else [wanted]:
                if not _load_cached(dispatcher, signature):
                    with _without_blas_check():
                        dispatcher.compile(signature)
            dispatcher.disable_compile()  # as numba.njit(signatures): no other types compile
            return dispatcher
        finally:
            seal_tree(where)  # what numba wrote (or found, verified) now is ours


def _numba():
    """numba, imported without scipy (None if missing). numba's import checks scipy's version when
    scipy is installed (most of a tenth of a second), which nothing here needs; a later import of
    scipy by anything else is untouched."""
    import sys
    if "numba" in sys.modules or "scipy" in sys.modules:
        hide = False
    else:
        hide = sys.modules.setdefault("scipy", None) is None
    try:
        import numba
    except ImportError:
        return None
    finally:
        if hide and sys.modules.get("scipy", 0) is None:
            del sys.modules["scipy"]
    return numba


def _prepare() -> None:
    """What loading a cached kernel needs besides its file (numba imported, its runtime started), done
    while the child of `compile_in_background` still compiles: the load after it is then short."""
    numba = _numba()
    if numba is not None:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.registry import cpu_target
        from numba.core.runtime import nrt
        with global_compiler_lock:
            nrt.rtsys.initialize(cpu_target.target_context)


def _load_cached(dispatcher, signature) -> bool:
    """Load `signature`'s machine code from numba's cache without numba's first-use cost; False if not cached.

    `Dispatcher.compile` loads a cached kernel too, but first installs every typing and lowering
    registry of numba's CPU target (hundreds of modules, numba.np.linalg's check for scipy's BLAS
    among them: most of a second) which only a compile reads. Loading machine code needs only
    numba's runtime (its symbols); a miss leaves the registries to the compile that follows."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import nrt
    with global_compiler_lock:
        context = dispatcher.targetctx
        nrt.rtsys.initialize(context)
        cache = dispatcher._cache
        with cache._guard_against_spurious_io_errors():
            result = cache._load_overload(signature, context)
        if result is None:
            return False
        dispatcher._cache_hits[signature] += 1  # numba's own count (`dispatcher.stats`), as its load keeps it
        context.insert_user_function(result.entry_point, result.fndesc, [result.library])
        dispatcher.add_overload(result)
        return True


def _without_blas_check():
    """While numba installs its registries, scipy counts as missing: numba.np.arraymath imports
    scipy.linalg (a third of a second) only to know whether np.dot may be compiled, which the
    kernel never calls. The process's later imports of scipy are untouched."""
    import sys
    from contextlib import contextmanager

    @contextmanager
    def hidden():
        if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
            yield
            return
        sys.modules["scipy.linalg.cython_blas"] = None
        try:
            yield
        finally:
            if sys.modules.get("scipy.linalg.cython_blas", 0) is None:
                del sys.modules["scipy.linalg.cython_blas"]
    return hidden()
