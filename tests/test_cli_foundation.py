"""`rulebook check` and `rulebook score` as a user runs them."""
import json


def test_check_bundled_model_is_clean(cli):
    code, out, err = cli("check", "rules/yahtzee.yaml")
    assert code == 0 and err == ""
    assert "ok (yahtzee: 13 boxes" in out


def test_score_json_shape(cli):
    code, out, _ = cli("score", "yahtzee", "--dice", "2,2,4,3,4", "--json")
    data = json.loads(out)
    assert code == 0 and data["dice"] == [2, 2, 4, 3, 4]
    assert data["options"][:4] == [{"box": "ones", "points": 0, "bonus": 0}, {"box": "twos", "points": 4, "bonus": 0},
                                   {"box": "threes", "points": 3, "bonus": 0}, {"box": "fours", "points": 8, "bonus": 0}]
    assert len(data["options"]) == 13


def test_score_with_sheet_lists_only_legal_boxes(cli):
    code, out, _ = cli("score", "yahtzee", "--dice", "3,3,3,3,3", "--sheet", '{"yahtzee": 50, "fours": 12}', "--json")
    assert json.loads(out)["options"] == [{"box": "threes", "points": 15, "bonus": 100}]


def test_score_free_joker_option(cli):
    code, out, _ = cli("score", "yahtzee", "--dice", "3,3,3,3,3", "--sheet", '{"yahtzee": 50}',
                       "--option", "joker=free", "--json")
    assert len(json.loads(out)["options"]) == 12


def test_score_human_table(cli):
    code, out, _ = cli("score", "yahtzee", "--dice", "2 2 4 3 4", "--lang", "de")
    assert code == 0 and "Vierer" in out and "8" in out


def test_usage_errors_are_one_line_exit_2(cli):
    for args, message in [
        (("score", "yahtzee", "--dice", "2,2,4,3"), "needs 5 dice"),
        (("score", "yahtzee", "--dice", "2,2,4,3,9"), "9 is not a face"),
        (("score", "yahtzee", "--dice", "1,2,3,4,5", "--sheet", '{"yahtze": 50}'), "did you mean 'yahtzee'"),
        (("score", "yahtzee", "--dice", "1,2,3,4,5", "--sheet", '{'), "not valid JSON"),
        (("score", "yahtzee", "--dice", "1,2,3,4,5", "--option", "joker=sometimes"), "choose one of 'forced', 'free', 'none'"),
        (("score", "yahtzee", "--dice", "1,2,3,4,5", "--option", "jokr=free"), "did you mean 'joker'"),
        (("check", "yahtze"), "did you mean 'yahtzee'"),
    ]:
        code, out, err = cli(*args)
        assert code == 2, args
        assert err.count("\n") == 1 and message in err, err
        assert "Traceback" not in err
