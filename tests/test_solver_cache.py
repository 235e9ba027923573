"""A cached table is used only when it is this model's, whole and unchanged; otherwise it is rebuilt."""
import json
import shutil

import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.model import cachedir
from rulebook.interpreter.solver import tablefile
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.cache import cache_path
from rulebook.interpreter.solver.solve import load_cached, load_or_solve

YACHT = 166.955068


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    return tmp_path


def solve_and_warnings(model):
    lines = []
    table = load_or_solve(model, warn=lines.append)
    return table, lines


def test_a_good_table_is_read_back_without_solving(cache, monkeypatch):
    model = load_model("yacht")
    first, lines = solve_and_warnings(model)
    assert lines == [] and cache_path(model).exists()
    from rulebook.interpreter.solver import solve as solver
    monkeypatch.setattr(solver, "solve", lambda *a, **k: pytest.fail("solved again"))
    again, lines = solve_and_warnings(model)
    assert lines == [] and again.expected_score == pytest.approx(YACHT, abs=1e-6)
    assert isinstance(again.values, np.memmap)  # read as a memory map, not copied


def test_edited_values_are_refused_and_rebuilt(cache):
    model = load_model("yacht")
    solve_and_warnings(model)
    values = np.load(cache_path(model), mmap_mode="r+")
    values[0] = 999.0
    values.flush()
    del values
    with pytest.raises(tablefile.BadTable, match="digest"):
        load_cached(model, Space(model))
    table, lines = solve_and_warnings(model)
    assert len(lines) == 1 and "digest" in lines[0] and lines[0].endswith("solving again")
    assert table.expected_score == pytest.approx(YACHT, abs=1e-6)
    assert load_cached(model, Space(model)).expected_score == pytest.approx(YACHT, abs=1e-6)  # replaced


def test_an_infinite_value_is_refused(cache):
    model = load_model("yacht")
    solve_and_warnings(model)
    values = np.load(cache_path(model), mmap_mode="r+")
    values[-1] = np.inf
    values.flush()
    del values
    with pytest.raises(tablefile.BadTable, match="infinities"):
        load_cached(model, Space(model))


def test_a_truncated_file_is_refused_and_rebuilt(cache):
    model = load_model("yacht")
    solve_and_warnings(model)
    path = cache_path(model)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(tablefile.BadTable, match="cannot be read"):
        load_cached(model, Space(model))
    table, lines = solve_and_warnings(model)
    assert len(lines) == 1 and table.expected_score == pytest.approx(YACHT, abs=1e-6)


def test_a_wrong_shape_is_refused(cache):
    model = load_model("yacht")
    solve_and_warnings(model)
    path = cache_path(model)
    np.save(path, np.zeros(10))  # header still claims the real shape
    with pytest.raises(tablefile.BadTable, match="holds <f8 \\(10,\\)"):
        load_cached(model, Space(model))
    head = json.loads(cachedir.read_sealed(tablefile.header_path(path)))
    head["shape"] = [10]
    tablefile.write_header(path, head)
    with pytest.raises(tablefile.BadTable, match="the model needs"):
        load_cached(model, Space(model))
    np.save(path, np.zeros((4096,), dtype=np.float32))
    head["shape"] = [4096]
    tablefile.write_header(path, head)
    with pytest.raises(tablefile.BadTable, match="<f4"):
        load_cached(model, Space(model))


def test_a_foreign_table_is_refused(cache):
    """Another model's (or other options') table copied under this model's name is not used."""
    yacht, generala = load_model("yacht"), load_model("generala", {"served_generala_wins": "false"})
    solve_and_warnings(yacht)
    target = cache_path(generala)
    shutil.copy(cache_path(yacht), target)
    shutil.copy(tablefile.header_path(cache_path(yacht)), tablefile.header_path(target))
    with pytest.raises(tablefile.BadTable, match="not sealed"):  # a seal holds for its own file name only
        load_cached(generala, Space(generala))
    tablefile.write_header(target, json.loads(cachedir.read_sealed(tablefile.header_path(cache_path(yacht)))))
    with pytest.raises(tablefile.BadTable, match="another model"):
        load_cached(generala, Space(generala))
    cache_path(generala).write_bytes(b"not a table at all")
    tablefile.write_header(target, {})
    with pytest.raises(tablefile.BadTable, match="format"):
        load_cached(generala, Space(generala))
    tablefile.header_path(target).unlink()
    with pytest.raises(tablefile.BadTable, match="missing"):
        load_cached(generala, Space(generala))


