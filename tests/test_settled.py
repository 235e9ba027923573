"""Settled totals (interpreter/solver/settled.py): a state whose tracked total ends alike with a smaller one
(whatever its open units still add) is not solved but copied, and the table is the same bit for bit as when
every state is solved."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

from rulebook.interpreter import load_model
from rulebook.interpreter.model.loader import RULES_DIR, load_source
from rulebook.interpreter.solver import induction, settled
from rulebook.interpreter.solver.space import Space

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]


def _yatzy(boxes: list[str], bonus: str, uses: dict[str, int] | None = None):
    """Yatzy with three dice, these boxes (some used more than once) and this end bonus of the upper section."""
    data = yaml.safe_load((RULES_DIR / "yatzy.yaml").read_text(encoding="utf-8"))
    data["dice"]["count"] = 3
    for section in data["sections"]:
        section["boxes"] = [b for b in section["boxes"] if b["id"] in boxes]
        for b in section["boxes"]:
            b.pop("example", None)
            if uses and b["id"] in uses:
                b["uses"] = uses[b["id"]]
    data["sections"] = [s for s in data["sections"] if s["boxes"]]
    data["bonuses"][0]["points"] = bonus
    data["bonuses"][0].pop("progress", None)
    data["flow"]["times"] = sum((uses or {}).get(b, 1) for b in boxes)
    return load_source(yaml.safe_dump(data, allow_unicode=True), "yatzy_variant.yaml")


def _tables(model):
    """The table solved with settled totals copied, and with every state solved; and how many were copied."""
    space = Space(model)
    values = np.array(induction.run(space, induction.Limits(max_states=2**40))[0])
    copied = sum(int((~settled.split(space, masks, feats, space.index(masks, feats))[0]).sum())
                 for masks, feats in map(space.level, range(space.n)))
    plain = Space(model)
    plain.__dict__["_settled"] = []  # no total settles: every state solved
    return values, np.array(induction.run(plain, induction.Limits(max_states=2**40))[0]), copied


@pytest.mark.parametrize("boxes, bonus, uses", [
    (UPPER + ["chance", "yatzy"], "35 if total(upper) >= 30 else 0", None),
    (UPPER + ["chance"], "total(upper) if total(upper) >= 30 else 0", None),  # nothing below 30: alike too
    (UPPER + ["chance"], "10 if total(upper) >= 12 else (5 if total(upper) >= 25 else 0)", None),  # two steps
    (["fours", "fives", "sixes", "chance", "one_pair"], "35 if total(upper) >= 30 else 0", {"sixes": 2, "fours": 2}),
])
def test_settled_states_have_the_values_a_solve_gives_them(boxes, bonus, uses):
    values, plain, copied = _tables(_yatzy(boxes, bonus, uses))
    assert copied > 0 and np.array_equal(values, plain, equal_nan=True)


def test_totals_alike_for_every_sum_still_to_come_copy_the_smallest():
    space = Space(_yatzy(UPPER + ["chance"], "35 if total(upper) >= 30 else 0"))
    masks, feats = space.level(space.n - 2)  # two boxes open
    idx = space.index(masks, feats)
    _, to, source = settled.split(space, masks, feats, idx)
    copies = dict(zip(to.tolist(), source.tolist()))
    open_ = [~np.asarray(space.full(masks, b)) for b in ("fives", "sixes")]
    sheet = masks[open_[0] & open_[1]][0]  # fives and sixes open: they add 5a + 6b, a and b up to 3 (three dice)
    adds = sorted({5 * a + 6 * b for a in range(4) for b in range(4)})
    totals = {int(t): int(i) for m, t, i in zip(masks, feats[:, 0], idx) if m == sheet}

    def ends(t):
        return tuple(min(t + x, 30) >= 30 for x in adds)
    for t, index in totals.items():
        smallest = min(u for u in totals if ends(u) == ends(t))
        assert copies.get(index, index) == totals[smallest], t
    assert len(set(map(ends, totals))) < len(totals)  # some totals copy another


def test_sources_are_the_same_looked_up_or_flagged(monkeypatch):
    """A copy's source is found by a flag per entry of the layer's sheets, or (sheets with few of their entries
    reachable: `settled.DENSE`) searched for among the layer's states: the same copies either way."""
    space = Space(_yatzy(UPPER + ["chance"], "35 if total(upper) >= 30 else 0"))
    layers = [(m, f, space.index(m, f)) for m, f in map(space.level, range(space.n))]
    flagged = [settled.split(space, *layer) for layer in layers]
    monkeypatch.setattr(settled, "DENSE", 0)
    for layer, arrays in zip(layers, flagged):
        for searched, found in zip(settled.split(space, *layer), arrays):
            assert np.array_equal(searched, found)
    assert sum(len(to) for _, to, _ in flagged) > 0


def test_a_bonus_growing_with_the_total_settles_nothing():
    values, plain, copied = _tables(_yatzy(UPPER + ["chance"], "total(upper)"))  # no two totals end alike
    assert copied == 0 and np.array_equal(values, plain, equal_nan=True)


def test_a_total_a_box_score_reads_is_left_alone():
    data = yaml.safe_load(_yatzy(UPPER + ["chance"], "35 if total(upper) >= 30 else 0").source)
    chance = next(b for s in data["sections"] for b in s["boxes"] if b["id"] == "chance")
    chance["score"] = "sum(dice) + (5 if total(upper) >= 10 else 0)"  # the write reads the total
    model = load_source(yaml.safe_dump(data, allow_unicode=True), "yatzy_variant.yaml")
    assert settled.plan(Space(model)) == []


def test_yahtzee_copies_two_fifths_of_its_states_and_its_table_stays_the_same():
    values, plain, copied = _tables(load_model("yahtzee"))
    assert copied == 221_444 and np.array_equal(values, plain, equal_nan=True)
