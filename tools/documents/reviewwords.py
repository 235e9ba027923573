"""The words of a game's review (`rulebook review`, the web app's review at the end of a game): a choice
as a player reads it, each player's total loss and their biggest mistakes, whole sentences per language."""
from __future__ import annotations

from ...interpreter.engine.actions import Announce, Keep, Stop, Write
from ..i18n import number, translator
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


def explanation(lang: str) -> str:
    return translator(lang).gettext(
        "The expected score is the expected final score after the choice, with every later decision made "
        "optimally; the cost is what the better choice would have added to it.")


def mistake_text(review, d, lang: str) -> str:
    """One mistake as a sentence: 'Round 2, dice 2 6 6 6 6: Big straight instead of Four of a kind cost 25.97 points.'"""
    _ = translator(lang).gettext
    model = review.model
    return _("Round {round}, dice {dice}: {made} instead of {best} cost {cost} points.").format(
        round=d.round, dice=" ".join(map(str, d.dice)), made=choice_text(model, d.made, lang),
        best=choice_text(model, d.best, lang), cost=number(d.loss, lang, 2))


def player_summary(review, p: int, lang: str) -> tuple[str, str | None]:
    """A player's total loss as a sentence, and the heading of their biggest mistakes (None: there are none)."""
    t = translator(lang)
    name = review.seats[p].name
    mine = review.of(p)
    loss = review.total_loss(p)
    n = number(len(mine), lang)
    if loss <= SHOWN:
        return t.ngettext("{player} made {n} decision and lost nothing: every choice was as good as the best.",
                          "{player} made {n} decisions and lost nothing: every choice was as good as the best.",
                          len(mine)).format(player=name, n=n), None
    total = t.ngettext("{player} made {n} decision and lost {loss} points of expected score in all.",
                       "{player} made {n} decisions and lost {loss} points of expected score in all.",
                       len(mine)).format(player=name, n=n, loss=number(loss, lang, 2))
    worst = review.mistakes(p)
    heading = t.ngettext("The biggest mistake of {player}:", "The {n} biggest mistakes of {player}:",
                         len(worst)).format(player=name, n=number(len(worst), lang))
    return total, heading