def test_an_old_format_header_is_refused(cache):
    model = load_model("yacht")
    solve_and_warnings(model)
    hp = tablefile.header_path(cache_path(model))
    head = json.loads(cachedir.read_sealed(hp))
    head["format"] = 1
    tablefile.write_header(cache_path(model), head)
    with pytest.raises(tablefile.BadTable, match="format 1"):
        load_cached(model, Space(model))


def test_an_interrupted_solve_resumes_from_its_checkpoint(cache):
    """Stopped after some layers, the same solve goes on from the last finished layer."""
    from rulebook.interpreter.solver import induction
    model = load_model("generala", {"served_generala_wins": "false"})
    calls = []

    def stop_halfway(done, total):
        calls.append(done)
        if done > total // 3:
            raise KeyboardInterrupt

    with pytest.raises(induction.Interrupted, match="run the same command again to resume"):
        load_or_solve(model, stop_halfway)
    partial = cache_path(model).with_name(cache_path(model).stem + ".partial.json")
    finished = json.loads(cachedir.read_sealed(partial))["layers"]
    assert 0 < len(finished) < 12 and not cache_path(model).exists()
    seen = []
    table = load_or_solve(model, lambda done, total: seen.append(done))
    assert seen[0] > 0  # the finished layers were not solved again
    assert table.expected_score == pytest.approx(159.618456, abs=1e-6)
    assert not partial.exists() and cache_path(model).exists()


def test_a_changed_checkpoint_layer_is_solved_again(cache):
    from rulebook.interpreter.solver import induction
    model = load_model("generala", {"served_generala_wins": "false"})

    def stop(done, total):
        if done > total // 2:
            raise KeyboardInterrupt

    with pytest.raises(induction.Interrupted):
        load_or_solve(model, stop)
    npy = cache_path(model).with_name(cache_path(model).stem + ".partial.npy")
    values = np.load(npy, mmap_mode="r+")
    values[np.isfinite(values)] += 1.0  # every finished layer is now wrong
    values.flush()
    del values
    lines = []
    table = load_or_solve(model, warn=lines.append)
    assert any("was changed" in line for line in lines)
    assert table.expected_score == pytest.approx(159.618456, abs=1e-6)


def test_two_jobs_give_the_same_table_as_one(cache):
    from rulebook.interpreter.solver import induction
    from rulebook.interpreter.solver.solve import solve
    model = load_model("generala", {"served_generala_wins": "false"})
    one = solve(model)
    two = solve(model, limits=induction.Limits(jobs=2))
    assert np.array_equal(one.values, two.values, equal_nan=True)
    three = solve(model, limits=induction.Limits(jobs=2), checkpoint=(cache / "t.npy", "k"))
    assert np.array_equal(one.values, np.asarray(three.values), equal_nan=True)


def test_limits_are_refused_with_what_to_change(cache):
    from rulebook.interpreter.solver import induction
    from rulebook.interpreter.solver.abstraction import NotSolvable
    space = Space(load_model("yacht"))
    est = induction.estimate(space, induction.Limits(), on_disk=False)
    assert est.states == 4096 and est.table_bytes == 4096 * 8 and est.seconds > 0
    with pytest.raises(NotSolvable, match="4,096 states") as refused:
        induction.refuse_beyond(space, est, induction.Limits(max_states=100))
    assert "--max-states 4096" in str(refused.value)
    with pytest.raises(NotSolvable, match="--memory 0.1G"):
        induction.refuse_beyond(space, est, induction.Limits(memory=1000))
    assert induction.parse_size("4G") == 4 * 2**30 and induction.parse_size("512MB") == 512 * 2**20


def test_a_bundled_model_is_solved_within_memory_however_many_states_it_has(cache, tmp_path):
    """Maxi Yatzy without saved rolls (57,507,840 states) is over the untrusted-input budget: refused as a
    shared model file, allowed (within --memory) as the model shipped with rulebook."""
    import argparse
    from rulebook.interpreter.solver import induction
    from rulebook.interpreter.solver.abstraction import NotSolvable
    from rulebook.interpreter.model.loader import bundled_models, is_bundled
    from rulebook.tools.commands.solve import TRUSTED_STATES, limits_from
    args = argparse.Namespace(max_states=None, memory=None, jobs=1)
    shipped = load_model("maxi_yatzy", {"saved_rolls": "false"})
    copy = tmp_path / "maxi_yatzy.yaml"
    shutil.copy(bundled_models()["maxi_yatzy"], copy)
    shared = load_model(str(copy), {"saved_rolls": "false"})
    assert is_bundled(shipped) and not is_bundled(shared) and not is_bundled(load_model("tests/data/tutorial_game.yaml"))
    assert limits_from(args, shipped).max_states == TRUSTED_STATES and limits_from(args, shared).max_states is None
    assert limits_from(argparse.Namespace(max_states=10, memory=None, jobs=1), shipped).max_states == 10
    space = Space(shipped)
    est = induction.estimate(space, limits_from(args, shipped), on_disk=True)
    assert est.states == 57_507_840 and est.memory_bytes < induction.MEMORY
    induction.refuse_beyond(space, est, limits_from(args, shipped))  # allowed
    with pytest.raises(NotSolvable, match="--max-states 57507840"):
        induction.refuse_beyond(Space(shared), est, limits_from(args, shared))


