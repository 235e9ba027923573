"""The solver's kernel: compiled (numba) and numpy give the same numbers bit for bit, both agree with
the box-by-box path, and numba's compiled code is cached in rulebook's cache directory only.

The kernel compiled at install time has its own tests (test_shipped.py); the tests of compiling at use
and of numba's cache here choose that path (RULEBOOK_KERNEL=jit)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rulebook.interpreter.solver import kernel, kernelplan
from rulebook.interpreter import load_model
from rulebook.interpreter.solver.induction import _solve_chunk_by_box
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.solve import solve

numba = pytest.importorskip("numba")

CASES = [("yahtzee", {}), ("yatzy", {}), ("generala", {"served_generala_wins": "false"}),
         ("maxi_yatzy", {"saved_rolls": "false"}), ("balut", {})]


def _sample(space: Space, k: int, count: int, seed: int = 1):
    masks, feats = space.level(k) if space.level_counts()[k] <= 200_000 else space.sample(k, count, seed)
    pick = np.random.default_rng(seed).choice(len(masks), size=min(count, len(masks)), replace=False)
    return masks[np.sort(pick)], feats[np.sort(pick)]


@pytest.mark.parametrize("name,options", CASES, ids=[c[0] for c in CASES])
def test_numba_and_numpy_are_bitwise_equal_and_match_the_box_by_box_path(name, options, monkeypatch):
    monkeypatch.setattr(kernel, "_COMPILED", kernel.jit(kernel._solve_states, kernel._signature))  # not the shipped one
    model = load_model(name, options)
    space = Space(model)
    plan = kernelplan.plan(space)
    assert plan is not None
    # a table of fuller sheets with distinct, irregular values (ties would hide a wrong max)
    V = np.random.default_rng(7).random(space.entries) * 300
    for k in (space.n - 1, space.n // 2, 1):
        masks, feats = _sample(space, k, 150 if name == "maxi_yatzy" else 400)
        batch = plan.batch(masks, feats)
        fast, slow = np.empty(len(masks)), np.empty(len(masks))
        assert kernel.solve_states(V, plan.write, plan.turn, batch, fast, use="numba") == 0
        assert kernel.solve_states(V, plan.write, plan.turn, batch, slow, use="numpy") == 0
        assert np.array_equal(fast, slow), np.abs(fast - slow).max()
        by_box = _solve_chunk_by_box(space, V, masks, feats, None)
        assert np.allclose(fast, by_box, rtol=0, atol=1e-9), np.abs(fast - by_box).max()
        assert np.all(np.isfinite(fast)) and fast.min() > 0


def test_sheet_dependent_writes_are_laid_out_per_combination_of_atoms():
    """Yahtzee's Joker rule: a Yahtzee roll's write into another box depends on the sheet."""
    plan = kernelplan.plan(Space(load_model("yahtzee", {})))
    assert len(plan.write.bq_box) == 13 * 6  # every box, the six Yahtzee rolls
    assert len(plan.keys) < len(plan.write.bq_box)  # rolls reading the same atoms share their groups
    assert (plan.write.bsel >= -1).all() and plan.write.bsel.max() < len(plan.write.slot_box)


@pytest.mark.parametrize("part", [slice(0, 6), slice(6, 13)], ids=["upper", "lower"])
def test_a_part_of_the_sheet_solves_as_box_by_box(part, monkeypatch):
    """The strong bot's parts: the kernel, and box by box where the write rule sends a roll outside the part."""
    model = load_model("yahtzee", {})
    space = Space(model, list(model.boxes)[part])
    assert kernelplan.plan(space).part
    fast = solve(model, space=space)
    monkeypatch.setattr(kernelplan, "plan", lambda space: None)
    slow = solve(model, space=Space(model, list(model.boxes)[part]))
    finite = np.isfinite(np.asarray(slow.values))
    assert np.array_equal(finite, np.isfinite(np.asarray(fast.values)))
    assert np.allclose(np.asarray(fast.values)[finite], np.asarray(slow.values)[finite], rtol=0, atol=1e-9)


def test_the_whole_solve_is_the_same_with_either_kernel(monkeypatch):
    model = load_model("yacht", {})
    monkeypatch.setenv("RULEBOOK_KERNEL", "numpy")
    slow = solve(model)
    monkeypatch.delenv("RULEBOOK_KERNEL")
    assert kernel.name() == "numba"
    fast = solve(model)
    assert np.array_equal(np.asarray(fast.values), np.asarray(slow.values), equal_nan=True)
    assert fast.expected_score == pytest.approx(166.955068, abs=1e-6)


def test_numba_caches_in_the_rulebook_cache_and_never_beside_the_package(tmp_path):
    package = Path(kernel.__file__).parent
    before = {p for p in package.rglob("*") if p.suffix in (".nbi", ".nbc")}
    code = ("from rulebook.interpreter.solver import kernel; assert kernel.name() == 'numba'; "
            "import numba; assert not numba.config.CACHE_DIR or 'rulebook' in numba.config.CACHE_DIR")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    env["RULEBOOK_KERNEL"] = "jit"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)
    cached = list((tmp_path / "cache" / "numba").rglob("*.nbi"))
    assert cached, "the compiled kernel was not cached in <cache>/numba"
    assert {p for p in package.rglob("*") if p.suffix in (".nbi", ".nbc")} == before


