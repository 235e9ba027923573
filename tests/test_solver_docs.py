"""docs/solver.md: every row of its example table is what the solver says about that rule."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulebook.interpreter.solver.abstraction import NotSolvable
from rulebook.interpreter.model.loader import RULES_DIR, load_source
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.solve import solve

DOC = (Path(__file__).resolve().parent.parent / "docs" / "solver.md").read_text(encoding="utf-8")


def examples() -> list[tuple[str, str]]:
    table = DOC.split("| Bonus points | Solver |")[1].split("\n\n")[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    out = []
    for line in rows:
        expr, said = (c.strip() for c in line.strip().strip("|").rsplit("|", 1))
        out.append((expr.strip("`"), said))
    return out


def with_bonus(points: str, **options):
    data = yaml.safe_load((RULES_DIR / "yacht.yaml").read_text(encoding="utf-8"))
    text = {"en": "x", "de": "x", "nl": "x"}
    data.setdefault("options", {})["count"] = {
        "name": {"en": "Count", "de": "Zählen", "nl": "Tellen"}, "default": "score",
        "choices": {"score": {"en": "score", "de": "Punkte", "nl": "punten"},
                    "points": {"en": "points", "de": "Zähler", "nl": "tellers"}}}
    data["bonuses"] = [{"id": "extra", "name": {"en": "Extra", "de": "Extra", "nl": "Extra"}, "section": "numbers",
                        "when": "end", "points": points, "rule": text}]
    return load_source(yaml.safe_dump(data, allow_unicode=True), "example.yaml", options or None)


def test_the_page_has_examples():
    assert len(examples()) >= 8


@pytest.mark.parametrize("points,said", examples())
def test_each_example_is_what_the_solver_says(points, said):
    model = with_bonus(points)
    if said.startswith("solvable"):
        expected = [tuple(part.split()) for part in said.split(":", 1)[1].split(",")]
        assert [(f.kind, f.name, str(f.limit)) for f in Space(model).feats] == expected
    else:
        with pytest.raises(NotSolvable) as refused:
            Space(model)
        assert said in refused.value.message


def test_the_other_option_value_reads_the_other_branch():
    points = "(35 if total(numbers) >= 63 else 0) if option.count == 'score' else value(ones) * 2"
    read = {opt: [(f.kind, f.name, f.limit) for f in Space(with_bonus(points, count=opt)).feats]
            for opt in ("score", "points")}
    assert read == {"score": [("total", "numbers", 63)], "points": [("total", "ones", 6)]}


def test_at_least_is_solved_like_the_equalities_it_stands_for():
    """Sixes score 0, 6, …, 30: `value(sixes) >= 24` is `== 24 or == 30`; both give the same optimum."""
    at_least = solve(with_bonus("10 if value(sixes) >= 24 else 0")).expected_score
    listed = solve(with_bonus("10 if value(sixes) == 24 or value(sixes) == 30 else 0")).expected_score
    plain = solve(with_bonus("0")).expected_score
    assert at_least == pytest.approx(listed, abs=1e-9)
    assert plain == pytest.approx(166.955068, abs=1e-6) and at_least > plain + 1


def test_a_difference_times_a_value_is_solved_exactly_and_the_games_agree():
    """`(value(sixes) - value(ones)) * value(twos)` read exactly: the optimal player's simulated games
    (the engine scores the real bonus) average the solved value within 3 standard errors."""
    from rulebook.interpreter.play.game import Seat
    from rulebook.interpreter.play.simulate import run_games, summarize
    model = with_bonus("(value(sixes) - value(ones)) * value(twos)")
    space = Space(model)
    value = solve(model, space=space).expected_score
    seats = [Seat("a", "optimal")]
    (s,) = summarize(model, seats, run_games(model, seats, 3000, 7))
    assert abs(s.mean - value) < 3 * s.stderr and s.bonus_mean["extra"] > 30
