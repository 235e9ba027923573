"""The solver's kernel compiled at install time (interpreter/solver/shipped.py, built by setup.py): the
same numbers bit for bit as the kernel numba compiles at use and as numpy, a first solve that compiles
nothing, and loaded only when it is the install's own and built from this kernel.py."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.solver import kernel, kernelplan, shipped
from rulebook.interpreter.solver.space import Space

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def _built():
    """The install compiled the kernel (setup.py): a skip without it, except in CI, where it is a failure."""
    if not shipped.shipped_here():
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


def test_a_first_solve_with_the_shipped_kernel_compiles_nothing_and_imports_no_numba(tmp_path):
    code = ("import sys; from rulebook.tools.cli import main; code = main(['solve', 'yacht', '--json']); "
            "assert 'numba' not in sys.modules, 'numba was imported'; sys.exit(code)")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache")}
    env.pop("RULEBOOK_KERNEL", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "kernel" not in out.stderr and '"expected_score": 166.955068' in out.stdout
    assert not (tmp_path / "cache" / "numba").exists() or not any((tmp_path / "cache" / "numba").rglob("*.nbc"))


def test_a_kernel_built_from_another_kernel_py_is_not_loaded(tmp_path):
    source = Path(kernel.__file__)
    assert shipped.load(kernel.__package__, source, kernel._ARGS) is not None
    edited = tmp_path / "kernel.py"
    edited.write_bytes(source.read_bytes() + b"\n# an edit after the install\n")
    assert shipped.load(kernel.__package__, edited, kernel._ARGS) is None


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