def test_an_unwritable_cache_compiles_without_caching(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.access(ro, os.W_OK):  # root writes anywhere: a file where the folder should be stops everyone
        ro.chmod(0o700)
        ro = tmp_path / "a-file"
        ro.write_text("not a folder")
    package = Path(kernel.__file__).parent
    before = {p for p in package.rglob("*") if p.suffix in (".nbi", ".nbc")}
    env = {**os.environ, "RULEBOOK_CACHE": str(ro), "RULEBOOK_KERNEL": "jit"}
    code = "from rulebook.interpreter.solver import kernel; print(kernel.name(), kernel.numba_cache_dir())"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600, capture_output=True, text=True)
    assert out.stdout.split() == ["numba", "None"]
    assert {p for p in package.rglob("*") if p.suffix in (".nbi", ".nbc")} == before


def test_the_first_solve_in_a_cache_says_it_compiles_the_kernel(tmp_path):
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache"), "RULEBOOK_KERNEL": "jit"}
    run = [sys.executable, "-m", "rulebook.tools.cli", "solve", "yacht", "--json", "--no-cache"]
    first = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600, check=True)
    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=600, check=True)
    assert "its compiled kernel is built once" in first.stderr
    assert "kernel" not in again.stderr and '"expected_score": 166.955068' in again.stdout
    german = subprocess.run(run + ["--lang", "de"], env={**env, "RULEBOOK_CACHE": str(tmp_path / "de")},
                            capture_output=True, text=True, timeout=600, check=True)
    assert "der Löser wird vorbereitet" in german.stderr


BACKGROUND = """
import sys
from pathlib import Path
from rulebook.interpreter import load_model
from rulebook.interpreter.solver import kernel
from rulebook.interpreter.solver.solve import solve
from rulebook.interpreter.model import cachedir
assert kernel.will_compile()
assert kernel.compile_in_background()
assert kernel.will_compile()  # the child compiles: the solve will wait for it
kernel._await_background()
where = kernel.numba_cache_dir()
data = sorted(where.rglob("*.nbc"))
assert data and not kernel.will_compile(), "the child left no sealed, compiled kernel"
if sys.argv[1] == "forge":
    data[0].write_bytes(data[0].read_bytes()[:-1] + b"\\0")  # the machine code changed behind the seal
    assert kernel.will_compile() and not list(where.rglob("*.nbc"))  # the folder is emptied, not believed
stats = kernel.compiled().stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), round(solve(load_model("yacht")).expected_score, 6))
"""


@pytest.mark.parametrize("how", ["sealed", "forge"])
def test_a_background_compile_writes_a_sealed_kernel_and_a_forged_one_is_rebuilt(tmp_path, how):
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache"), "RULEBOOK_KERNEL": "jit"}
    out = subprocess.run([sys.executable, "-c", BACKGROUND, how], env=env, check=True, timeout=900,
                         capture_output=True, text=True)
    hits, misses, score = out.stdout.split()
    # loaded from what the child wrote (a cache hit), or compiled again here after the forgery
    assert (int(hits), int(misses)) == ((1, 0) if how == "sealed" else (0, 1)) and score == "166.955068"


def test_the_pool_takes_only_zero_writes_that_every_roll_may_take_into_one_next_sheet():
    """A box's zero writes join the roll number's pool (one candidate: their best) only where the pool's value F
    is passed by the box's own write of any roll (g + F with g >= 0): every roll allowed, one next sheet, no
    negative points. Yatzy: its combination boxes that can score nothing (Chance always scores); not the upper
    boxes (points move the upper total), nor any of Yahtzee's (the Joker reads the sheet). The bit-for-bit test
    above runs the pooled kernel against numpy's."""
    space = Space(load_model("yatzy", {}))
    w = kernelplan.plan(space).write
    chance = space.boxes.index("chance")
    assert {int(w.pair_box[p]) for p in w.pool} == set(range(6, 15)) - {chance} and (w.pair_gain[w.pool] == 0).all()
    assert set(np.flatnonzero((w.pair_of == kernel.POOLED).any(axis=(0, 2))).tolist()) == set(range(6, 15)) - {chance}
    assert len(kernelplan.plan(Space(load_model("yahtzee", {}))).write.pool) == 0
    # pairs (slot, gain): 0 (0, 0), 1 (1, 0), 2 (1, 3), 3 (2, -1), 4 (3, 0), 5 (4, 0), 6 (2, 0)
    pair_slot, pair_gain = np.array([0, 1, 1, 2, 3, 4, 2]), np.array([0.0, 0.0, 3.0, -1.0, 0.0, 0.0, 0.0])
    pair_of = np.array([[[0, 0, -1],  # a refused roll
                         [1, 2, 1],  # pooled: one slot, gains 0 and 3
                         [6, 3, 6],  # a negative gain
                         [4, 5, 4]]])  # two next sheets
    marked, starts, pool = kernel._pool(pair_slot, pair_gain, pair_of)
    assert pool.tolist() == [1] and starts.tolist() == [0, 1]
    assert marked[0, 1].tolist() == [kernel.POOLED, 2, kernel.POOLED]
    assert np.array_equal(np.delete(marked[0], 1, axis=0), np.delete(pair_of[0], 1, axis=0))
