"""`rulebook new`: a bundled model copied to a file of one's own, ready to edit and check."""
from rulebook.interpreter import bundled_models, load_model


def test_new_copies_a_bundled_model_that_checks(cli, tmp_path):
    dest = tmp_path / "my-yahtzee.yaml"
    code, out, err = cli("new", "yahtzee", str(dest))
    assert code == 0 and err == ""
    assert f"rulebook check {dest}" in out
    copy = load_model(str(dest))
    original = load_model("yahtzee")
    assert copy.id == "my_yahtzee"
    assert copy.boxes.keys() == original.boxes.keys() and copy.options.keys() == original.options.keys()
    code, out, _ = cli("check", str(dest))
    assert code == 0 and "ok (my_yahtzee: 13 boxes" in out


def test_new_keeps_the_text_and_links_the_schema(cli, tmp_path):
    dest = tmp_path / "sub" / "game.yaml"
    assert cli("new", "yahtzee", str(dest), "--id", "house_rules")[0] == 2  # no folder is made on the way
    dest.parent.mkdir()
    assert cli("new", "yahtzee", str(dest), "--id", "house_rules")[0] == 0
    text = dest.read_text(encoding="utf-8")
    original = bundled_models()["yahtzee"].read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(original.splitlines(), text.splitlines()) if a != b]
    assert len(text.splitlines()) == len(original.splitlines())
    assert [b for _, b in changed][-1] == "id: house_rules"
    assert text.startswith("# yaml-language-server: $schema=file://") and "model.schema.json" in text.splitlines()[0]


def test_new_every_bundled_model(cli, tmp_path):
    for name in bundled_models():
        dest = tmp_path / f"copy-of-{name}.yaml"
        assert cli("new", name, str(dest))[0] == 0
        assert load_model(str(dest)).id == f"copy_of_{name}"


def test_new_refuses_to_overwrite_and_reports_one_line(cli, tmp_path):
    dest = tmp_path / "mine.yaml"
    assert cli("new", "yahtzee", str(dest))[0] == 0
    for args, message in [
        (("new", "yahtzee", str(dest)), "already exists; choose another name, or overwrite it with --force"),
        (("new", "yahtze", str(tmp_path / "x.yaml")), "did you mean 'yahtzee'"),
        (("new", "yahtzee", str(tmp_path / "x.txt")), "should end in .yaml"),
        (("new", "yahtzee", str(tmp_path / "42.yaml")), "choose one with --id"),
        (("new", "yahtzee", str(tmp_path / "y.yaml"), "--id", "Bad-Id"), "not a valid id"),
    ]:
        code, out, err = cli(*args)
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    assert cli("new", "yahtzee", str(dest), "--force")[0] == 0
