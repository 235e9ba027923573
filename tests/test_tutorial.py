"""docs/writing-a-game.md and its final model, tests/data/tutorial_game.yaml, say the same thing:
the model passes check, scores as the tutorial says, and the tutorial's snippets are the model's."""
import json
import re
from pathlib import Path

import yaml

from rulebook.interpreter import load_model
from rulebook.interpreter.model.scoring import Scorer

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "data" / "tutorial_game.yaml"
DOC = ROOT / "docs" / "writing-a-game.md"
MODEL = load_model(GAME)
SCORER = Scorer(MODEL)


def blocks(lang: str) -> list[str]:
    """The page's code blocks in one language; blocks of another example file (marked with
    `<!-- example: PATH -->`, checked by test_writing_docs.py) are not Trio's."""
    found = re.findall(rf"(<!-- example: \S+ -->\n)?```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [block for marker, block in found if not marker]


def points(dice, sheet=None, roll_number=1, model=MODEL):
    return {c.box: c.points for c in Scorer(model).choices(dice, sheet or {}, roll_number)}


def test_check_exits_0(cli):
    code, out, err = cli("check", str(GAME))
    assert code == 0 and err == ""
    assert "ok (trio: 6 boxes, 3 options, 1-6 players)" in out
    for option in ("pair_scoring=fixed", "run_points=0", "run_points=50", "sudden_win=false"):
        assert cli("check", str(GAME), "-O", option)[0] == 0


def test_shape():
    assert list(MODEL.boxes) == ["low", "high", "pair", "run", "trio", "chance"]
    assert (MODEL.n_dice, MODEL.faces, MODEL.min_players, MODEL.max_players) == (3, 6, 1, 6)
    assert MODEL.flow.times == len(MODEL.boxes)
    assert [s.kind for s in MODEL.flow.walk()] == ["repeat", "each_player", "roll", "repeat", "keep", "roll", "write"]


def test_scoring_table_of_the_tutorial():
    # 2 2 5 with an empty sheet: Chance is not allowed while Low and High are open
    assert points([2, 2, 5]) == {"low": 4, "high": 5, "pair": 9, "run": 0, "trio": 0}
    assert points([3, 4, 5])["run"] == 15 and points([3, 4, 5])["pair"] == 0
    assert points([6, 6, 6]) == {"low": 0, "high": 18, "pair": 18, "run": 0, "trio": 30}
    assert points([4, 4, 4])["pair"] == 12  # three alike is also a pair
    assert SCORER.points("low", [2, 3, 5]) == 5 and SCORER.points("high", [2, 5, 6]) == 11
    assert SCORER.points("chance", [1, 5, 6]) == 12


def test_examples_score_their_box():
    for box in MODEL.boxes.values():
        assert SCORER.points(box.id, box.example) > 0, box.id


def test_chance_only_once_numbers_are_filled():
    assert "chance" not in points([1, 2, 6], {"low": 3})
    assert points([1, 2, 6], {"low": 3, "high": 6})["chance"] == 9


def test_second_trio_earns_the_write_bonus():
    choices = SCORER.choices([4, 4, 4], {"trio": 30, "low": 6, "high": 15})
    assert {c.box: (c.points, c.bonus) for c in choices} == {"pair": (12, 20), "run": (0, 20), "chance": (12, 20)}
    assert {c.bonus for c in SCORER.choices([4, 4, 4], {"trio": 0})} == {0}
    assert SCORER.totals({"trio": 30, "pair": 12}, {"trio_bonus": 20})["total"] == 62


def test_numbers_bonus_at_20():
    assert SCORER.totals({"low": 6, "high": 15})["numbers_bonus"] == 10
    assert SCORER.totals({"low": 6, "high": 13})["numbers_bonus"] == 0
    assert SCORER.totals({"low": 5, "high": 15, "trio": 30}) == {
        "numbers": 20, "combos": 30, "numbers_bonus": 10, "trio_bonus": 0, "total": 60}
    assert SCORER.progress({"high": 14}) == {"numbers_bonus": (14, 20)}


def test_options():
    fixed = load_model(GAME, {"pair_scoring": "fixed"})
    assert points([2, 2, 5], model=fixed)["pair"] == 10
    assert points([1, 2, 4], model=fixed)["pair"] == 0
    assert fixed.boxes["pair"].rule["en"] == "two dice alike; 10 points"
    assert MODEL.boxes["pair"].rule["de"] == "zwei gleiche Würfel; alle Augen zählen"
    twenty = load_model(GAME, {"run_points": "20"})
    assert points([3, 4, 5], model=twenty)["run"] == 20
    assert twenty.boxes["run"].rule["nl"] == "drie stenen op een rij, zoals 3 4 5; 20 punten"
    assert MODEL.boxes["run"].rule["en"] == "three dice in a row, such as 3 4 5; 15 points"


def test_three_sixes_on_the_first_roll_end_the_game():
    def ends(dice, roll_number):
        return MODEL.end_if(SCORER.context(dice, {"trio": 30}, None, roll_number))
    assert ends([6, 6, 6], 1) is True
    assert ends([6, 6, 6], 2) is False
    assert ends([5, 5, 5], 1) is False


def test_sudden_win_option():
    off = load_model(GAME, {"sudden_win": "false"})
    assert off.end_if is None  # `option.sudden_win and …` folds to false: no early end at all
    write = next(s for s in off.flow.walk() if s.kind == "write")
    assert write.rule["en"] == "Any open box may take the dice, but Chance only once Low and High are filled."
    on = next(s for s in MODEL.flow.walk() if s.kind == "write")
    assert "Three sixes on the first roll win the game at once" in on.rule["en"]
    assert "Drei Sechsen" in on.rule["de"] and "Drie zessen" in on.rule["nl"]


def test_score_command_output_in_the_tutorial(cli):
    code, out, _ = cli("score", str(GAME), "--dice", "2,2,5", "-O", "pair_scoring=fixed", "--json")
    assert code == 0
    shown = next(b for b in blocks("console") if "pair_scoring=fixed --json" in b).splitlines()[1]
    assert json.loads(out) == json.loads(shown)


def test_yaml_snippets_are_the_final_model():
    final = GAME.read_text(encoding="utf-8")
    snippets = blocks("yaml")
    assert len(snippets) >= 8
    for snippet in snippets:
        yaml.safe_load(snippet)  # every snippet is valid YAML on its own
        if snippet.startswith("# yaml-language-server: $schema="):
            assert final.startswith("# yaml-language-server: $schema=")
        elif snippet.startswith("sections:"):
            # the first sketch of the sheet: its boxes are the final ones, but Trio is scored
            # without the definition that section 5 introduces
            assert "score: 30 if max(counts) == 3 else 0" in snippet
            for line in snippet.replace("score: 30 if max(counts) == 3 else 0", "score: 30 if three_alike else 0").splitlines():
                assert line in final, line
        else:
            assert snippet in final, snippet[:80]


def test_python_snippet_runs():
    (code,) = blocks("python")
    exec(code.replace('"trio.yaml"', repr(str(GAME))), {})
