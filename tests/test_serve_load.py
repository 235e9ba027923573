"""The load script of `rulebook serve` (benchmarks/load_serve.py): 50 concurrent tables on
loopback, played to the end, with every event seen by a spectator once and in order and stored."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "load_serve.py"


def load_script():
    spec = importlib.util.spec_from_file_location("load_serve", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["mixed", "bots"])
def test_fifty_concurrent_tables_finish_with_nothing_lost(mode, capsys):
    code = load_script().main(["--tables", "50", "--mode", mode, "--time-limit", "240"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "50 of 50 tables finished" in out and "0 lost or failed" in out
    assert "moves/s" in out and "p99" in out
