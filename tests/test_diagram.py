"""`rulebook diagram`: the flow and scoring diagrams, drawn from the model in three languages."""
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require_tool
from rulebook.interpreter import load_model
from rulebook.interpreter.model.loader import bundled_models
from rulebook.interpreter.model.frozen import LANGUAGES
from rulebook.tools.documents import describe
from rulebook.tools.documents.describe import ROLE_STYLES, bound_text, choice_text, end_text, who_text
from rulebook.tools.documents.diagram import diagram, flow_diagram, scoring_diagram

ROOT = Path(__file__).resolve().parent.parent
YAHTZEE = (ROOT / "rules" / "yahtzee.yaml").read_text(encoding="utf-8")


# reading DOT back -------------------------------------------------------------------------------

def _attrs(text: str) -> dict[str, str]:
    """key=value pairs of a DOT attribute list; values may be "quoted", <html> or bare."""
    out, i = {}, 0
    while i < len(text):
        m = re.compile(r"\s*([A-Za-z_]+)=").match(text, i)
        if not m:
            break
        key, i = m.group(1), m.end()
        if text[i] == "<":
            depth, j = 0, i
            while True:
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            out[key], i = text[i + 1:j - 1], j
        elif text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out[key], i = text[i + 1:j].replace('\\"', '"'), j + 1
        else:
            m = re.compile(r"[^\s\]]+").match(text, i)
            out[key], i = m.group(0), m.end()
    return out


class Dot:
    """Nodes, clusters (with their parent) and edges of a graphviz source."""

    def __init__(self, source: str):
        self.source = source
        self.nodes: dict[str, dict] = {}
        self.clusters: dict[str, dict] = {}
        self.parent: dict[str, str | None] = {}  # node or cluster -> innermost enclosing cluster
        self.edges: list[tuple[str, str, dict]] = []
        stack: list[str] = []
        for line in source.splitlines()[1:]:
            line = line.strip()
            if m := re.match(r"subgraph (\w+) \{$", line):
                self.parent[m.group(1)] = next((s for s in reversed(stack) if s.startswith("cluster")), None)
                stack.append(m.group(1))
                self.clusters[m.group(1)] = {}
            elif line == "}":
                if stack:
                    stack.pop()
            elif m := re.match(r"([\w:]+) -> ([\w:]+)(?: \[(.*)\])?$", line):
                self.edges.append((m.group(1).split(":")[0], m.group(2).split(":")[0], _attrs(m.group(3) or "")))
            elif m := re.match(r"(graph|node|edge) \[", line):
                continue
            elif m := re.match(r"(\w+) \[(.*)\]$", line):
                self.nodes[m.group(1)] = _attrs(m.group(2))
                self.parent[m.group(1)] = next((s for s in reversed(stack) if s.startswith("cluster")), None)
            elif stack and "=" in line:
                self.clusters[stack[-1]].update(_attrs(line))

    def text(self, name: str) -> str:
        """The visible text of a node or cluster label (HTML tags dropped, lines joined by spaces)."""
        label = (self.nodes.get(name) or self.clusters.get(name) or {}).get("label", "")
        return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", label)).replace("\\n", " ").split())

    def edge_labels(self) -> dict[tuple[str, str], list[str]]:
        out: dict[tuple[str, str], list[str]] = {}
        for tail, head, attrs in self.edges:
            out.setdefault((tail, head), []).append(attrs.get("label", ""))
        return out

    def words(self) -> set[str]:
        """Every word shown anywhere in the diagram (titles, nodes, clusters, edge labels)."""
        labels = [self.text(n) for n in list(self.nodes) + list(self.clusters)]
        labels += [a.get("label", "") for _, _, a in self.edges]
        title = re.search(r"graph \[.*?label=(<.*?>) labeljust", self.source)
        labels.append(html.unescape(re.sub(r"<[^>]*>", " ", title.group(1))) if title else "")
        return {w for label in labels for w in re.findall(r"[^\W\d_]+", label)}


def dot_of(model, lang, what="flow") -> Dot:
    return Dot(diagram(model, lang, what).source)


