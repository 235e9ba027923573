"""The solver's numba loops compiled at install time (interpreter/solver/shipped.py, built by setup.py): the
same numbers bit for bit as the loops numba compiles at use and as numpy, a first run that compiles
nothing, and loaded only when an extension is the install's own and built from its very module."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import importlib

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.solver import kernel, kernelplan, numbajit, shipped
from rulebook.interpreter.solver.space import Space

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _built():
    """The install compiled the kernel (setup.py): a skip without it, except in CI, where it is a failure."""
    if not all(shipped.shipped_here(m) for m in shipped.MODULES):
        if os.environ.get("RULEBOOK_REQUIRE_TOOLS"):
            pytest.fail("the install compiled no kernel ahead of time (setup.py needs numba and a C compiler)")
        pytest.skip("this install has no kernel compiled ahead of time (setup.py could not build it)")


@pytest.fixture
def aot(monkeypatch):
    monkeypatch.delenv("RULEBOOK_KERNEL", raising=False)
    found = kernel.shipped()
    assert found is not None, "the install's kernel was not loaded"
    return found


@pytest.mark.parametrize("name,options", [("yahtzee", {}), ("generala", {"served_generala_wins": "false"})],
                         ids=["yahtzee", "generala"])
def test_the_shipped_kernel_gives_the_numbers_of_the_compiled_at_use_one_bit_for_bit(aot, name, options, monkeypatch):
    space = Space(load_model(name, options))
    plan = kernelplan.plan(space)
    V = np.random.default_rng(7).random(space.entries) * 300
    jitted = kernel.jit(kernel._solve_states, kernel._signature)
    for k in (space.n - 1, space.n // 2, 1):
        masks, feats = space.level(k)
        pick = np.sort(np.random.default_rng(k).choice(len(masks), size=min(400, len(masks)), replace=False))
        batch = plan.batch(masks[pick], feats[pick])
        outs = []
        for run in (aot, jitted):
            monkeypatch.setattr(kernel, "_COMPILED", run)
            outs.append(np.empty(len(pick)))
            assert kernel.solve_states(V, plan.write, plan.turn, batch, outs[-1], use="numba") == 0
        slow = np.empty(len(pick))
        kernel.solve_states(V, plan.write, plan.turn, batch, slow, use="numpy")
        assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], slow)


@pytest.mark.parametrize("cpu", [c for name in shipped.LEVELS for c in shipped.LEVELS[name]])
def test_the_kernel_for_a_wider_cpu_gives_the_generic_numbers_bit_for_bit(cpu, monkeypatch):
    source = Path(kernel.__file__)
    wide = shipped.extension(kernel.__package__, "kernel", source, cpu)
    if wide is None or cpu not in shipped.cpu_levels():
        pytest.skip(f"no kernel built for {cpu}, or this CPU cannot run it")
    generic = shipped.extension(kernel.__package__, "kernel", source, "")
    assert shipped.extension(kernel.__package__, "kernel", source) is wide  # the one a solve loads here
    space = Space(load_model("yahtzee", {}))
    plan = kernelplan.plan(space)
    V = np.random.default_rng(3).random(space.entries) * 300
    for k in (space.n - 1, space.n // 2, 1):
        masks, feats = space.level(k)
        batch = plan.batch(masks[:700], feats[:700])  # (more than a block of states: a partial last block)
        outs = []
        for ext in (generic, wide):
            monkeypatch.setattr(kernel, "_COMPILED", shipped.checked("_solve_states", [ext.solve_states_0],
                                                                     kernel.SHIPPED["_solve_states"]))
            outs.append(np.empty(len(batch.base[0])))
            assert kernel.solve_states(V, plan.write, plan.turn, batch, outs[-1], use="numba") == 0
        assert np.array_equal(outs[0], outs[1])


def test_a_cpu_runs_a_level_only_with_every_feature_of_it_and_of_the_levels_below():
    v2 = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}
    v3 = v2 | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
    v4 = v3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    assert shipped.cpu_levels(v4) == {"x86-64-v2", "x86-64-v3", "x86-64-v4"}
    assert shipped.cpu_levels(v4 - {"avx512vl"}) == {"x86-64-v2", "x86-64-v3"}
    assert shipped.cpu_levels(v4 - {"fma"}) == {"x86-64-v2"}
    assert shipped.cpu_levels(set()) == set()
    assert shipped.build_levels("aarch64") == () and "x86-64-v4" in shipped.build_levels("x86_64")


@pytest.mark.parametrize("args", [["solve", "yacht", "--json"], ["play", "yacht", "--players", "a:optimal", "--seed", "1"]],
                         ids=["solve", "play"])
def test_a_first_run_with_the_shipped_loops_compiles_nothing_and_imports_no_numba(args, tmp_path):
    code = (f"import sys; from rulebook.tools.cli import main; code = main({args!r}); "
            "assert 'numba' not in sys.modules, 'numba was imported'; sys.exit(code)")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache")}
    env.pop("RULEBOOK_KERNEL", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "kernel" not in out.stderr and ('"expected_score": 166.955068' in out.stdout or args[0] == "play")
    assert not (tmp_path / "cache" / "numba").exists() or not any((tmp_path / "cache" / "numba").rglob("*.nbc"))


@pytest.mark.parametrize("name", shipped.MODULES)
def test_an_extension_built_from_another_source_is_not_loaded(name, tmp_path):
    module = importlib.import_module(f"{kernel.__package__}.{name}")
    source = Path(module.__file__)
    assert shipped.extension(kernel.__package__, name, source) is not None
    edited = tmp_path / source.name
    edited.write_bytes(source.read_bytes() + b"\n# an edit after the install\n")
    assert shipped.extension(kernel.__package__, name, edited) is None


@pytest.mark.parametrize("name", shipped.MODULES)
def test_every_shipped_function_is_loaded_from_the_install(name, monkeypatch):
    monkeypatch.delenv("RULEBOOK_KERNEL", raising=False)
    module = importlib.import_module(f"{kernel.__package__}.{name}")
    assert module.SHIPPED
    for function, specs in module.SHIPPED.items():
        assert shipped.load(getattr(module, function), specs) is not None, function
    monkeypatch.setenv("RULEBOOK_KERNEL", "jit")
    assert all(shipped.load(getattr(module, f), s) is None for f, s in module.SHIPPED.items())


def test_only_a_file_as_safe_as_the_package_source_is_trusted(tmp_path):
    source, built = tmp_path / "kernel.py", tmp_path / "_kernel_aot.so"
    source.write_text("")
    shutil.copy(source, built)
    source.chmod(0o644)
    built.chmod(0o755)
    assert shipped.trusted(built, source)
    built.chmod(0o757)  # anyone may write it, though not the source beside it
    assert not shipped.trusted(built, source)
    built.chmod(0o775)
    assert not shipped.trusted(built, source)
    source.chmod(0o664)  # a group that may write the source gains nothing more from the extension
    assert shipped.trusted(built, source)
    assert not shipped.trusted(tmp_path / "missing.so", source)


def test_the_shipped_kernel_refuses_arrays_of_another_type(aot, monkeypatch):
    """numba's dispatcher checks the types of its arguments; a function compiled ahead of time would read
    whatever memory it is given, so the loaded kernel checks them itself."""
    space = Space(load_model("yacht", {}))
    plan = kernelplan.plan(space)
    masks, feats = space.level(1)
    batch = plan.batch(masks[:5], feats[:5])
    monkeypatch.setattr(kernel, "_COMPILED", aot)
    out = np.empty(5)
    V = np.zeros(space.entries)
    for wrong in (V.astype(np.float32), V[::2], np.zeros((2, space.entries // 2))):
        with pytest.raises(TypeError):
            kernel.solve_states(wrong, plan.write, plan.turn, batch, out, use="numba")
    assert kernel.solve_states(V, plan.write, plan.turn, batch, out, use="numba") in (0, kernel.NAN_READ)


def test_a_spec_is_numbas_signature_and_the_checks_of_a_call():
    numba = pytest.importorskip("numba")
    s = shipped.spec("i8", "f8.1 i1.2r i8 b1")
    assert shipped.signature(numba, s) == numba.int64(numba.float64[::1], numba.types.Array(numba.int8, 2, "C", readonly=True),
                                                      numba.int64, numba.boolean)
    calls = []
    run = shipped.checked("f", [lambda *a: calls.append(0) or 0, lambda *a: calls.append(1) or 1],
                          [s, shipped.spec("i8", "f8.1r i1.2r i8 b1")])
    table = np.zeros((2, 2), dtype=np.int8)
    table.flags.writeable = False
    assert run(np.zeros(3), table, 1, True) == 0  # a read-only table where it may be one
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    assert run(frozen, table, 1, True) == 1  # the first spec wants a writable array, the second takes it
    for wrong in ((np.zeros(3, np.float32), table, 1, True), (np.zeros(6)[::2], table, 1, True), (np.zeros(3), table, 1)):
        with pytest.raises(TypeError):
            run(*wrong)
    with pytest.raises(ValueError):
        shipped.spec("i8", "f4.1")


CALLED: set = set()  # the shipped functions called through twins (some stay cached in the process from test to test)

# a command line per group of shipped functions, each run in this process (one job: a worker would write the
# arrays a call reads while it runs) with every shipped function twinned
COMMANDS = [
    (["play", "yacht", "--players", "a:optimal", "--seed", "1"], {"_solve_states", "_plan_states"}),  # (first: no policy tables solved yet)
    (["solve", "yacht", "--distribution", "--json", "--jobs", "1"], {"_solve_states", "_plan_states", "_spread", "_layout", "_finish",
                                                      "_turn_outcomes"}),
    (["simulate", "yacht", "--players", "w:win,e:optimal", "--games", "2", "--seed", "3", "--engine", "bulk",
      "--jobs", "1"], {"_win_states", "_turn_mass"}),
    (["simulate", "yacht", "--players", "r:reach:120", "--games", "2", "--seed", "3", "--engine", "game", "--jobs", "1"],
     {"_reach_states", "_layers_of"}),
    (["solve", "pig", "--objective", "win", "-O", "goal=20", "--json"], {"_sweeps"}),
]


@pytest.mark.parametrize("args,functions", COMMANDS, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(COMMANDS)])
def test_the_shipped_functions_give_what_numbas_compile_at_use_gives_bit_for_bit(args, functions, tmp_path, monkeypatch,
                                                                                 capsys):
    """Every call of a shipped function is made twice, by the install's copy and by numba's compiled at use, on
    copies of the same arrays: the same return and every array the same bit for bit after the call."""
    from rulebook.interpreter.play import bulk
    from rulebook.interpreter.players import reach as reach_seat
    from rulebook.interpreter.solver import (distribution, jointtable, lockstep, moments, policy, reach, solve, turnplan,
                                             winplan, winsweeps)
    from rulebook.tools.cli import main
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEBOOK_KERNEL", raising=False)
    for module, name, empty in ((kernel, "_COMPILED", None), (turnplan, "_COMPILED", None), (turnplan, "_LAYERS", []),
                                (distribution, "_COMPILED", {}), (moments, "_TURN", []), (winplan, "_COMPILED", []),
                                (reach, "_COMPILED", None), (winsweeps, "_COMPILED", None), (lockstep, "_COMPILED", None),
                                (lockstep, "_WRITE", None), (lockstep, "_BEST", {})):
        monkeypatch.setattr(module, name, empty)
    # what earlier tests in this process solved, planned or built stays out (else a command finds it and calls nothing)
    for module, name in ((solve, "_SPACES"), (solve, "_SPACE_ONLY"), (bulk, "_PLANS"), (policy, "_MAPPED"),
                         (policy, "_BUILT"), (policy, "_DECIDERS"), (moments, "_MOMENTS"), (jointtable, "_TABLES"),
                         (reach_seat, "_TABLES")):
        monkeypatch.setattr(module, name, {})
    for helper in ("_parts", "_loops"):  # (winsweeps' sweeps compiled at use call its helpers compiled at use)
        monkeypatch.setattr(winsweeps, helper, numbajit.at_use(getattr(winsweeps, helper), winsweeps.SHIPPED[helper]))
    called, real = CALLED, shipped.load
    called.clear()

    def twinned(function, specs):
        aot, jit = real(function, specs), numbajit.at_use(function, specs)
        assert aot is not None and jit

        def run(*values):
            copies = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
            for c, v in zip(copies, values):
                if isinstance(v, np.ndarray) and not v.flags.writeable:
                    c.flags.writeable = False
            want = jit(*copies)
            got = aot(*values)
            called.add(function.__name__)
            assert got == want, function.__name__
            for c, v in zip(copies, values):
                if isinstance(v, np.ndarray):
                    assert np.array_equal(c, v, equal_nan=v.dtype.kind == "f"), function.__name__
            return got
        return run
    monkeypatch.setattr(shipped, "load", twinned)
    assert main(args) == 0
    capsys.readouterr()
    assert functions <= called, called
