"""The words of a game's review (`rulebook review`, the web app's review at the end of a game): a choice
as a player reads it, each player's total loss and their biggest mistakes, whole sentences per language."""
from __future__ import annotations

from ...interpreter.engine.actions import Announce, Keep, Stop, Write
from ..i18n import number, percent, translator
from ..terminal.names import target_name

SHOWN = 0.005  # a loss that rounds to 0.00 is shown as none


def choice_text(model, action, lang: str) -> str:
    """A choice as a player reads it: 'keep 3 4 5', 'stop', the box's name, 'announce Ones'."""
    _ = translator(lang).gettext
    if isinstance(action, Write):
        return target_name(model, action.box, lang)
    if isinstance(action, Stop):
        return _("stop")
    if isinstance(action, Announce):
        return _("announce {box}").format(box=target_name(model, action.box, lang)) if action.box else _("announce nothing")
    if isinstance(action, Keep) and not action.dice:
        return _("roll all dice again")
    if isinstance(action, Keep):
        return _("keep {dice}").format(dice=" ".join(map(str, action.dice)) or "–")
    return str(action)


def explanation(lang: str, chance: bool = False) -> str:
    _ = translator(lang).gettext
    text = _("The expected score is the expected final score after the choice, with every later decision made "
             "optimally; the cost is what the better choice would have added to it.")
    if chance:
        text += " " + _("A computer player that plays to win is rated by its chance to win after each choice "
                        "instead, and its cost is in percentage points of that chance.")
    return text


def value_text(d, lang: str) -> str:
    """A decision's value after the choice made: expected points, or the chance to win as a percentage."""
    return percent(d.made_value, lang) if d.unit == "chance" else number(d.made_value, lang, 2)


def cost_text(loss: float, unit: str, lang: str) -> str:
    """A loss in the decision's unit: points, or percentage points of the chance to win."""
    return number(loss * 100 if unit == "chance" else loss, lang, 2)


def mistake_text(review, d, lang: str) -> str:
    """One mistake as a sentence: 'Round 2, dice 2 6 6 6 6: Sixes instead of Chance cost 25.97 points.'"""
    _ = translator(lang).gettext
    model = review.model
    sentence = (_("Round {round}, dice {dice}: {made} instead of {best} cost {cost} percentage points of the "
                  "chance to win.") if d.unit == "chance" else
                _("Round {round}, dice {dice}: {made} instead of {best} cost {cost} points."))
    return sentence.format(round=d.round, dice=" ".join(map(str, d.dice)), made=choice_text(model, d.made, lang),
                           best=choice_text(model, d.best, lang), cost=cost_text(d.loss, d.unit, lang))


def player_summary(review, p: int, lang: str) -> tuple[str, str | None]:
    """A player's total loss as a sentence, and the heading of their biggest mistakes (None: there are none)."""
    t = translator(lang)
    name = review.seats[p].name
    mine = review.of(p)
    loss = review.total_loss(p)
    n = number(len(mine), lang)
    chance = review.unit_of(p) == "chance"
    if loss <= (SHOWN / 100 if chance else SHOWN):
        return t.ngettext("{player} made {n} decision and lost nothing: every choice was as good as the best.",
                          "{player} made {n} decisions and lost nothing: every choice was as good as the best.",
                          len(mine)).format(player=name, n=n), None
    if chance:
        total = t.ngettext("{player} made {n} decision and lost {loss} percentage points of the chance to win in all.",
                           "{player} made {n} decisions and lost {loss} percentage points of the chance to win in all.",
                           len(mine)).format(player=name, n=n, loss=number(100 * loss, lang, 2))
    else:
        total = t.ngettext("{player} made {n} decision and lost {loss} points of expected score in all.",
                           "{player} made {n} decisions and lost {loss} points of expected score in all.",
                           len(mine)).format(player=name, n=n, loss=number(loss, lang, 2))
    worst = review.mistakes(p)
    heading = t.ngettext("The biggest mistake of {player}:", "The {n} biggest mistakes of {player}:",
                         len(worst)).format(player=name, n=number(len(worst), lang))
    return total, heading