# caches are untrusted input (issue 28) ------------------------------------------------------------

def test_a_forged_header_is_never_believed(cache):
    """A header written by anybody but this user (no seal under the user's key) is refused, even when
    its fields are right: a table that reports 999,999 is solved again, never read."""
    model = load_model("yacht")
    solve_and_warnings(model)
    path = cache_path(model)
    values = np.load(path, mmap_mode="r+")
    values[0] = 999_999.0
    values.flush()
    del values
    head = json.loads(cachedir.read_sealed(tablefile.header_path(path)))
    head["digest"] = tablefile.digest(np.load(path, mmap_mode="r"))
    tablefile.header_path(path).write_text(json.dumps(head))  # the forger has no key
    with pytest.raises(tablefile.BadTable, match="not sealed"):
        load_cached(model, Space(model))
    table, lines = solve_and_warnings(model)
    assert table.expected_score == pytest.approx(YACHT, abs=1e-6) and "not sealed" in lines[0]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "link", "folder", "huge"])
def test_a_header_that_is_no_file_is_refused_at_once(cache, kind):
    import os
    model = load_model("yacht")
    solve_and_warnings(model)
    hp = tablefile.header_path(cache_path(model))
    hp.unlink()
    if kind == "fifo":
        os.mkfifo(hp)
    elif kind == "dev-zero":
        hp.symlink_to("/dev/zero")
    elif kind == "link":
        (cache / "elsewhere.json").write_text("{}")
        hp.symlink_to(cache / "elsewhere.json")
    elif kind == "folder":
        hp.mkdir()
    else:
        hp.write_bytes(b" " * (tablefile.MAX_HEADER_BYTES + 1))
    with pytest.raises(tablefile.BadTable, match="not a table header"):
        load_cached(model, Space(model))


@pytest.mark.parametrize("fields", [{"shape": "x"}, {"states": "1"}, {"features": [1]}, {"seconds": None},
                                    {"extra": 1}, {"shape": [True]}])
def test_a_malformed_header_is_one_line_not_a_traceback(cache, fields):
    model = load_model("yacht")
    solve_and_warnings(model)
    head = json.loads(cachedir.read_sealed(tablefile.header_path(cache_path(model))))
    tablefile.write_header(cache_path(model), {**head, **fields})
    with pytest.raises(tablefile.BadTable, match="fields of a table header"):
        load_cached(model, Space(model))


def test_a_cache_folder_others_can_write_is_refused(tmp_path, monkeypatch):
    from rulebook.interpreter.model.errors import RulebookError
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("RULEBOOK_CACHE", str(shared))
    with pytest.raises(RulebookError, match="can be written by others") as exc:
        cachedir.folder()
    assert "\n" not in str(exc.value) and "RULEBOOK_CACHE" in str(exc.value)


def test_a_key_others_can_read_is_refused(tmp_path, monkeypatch):
    from rulebook.interpreter.model.errors import RulebookError
    file = tmp_path / "cache.key"
    monkeypatch.setenv("RULEBOOK_KEY_FILE", str(file))
    monkeypatch.setattr(cachedir, "_KEY", {})
    assert len(cachedir.key()) == cachedir.KEY_BYTES and file.stat().st_mode & 0o777 == 0o600
    file.chmod(0o644)
    monkeypatch.setattr(cachedir, "_KEY", {})
    with pytest.raises(RulebookError, match="not yours alone"):
        cachedir.key()


def test_a_planted_pickle_in_numbas_folder_is_removed_before_numba_sees_it(cache):
    from rulebook.interpreter.solver import kernel
    where = kernel.numba_cache_dir()
    assert where == cache / "numba"
    cachedir.seal_tree(where)
    planted = where / "rulebook_kernel_solve_states-1.py311.nbi"
    planted.write_bytes(b"cos\nsystem\n(S'echo planted'\ntR.")
    assert kernel.numba_cache_dir() == where and not planted.exists()
