"""Large runs on a Dask cluster (issue 27): `simulate` and `compare` with --scheduler give the local
run's numbers exactly, on a LocalCluster of two workers."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "rulebook.interpreter", *args], capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.fixture(scope="module")
def scheduler():
    try:
        from dask.distributed import LocalCluster
    except ImportError:
        if os.environ.get("RULEBOOK_REQUIRE_TOOLS"):
            pytest.fail("dask.distributed is required in CI (make test installs the extra [dask])")
        pytest.skip("dask.distributed is not installed")
    # two worker processes of one thread each (threads of one process would share the bulk plan caches); the
    # dashboard on a free port (None still starts it on 8787, which another run may hold: dask/distributed#8136)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=":0", memory_limit="2GiB")
    yield cluster.scheduler_address
    cluster.close()


def test_simulate_in_bulk_on_the_cluster_is_the_local_run(scheduler):
    args = ["simulate", "yahtzee", "--games", "4500", "--seed", "11", "--json"]  # three blocks of bulk games
    here, there = run(*args, "--jobs", "1"), run(*args, "--scheduler", scheduler)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert there.stdout == here.stdout
    data = json.loads(there.stdout)
    assert data["players"][0]["games"] == 4500


def test_simulate_game_by_game_on_the_cluster_is_the_local_run(scheduler):
    args = ["simulate", "yacht", "--games", "250", "--seed", "3", "--players", "a:random,b:greedy", "--engine", "game", "--json"]
    here, there = run(*args, "--jobs", "1"), run(*args, "--scheduler", scheduler)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert there.stdout == here.stdout
    assert [p["wins"] for p in json.loads(there.stdout)["players"]] == [p["wins"] for p in json.loads(here.stdout)["players"]]


def test_compare_on_the_cluster_is_the_local_run(scheduler, tmp_path):
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path / "cache")}
    args = ["compare", "ship_captain_crew", "--variant", "", "--model", "rules/ship_captain_crew.yaml",
            "--games", "300", "--json", "--no-cache"]
    here, there = run(*args, env=env), run(*args, "--scheduler", scheduler, env=env)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert json.loads(there.stdout) == json.loads(here.stdout)
    assert len(json.loads(there.stdout)["variants"]) == 2


def test_an_unreachable_scheduler_is_one_line():
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}  # Dask's own setting: wait 1 s, not 30
    out = run("simulate", "yacht", "--games", "10", "--scheduler", "tcp://127.0.0.1:9", "--lang", "de", env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "127.0.0.1:9" in out.stderr
