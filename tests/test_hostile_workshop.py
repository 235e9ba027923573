"""The corpus's workshop class (issue 28): hostile models of the corpus (tests/hostile.py and
tests/hostile_two.py), pasted into a workshop copy as a visitor would: of each class of the corpus,
its first two and its largest model (the command-line corpus test runs all 222 through `check`). In the slow set: each check runs in a
sandboxed worker process of its own, about 2 CPU seconds a case. What the check refuses is
refused with a reason and kept as the owner's draft, but cannot be played and cannot be opened as a table; what it
passes is saved; and between the cases the server goes on answering a sound copy."""
from __future__ import annotations

import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulebook.interpreter.model.loader import bundled_models  # noqa: E402
from rulebook.tools.serve import create_app  # noqa: E402
from rulebook.tools.serve.limits import Limits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import corpus  # noqa: E402

YACHT = bundled_models()["yacht"].read_text(encoding="utf-8")
LOTS = 100_000  # the quotas are another test's subject (test_serve_workshop_limits.py): here they never bind


def hostile_models(folder: Path) -> dict[str, tuple[str, str]]:
    """name -> (class, text) of every corpus case that is a model file (`check` reads it)."""
    found = {}
    for case in corpus(folder):
        for command in case.commands:
            if command[:1] == ["check"] and len(command) > 1 and command[1].startswith("input/") and not case.cache:
                file = folder / command[1].removeprefix("input/")
                if file.is_file():
                    found[file.name] = (case.kind, file.read_bytes().decode("utf-8", "replace"))
    return found


def sample(models: dict[str, tuple[str, str]], each: int = 2) -> dict[str, tuple[str, str]]:
    """Of every class, its first `each` models by name and its largest."""
    chosen: dict[str, tuple[str, str]] = {}
    for kind in sorted({k for k, _ in models.values()}):
        names = sorted(n for n, (k, _) in models.items() if k == kind)
        for name in names[:each] + [max(names, key=lambda n: len(models[n][1]))]:
            chosen[name] = models[name]
    return chosen


@pytest.mark.slow  # 44 sandboxed checks: about 2 CPU seconds each
def test_every_hostile_model_is_refused_by_the_workshop_or_saved_and_the_server_keeps_answering(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    every = hostile_models(tmp_path / "inputs")
    models = sample(every)
    limits = Limits(copies_per_client=LOTS, tables_per_client=LOTS, moves_per_client=LOTS)
    outcome: Counter[str] = Counter()
    with TestClient(create_app(tmp_path / "serve.sqlite3", pace=0, limits=limits), base_url="http://localhost") as c:
        r = c.post("/workshop/yacht?lang=en", follow_redirects=False)
        copy_id, token = r.headers["location"].split("/w/")[1].split("?")[0], r.headers["location"].split("#edit=")[1]
        for name, (kind, text) in sorted(models.items()):
            r = c.post(f"/api/copies/{copy_id}/check", json={"source": text, "token": token, "lang": "en"})
            if r.status_code == 413:  # too big to parse at all: refused before the sandbox
                assert "at most" in r.json()["error"], (name, r.text)
                outcome["too big"] += 1
            else:
                assert r.status_code == 200, (name, r.status_code, r.text[:300])
                answer = r.json()
                if answer["ok"]:
                    assert answer["saved"], name
                    outcome["passed and saved"] += 1
                else:
                    assert answer["saved"], name  # the owner's draft is kept (nothing lost), marked refused
                    assert answer["errors"] and answer["errors"][0]["message"].strip(), name
                    assert "Traceback" not in answer["errors"][0]["message"], name
                    outcome["refused"] += 1
                    play = c.post(f"/api/copies/{copy_id}/play", json={"lang": "en"})
                    assert play.status_code == 422 and "cannot be played" in play.json()["error"], (name, play.text)
                    table = c.post("/api/tables", json={"model": f"copy:{copy_id}",
                                                        "seats": [{"name": "A", "kind": "human"}]})
                    assert table.status_code == 404, (name, table.text)
            # the server still answers, and a sound text is saved again over whatever came before
            sound = c.post(f"/api/copies/{copy_id}/check", json={"source": YACHT, "token": token, "lang": "en"})
            assert sound.status_code == 200 and sound.json()["ok"] and sound.json()["saved"], (name, sound.text[:300])
            assert c.get("/api/games").status_code == 200
    # the corpus's models are mostly refused; a few are sound texts with hostile names or markup
    assert outcome["refused"] + outcome["too big"] >= 0.6 * len(models), outcome
    assert len(every) >= 200 and len({k for k, _ in models.values()}) >= 15, (len(every), len(models))
    print(dict(outcome), len(models))