def edited(tmp_path, *replacements):
    text = YAHTZEE
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "edited.yaml"
    path.write_text(text, encoding="utf-8")
    return load_model(path)


# the flow diagram -------------------------------------------------------------------------------

EDGE_LABELS = {
    "en": {("step_reroll", "step_keep"): ["again"], ("step_keep", "step_write"): ["stop"],
           ("step_reroll", "step_write"): ["no rolls left"],
           ("step_write", "step_first_roll"): ["next player", "next round"],
           ("step_write", "end"): ["after 13 rounds"]},
    "de": {("step_reroll", "step_keep"): ["noch einmal"], ("step_keep", "step_write"): ["aufhören"],
           ("step_reroll", "step_write"): ["keine Würfe mehr"],
           ("step_write", "step_first_roll"): ["nächster Spieler", "nächste Runde"],
           ("step_write", "end"): ["nach 13 Runden"]},
    "nl": {("step_reroll", "step_keep"): ["nog een keer"], ("step_keep", "step_write"): ["stoppen"],
           ("step_reroll", "step_write"): ["geen worpen meer"],
           ("step_write", "step_first_roll"): ["volgende speler", "volgende ronde"],
           ("step_write", "end"): ["na 13 rondes"]},
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_flow_structure(yahtzee, lang):
    d = dot_of(yahtzee, lang)
    # loops are nested clusters, the other steps nodes inside the innermost loop around them
    assert d.clusters.keys() == {"cluster_game", "cluster_round", "cluster_rerolls"}
    assert (d.parent["cluster_game"], d.parent["cluster_round"], d.parent["cluster_rerolls"]) == (
        None, "cluster_game", "cluster_round")
    assert d.nodes.keys() == {"start", "step_first_roll", "step_keep", "step_reroll", "step_write", "end"}
    assert [d.parent[n] for n in ("step_first_roll", "step_keep", "step_reroll", "step_write", "end")] == [
        "cluster_round", "cluster_rerolls", "cluster_rerolls", "cluster_round", None]
    # edges: the order of the steps, the loops back, the early stop and the end, labelled in the language
    labels = d.edge_labels()
    assert labels[("start", "step_first_roll")] == [""]
    assert labels[("step_first_roll", "step_keep")] == [""]
    assert labels[("step_keep", "step_reroll")] == [""]
    for pair, expected in EDGE_LABELS[lang].items():
        assert labels[pair] == expected, pair
    assert len(d.edges) == 9
    # arrows into a loop end at its border (so they never cross its label)
    lheads = {(t, h): a.get("lhead") for t, h, a in d.edges}
    assert lheads[("start", "step_first_roll")] == "cluster_game"
    assert lheads[("step_first_roll", "step_keep")] == "cluster_rerolls"
    assert lheads[("step_write", "end")] is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_flow_labels_come_from_describe(yahtzee, lang):
    d = dot_of(yahtzee, lang)
    for step in yahtzee.flow.walk():
        if step.kind in ("repeat", "each_player"):
            assert d.text(f"cluster_{step.id}") == f"↻ {step.name[lang]}: {bound_text(step, yahtzee, lang)}"
        else:
            text = d.text(f"step_{step.id}")
            assert text.startswith(step.name[lang]), text
            assert " ".join(who_text(step, yahtzee, lang).split()) in text or step.kind == "roll"
            assert " ".join(choice_text(step, yahtzee, lang).split()) in text
    assert d.text("end") == end_text(yahtzee, lang)
    assert d.text("start") == ""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_roles_have_one_look(yahtzee, lang):
    d = dot_of(yahtzee, lang)
    for node, role in [("step_first_roll", "chance"), ("step_reroll", "chance"), ("step_keep", "decision"),
                       ("step_write", "decision"), ("end", "end")]:
        look = ROLE_STYLES[role]
        assert (d.nodes[node]["shape"], d.nodes[node]["fillcolor"], d.nodes[node]["color"]) == (
            look.shape, look.fillcolor, look.color), node
    for attrs in d.clusters.values():
        assert (attrs["style"], attrs["color"]) == (ROLE_STYLES["loop"].style, ROLE_STYLES["loop"].color)


# the scoring diagram ----------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGUAGES)
def test_scoring_structure(yahtzee, lang):
    d = dot_of(yahtzee, lang, "scoring")
    assert {"step_write", "section_upper", "section_lower", "bonus_upper_bonus", "bonus_yahtzee_bonus",
            "grand_total", "end"} == d.nodes.keys()
    for section in yahtzee.sections:
        label = d.nodes[f"section_{section.id}"]["label"]
        assert section.name[lang] in d.text(f"section_{section.id}")
        for box in section.boxes:
            assert f'port="{box}"' in label
            assert yahtzee.boxes[box].name[lang] in d.text(f"section_{section.id}")
            assert html.escape(yahtzee.boxes[box].rule[lang]).split()[0] in label
    at_end, on_write = (describe.phrase(k, lang) for k in ("at_end", "on_write"))
    labels = d.edge_labels()
    assert labels[("section_upper", "bonus_upper_bonus")] == [at_end]
    assert labels[("step_write", "bonus_yahtzee_bonus")] == [on_write]
    assert labels[("step_write", "section_upper")] == labels[("step_write", "section_lower")] == [""]
    assert ("grand_total", "end") in labels
    assert yahtzee.step("write").rule[lang] in d.text("step_write")
    assert d.text("end") == end_text(yahtzee, lang)


def test_scoring_follows_the_chosen_options():
    texts = {}
    for joker in ("forced", "free", "none"):
        m = load_model("yahtzee", {"joker": joker, "upper_bonus_threshold": "68"})
        d = dot_of(m, "en", "scoring")
        texts[joker] = d.text("step_write")
        assert m.step("write").rule["en"] in texts[joker]
        assert "at least 68" in d.text("bonus_upper_bonus")
        assert m.options["joker"].name["en"] in d.source or joker == "forced"  # non-default options in the title
    assert len(set(texts.values())) == 3



CELL = 'width="14" height="14" fixedsize="true"'


def test_scoring_draws_the_sheets_cells_and_columns(tmp_path):
    """A box used several times shows a cell per entry; columns show a grid with their heads."""
    plain = dot_of(load_model("yahtzee"), "en", "scoring")
    assert CELL not in plain.source  # a sheet of boxes used once draws no cells: the names are the cells
    balut = dot_of(load_model("balut"), "de", "scoring")
    assert balut.nodes["section_rows"]["label"].count(CELL) == 7 * 4
    triple = load_model("triple_yahtzee")
    d = dot_of(triple, "nl", "scoring")
    assert [d.nodes[f"section_{s}"]["label"].count(CELL) for s in ("upper", "lower")] == [6 * 3, 7 * 3]
    heads = re.findall(r"<b>(×\d)</b>", d.nodes["section_upper"]["label"])
    assert heads == ["×1", "×2", "×3"]  # the names say the factor: it is not repeated
    source = Path(triple.path).read_text(encoding="utf-8")
    downward = source.replace('    multiplier: 2\n', '    multiplier: 2\n    order: down\n', 1).replace(
        'name: {en: "×3", de: "×3", nl: "×3"}', 'name: {en: Up, de: Hoch, nl: Omhoog}', 1).replace(
        '    multiplier: 3\n', '    multiplier: 3\n    order: up\n', 1)
    (tmp_path / "t.yaml").write_text(downward, encoding="utf-8")
    label = dot_of(load_model(str(tmp_path / "t.yaml")), "en", "scoring").nodes["section_upper"]["label"]
    assert "<b>×2</b><br/>↓" in label and "<b>Up</b><br/>×3 ↑" in label

# every bundled model, every language ------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(bundled_models()))
def test_every_bundled_model_has_both_diagrams(name):
    m = load_model(name)
    loops = [s for s in m.flow.walk() if s.kind in ("repeat", "each_player")]
    for lang in LANGUAGES:
        flow = Dot(flow_diagram(m, lang).source)
        assert flow.clusters.keys() == {f"cluster_{s.id}" for s in loops}
        counters = {f"counter_{c.id}" for c in m.counters}  # counters are drawn beside the steps
        groups = {"dice_groups"} if m.grouped else set()  # dice that differ: one node naming each group
        assert {f"step_{s.id}" for s in m.flow.walk() if s not in loops} | {"start", "end"} | counters | groups \
            == flow.nodes.keys()
        assert all(tail in flow.nodes and head in flow.nodes for tail, head, _ in flow.edges)
        scoring = Dot(scoring_diagram(m, lang).source)
        assert {f"section_{s.id}" for s in m.sections} <= scoring.nodes.keys()
        assert {f"bonus_{b.id}" for b in m.bonuses} | counters <= scoring.nodes.keys()


def test_a_counter_is_a_cylinder_with_arrows_from_its_effects_and_to_its_readers():
    """Maxi Yatzy's saved rolls: changed by the write, read by the rerolls' while condition;
    the yacht toll: changed by the write, read by the toll bonus on the scoring diagram."""
    m = load_model("maxi_yatzy")
    flow = Dot(flow_diagram(m, "de").source)
    assert flow.nodes["counter_saved_rolls"]["shape"] == "cylinder"
    assert "Gesparte Würfe" in flow.text("counter_saved_rolls") and "je Spieler" in flow.text("counter_saved_rolls")
    arrows = {(tail, head) for tail, head, _ in flow.edges}
    assert ("step_write", "counter_saved_rolls") in arrows and ("counter_saved_rolls", "step_keep") in arrows
    assert "eigener Stand „Gesparte Würfe“ ändert sich" in flow.text("step_write")
    toll = load_model("yacht", {"yacht_toll": "10"})
    scoring = Dot(scoring_diagram(toll, "nl").source)
    arrows = {(tail, head) for tail, head, _ in scoring.edges}
    assert ("step_write", "counter_yachts_against") in arrows and ("counter_yachts_against", "bonus_yacht_toll") in arrows
    assert "counter_yachts_against" not in Dot(scoring_diagram(load_model("yacht"), "nl").source).nodes


# no English in the Dutch and German diagrams ----------------------------------------------------

#: Dutch or German words spelled like English ones (nl "of" = or, "die" = that, "over" = left;
#: de "die" = the, "also" = so), so their appearance is no leak.
SAME_IN_ALL = {"in", "is", "of", "open", "rest", "plus", "over", "die", "also", "bonus", "joker",
               "chance"}  # German names the any-dice box Chance, as English does


def _english_words() -> set[str]:
    """Every word the English diagrams of all bundled models show, plus the English templates' words."""
    words: set[str] = set()
    for name in bundled_models():
        m = load_model(name)
        for what in ("flow", "scoring"):
            words |= dot_of(m, "en", what).words()
    sources = [t for kind in describe.STEP_KINDS.values() for t in kind.templates["en"].values()]
    sources += list(describe.PHRASES["en"].values())
    for source in sources:
        words |= set(re.findall(r"[^\W\d_]+", re.sub(r"\{[{%].*?[%}]\}", " ", source)))
        words |= {w for quoted in re.findall(r"'([^']*)'", source) for w in re.findall(r"[^\W\d_]+", quoted)}
    return {w.lower() for w in words}


def _same_names(model, lang) -> set[str]:
    """Words of the model's names that the model itself gives the same in English and in `lang`."""
    names = [model.name] + [s.name for s in model.sections] + [b.name for b in model.boxes.values()]
    names += [b.name for b in model.bonuses] + [s.name for s in model.flow.walk()] + [c.name for c in model.columns]
    return {w.lower() for n in names if n["en"].lower() == n[lang].lower() for w in re.findall(r"[^\W\d_]+", n[lang])}


@pytest.fixture(scope="module")
def english():
    return _english_words()


@pytest.mark.parametrize("lang", ["nl", "de"])
@pytest.mark.parametrize("what", ["flow", "scoring"])
def test_no_english_word_in_a_dutch_or_german_diagram(english, lang, what):
    for name in bundled_models():
        m = load_model(name)
        shown = {w.lower() for w in dot_of(m, lang, what).words()}
        leaked = sorted(shown & english - SAME_IN_ALL - _same_names(m, lang))
        assert leaked == [], f"{name} {what} {lang}: {leaked}"


def test_the_english_check_catches_a_leak(english):
    # the seed page's failure: English glue inside Dutch
    leak = {w.lower() for w in re.findall(r"[^\W\d_]+", "tot thirteen rounds are played door current player")}
    assert leak & english >= {"rounds", "current", "player"}


# the model drives the diagram -------------------------------------------------------------------

def test_the_diagram_changes_when_the_model_changes(tmp_path, yahtzee):
    m = edited(tmp_path, ("times: 2", "times: 3"), ("name: {en: Reroll, de: Nachwürfeln, nl: Opnieuw gooien}",
                                                    "name: {en: Try again, de: Nochmal, nl: Nog eens}"))
    for lang, before, after in [("en", "↻ Reroll: up to twice", "↻ Try again: up to three times"),
                                ("de", "↻ Nachwürfeln: bis zu zweimal", "↻ Nochmal: bis zu dreimal"),
                                ("nl", "↻ Opnieuw gooien: hooguit twee keer", "↻ Nog eens: hooguit drie keer")]:
        old, new = dot_of(yahtzee, lang), dot_of(m, lang)
        assert old.text("cluster_rerolls").startswith(before)
        assert new.text("cluster_rerolls").startswith(after)
        assert old.source != new.source


def test_a_new_step_appears_in_the_diagram(tmp_path):
    m = edited(tmp_path, ("""        - id: write
          kind: write""", """        - id: last_roll
          kind: roll
          dice: unkept
          name: {en: One more roll, de: Ein letzter Wurf, nl: Nog een worp}
        - id: write
          kind: write"""))
    d = dot_of(m, "en")
    assert d.parent["step_last_roll"] == "cluster_round"
    labels = d.edge_labels()
    assert labels[("step_reroll", "step_last_roll")] == ["no rolls left"]
    assert labels[("step_keep", "step_last_roll")] == ["stop"]
    assert ("step_last_roll", "step_write") in labels


# rendering ---------------------------------------------------------------------------------------

def _boxes(layout: dict) -> tuple[list, list]:
    """(node boxes, label boxes) in points from `dot -Tjson`: nodes, and edge and cluster labels."""
    nodes, labels = [], []
    for obj in layout.get("objects", []):
        if "pos" in obj:
            x, y = map(float, obj["pos"].split(","))
            w, h = float(obj["width"]) * 72, float(obj["height"]) * 72
            nodes.append((obj["name"], x - w / 2, y - h / 2, x + w / 2, y + h / 2))
        elif obj.get("label") and "lp" in obj:  # a cluster
            labels.append(_text_box(obj["name"], obj.get("_ldraw_", [])))
    for edge in layout.get("edges", []):
        if edge.get("label"):
            labels.append(_text_box(f"edge {edge['label']}", edge.get("_ldraw_", [])))
    return nodes, [b for b in labels if b]


def _text_box(name, ops):
    size = next((op["size"] for op in ops if op["op"] == "F"), 11)
    boxes = []
    for op in ops:
        if op["op"] == "T":
            x, y, w = op["pt"][0], op["pt"][1], op["width"]
            left = {"l": x, "c": x - w / 2, "r": x - w}[op["align"]]
            boxes.append((left, y - size * 0.25, left + w, y + size * 0.8))
    if not boxes:
        return None
    return (name, min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _overlap(a, b) -> bool:
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


def _curves(layout: dict) -> list[tuple[str, list[tuple[float, float]]]]:
    """Each edge's label and points along its drawn spline (cubic Bézier segments, sampled)."""
    out = []
    for edge in layout.get("edges", []):
        points = []
        for op in edge.get("_draw_", []):
            if op["op"] != "b":
                continue
            pts = op["points"]
            for i in range(0, len(pts) - 3, 3):
                (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts[i:i + 4]
                for k in range(11):
                    t = k / 10
                    a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
                    points.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
        out.append((f"edge {edge.get('label', '')}", points))
    return out


@pytest.mark.parametrize("name", sorted(bundled_models()))
def test_rendered_labels_do_not_overlap(name):
    require_tool("dot")
    m = load_model(name)
    for lang in LANGUAGES:
        for what in ("flow", "scoring"):
            layout = json.loads(diagram(m, lang, what).pipe(format="json"))
            nodes, labels = _boxes(layout)
            assert nodes and (labels or what == "scoring")
            for i, label in enumerate(labels):
                assert not [n[0] for n in nodes if _overlap(label, n)], (what, lang, label)
                assert not [o[0] for o in labels[i + 1:] if _overlap(label, o)], (what, lang, label)
                for edge, points in _curves(layout):  # no arrow runs through another label
                    if edge != label[0]:
                        assert not any(label[1] <= x <= label[3] and label[2] <= y <= label[4] for x, y in points), (
                            what, lang, label, edge)


def test_cli_draws_a_dutch_svg_with_no_english(tmp_path, cli, english, yahtzee):
    require_tool("dot")
    out = tmp_path / "yahtzee.nl.svg"
    code, stdout, err = cli("diagram", "yahtzee", "--lang", "nl", "-o", str(out))
    assert code == 0 and err == "" and stdout.strip() == f"{out} geschreven"  # the note in Dutch too
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert "Gooi alle vijf dobbelstenen" in texts and "↻ Spel: 13 rondes" in texts
    words = {w.lower() for t in texts for w in re.findall(r"[^\W\d_]+", t)}
    assert words & english - SAME_IN_ALL - _same_names(yahtzee, "nl") == set()


def test_cli_formats_and_default_names(tmp_path, cli, monkeypatch):
    require_tool("dot")
    monkeypatch.chdir(tmp_path)
    assert cli("diagram", "yahtzee", "--lang", "de", "--what", "scoring")[0] == 0
    assert (tmp_path / "yahtzee.scoring.de.svg").read_text(encoding="utf-8").count("<svg") == 1
    assert cli("diagram", "yahtzee", "--lang", "en", "-o", "flow.png")[0] == 0
    assert (tmp_path / "flow.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = cli("diagram", "yahtzee", "--lang", "en", "--format", "dot", "-o", "-")
    assert code == 0 and out.startswith("digraph yahtzee_flow {")


def test_cli_usage_errors(cli, tmp_path):
    for args, message in [
        (("diagram", "yahtzee", "--lang", "fr"), "--lang must be one of en, de, nl"),
        (("diagram", "yahtzee", "-o", str(tmp_path / "x.png"), "--format", "svg"), "does not match --format svg"),
        (("diagram", "yahtzee", "--option", "jokr=free"), "did you mean 'joker'"),
        (("diagram", "yahtze"), "did you mean 'yahtzee'"),
        (("diagram", "yahtzee", "--format", "png", "-o", "-"), "cannot go to standard output"),
        (("diagram", "yahtzee", "-o", str(tmp_path / "no" / "such" / "dir.dot")), "no/such does not exist"),
    ]:
        code, out, err = cli(*args)
        assert code == 2, args
        assert err.count("\n") == 1 and message in err, err


def test_without_dot_the_dot_file_is_written(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("rulebook.tools.commands.diagram.shutil.which", lambda name: None)
    code, out, err = cli("diagram", "yahtzee", "--lang", "nl", "--format", "dot", "-o", str(tmp_path / "a.dot"))
    assert code == 0 and (tmp_path / "a.dot").read_text(encoding="utf-8").startswith("digraph")
    assert err.count("\n") == 1 and "install graphviz" in err
    code, out, err = cli("diagram", "yahtzee", "--lang", "nl", "-o", str(tmp_path / "b.svg"))
    assert code == 2 and not (tmp_path / "b.svg").exists()
    assert (tmp_path / "b.dot").read_text(encoding="utf-8").startswith("digraph")
    assert err.count("\n") == 1 and "install graphviz" in err and "b.dot" in err


def test_diagram_command_is_listed(cli):
    out = subprocess.run([sys.executable, "-m", "rulebook.interpreter", "diagram", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "--what" in out.stdout and "--lang" in out.stdout
