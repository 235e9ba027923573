"""The sentences of a rule page that carry numbers or game words (`Words`), in one language and
format, through the gettext catalogs; and the dice drawn with pips for inline use (`die_svg`)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from ..i18n import translator

QUOTES = {"en": "“%s”", "de": "„%s“", "nl": "‘%s’"}

# where the pips of faces 1 to 9 sit on a 3×3 grid (columns, rows 0..2)
_PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
         5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
         7: [(0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2)],
         8: [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)],
         9: [(c, r) for r in range(3) for c in range(3)]}


@lru_cache(maxsize=None)
def die_svg(face: int) -> Markup:
    """One die drawn with its pips (faces above 9 as a number), for inline use in a page."""
    if face in _PIPS:
        inner = "".join(f'<circle cx="{5 + 7 * c}" cy="{5 + 7 * r}" r="1.9"/>' for c, r in _PIPS[face])
    else:
        inner = f'<text x="12" y="16" text-anchor="middle" font-size="11" font-family="sans-serif">{face}</text>'
    return Markup(f'<svg class="die" viewBox="-1 -1 26 26" width="1.4em" height="1.4em" aria-hidden="true">'
                  f'<rect x="0" y="0" width="24" height="24" rx="5" fill="#fff" stroke="#334155" stroke-width="1.5"/>'
                  f'<g fill="#111827">{inner}</g></svg>')


def _dice_html(dice: tuple[int, ...]) -> Markup:
    """The dice drawn with pips; the faces stay as text for screen readers, search and copying."""
    label = " ".join(map(str, dice))
    inner = Markup("").join(die_svg(d) for d in dice)
    return Markup('<span class="dice" role="img" aria-label="%s">%s</span>') % (label, inner)


def _dice_text(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, dice))


class Words:
    """The sentences of a page that carry numbers or game words, in one language and format.

    Each is one gettext message with named placeholders, so a translation can put the words in the
    order its language wants (German verb-final clauses, Dutch inversion) and ngettext picks the
    plural form. Counts up to twelve are words ("five dice"), larger ones numerals (60 boxes); points stay digits.
    """

    def __init__(self, lang: str, fmt: str):
        from .numbers import count_text
        self.lang, self.fmt = lang, fmt
        self.t = translator(lang)
        self._count_text = count_text

    def _(self, message: str, **values: Any) -> Markup | str:
        return self._fill(self.t.gettext(message), values)

    def n_(self, singular: str, plural: str, n: int, **values: Any) -> Markup | str:
        return self._fill(self.t.ngettext(singular, plural, n), values)

    def _fill(self, template: str, values: dict) -> Markup | str:
        if self.fmt == "html":
            return Markup(escape(template)) % values  # values are escaped unless they are Markup
        return template % values

    def number(self, n: int) -> str:
        return self._count_text(n, self.lang)

    def quote(self, text: str) -> str:
        """A name in the language's quotation marks (German „…“, Dutch ‘…’)."""
        return QUOTES[self.lang] % text

    def dice(self, dice: tuple[int, ...]) -> Markup | str:
        return _dice_html(dice) if self.fmt == "html" else _dice_text(dice)

    def example(self, dice, box_name: str, points: int) -> Markup | str:
        # a no-break space keeps the points and their unit on one line
        return self.n_("%(dice)s in %(box)s scores %(num)d\u00a0point.", "%(dice)s in %(box)s scores %(num)d\u00a0points.",
                       points, dice=self.dice(dice), box=box_name, num=points)

    def example_after(self, dice, box_name: str, points: int, other: str, value: int) -> Markup | str:
        """An example that needs another box filled first (a score that looks at the sheet)."""
        return self.n_("%(dice)s in %(box)s scores %(num)d\u00a0point once %(other)s holds %(value)d.",
                       "%(dice)s in %(box)s scores %(num)d\u00a0points once %(other)s holds %(value)d.",
                       points, dice=self.dice(dice), box=box_name, num=points, other=other, value=value)

    def first_roll(self, points: int) -> Markup | str:
        """What the same example scores on the first roll of a turn, when that differs."""
        return self.n_("On the first roll of a turn: %(num)d\u00a0point.",
                       "On the first roll of a turn: %(num)d\u00a0points.", points, num=points)

    def players(self, lo: int, hi: int) -> Markup | str:
        if lo == hi:
            return self.n_("%(num)d player", "%(num)d players", lo, num=lo)
        return self.n_("%(min)d to %(num)d player", "%(min)d to %(num)d players", hi, min=lo, num=hi)

    def dice_needed(self, n: int, faces: int) -> Markup | str:
        return self.n_("%(count)s die with the faces 1 to %(faces)d", "%(count)s dice with the faces 1 to %(faces)d",
                       n, count=self.number(n), faces=faces)

    def group_needed(self, n: int, name: str, faces: int) -> Markup | str:
        """One group of dice that differ: how many, its name (“White dice”) and faces."""
        return self.n_("%(count)s × %(name)s, with the faces 1 to %(faces)d", "%(count)s × %(name)s, with the faces 1 to %(faces)d",
                       n, count=n, name=name, faces=faces)  # a digit before ×, as on a box of dice

    def sheet_needed(self, boxes: int) -> Markup | str:
        return self.n_("a score sheet for each player, with %(count)s box",
                       "a score sheet for each player, with %(count)s boxes", boxes, count=self.number(boxes))

    def rounds(self, n: int) -> Markup | str:
        return self.n_("%(count)s round", "%(count)s rounds", n, count=self.number(n))

    def rolls_per_turn(self, n: int | None, counters: list[str] = ()) -> Markup | str:
        """How many rolls a turn has: up to n; up to n in the first turn, and more later when a counter
        (saved rolls) allows it; or no fixed number (None)."""
        if n is None:
            return self._("no fixed number of rolls per turn")
        if counters:
            return self.n_("up to %(count)s roll in the first turn; later turns may have more (%(counters)s)",
                           "up to %(count)s rolls in the first turn; later turns may have more (%(counters)s)",
                           n, count=self.number(n), counters=", ".join(counters))
        return self.n_("up to %(count)s roll per turn", "up to %(count)s rolls per turn", n, count=self.number(n))

    def setup(self, lo: int, hi: int, sheet: bool = True) -> Markup | str:
        """Before the first turn: sheets (or paper for a game scored without boxes), who starts and which
        way play goes (the engine's seat order)."""
        if hi == 1:
            return self._("You play alone: take a score sheet and a pen, and begin.") if sheet else \
                self._("You play alone: take paper for your score and a pen, and begin.")
        if not sheet:
            return self._("Write every player's name on the paper for the scores. Agree who starts; play then passes "
                          "to the left (clockwise), one turn for each player.")
        return self._("Every player takes a score sheet, or a column of a shared one, and writes their name on it. "
                      "Agree who starts; play then passes to the left (clockwise), one turn for each player.")

    def ties(self, tie_breaks: bool) -> Markup | str:
        """What happens on equal scores: the ranking's tie-breaks first, then a shared place (`GameState.ranking`)."""
        if tie_breaks:
            return self._("If that is equal too, the players share the place.")
        return self._("Players with equal scores share the place.")

    def playing_time(self, minutes: int, players: int) -> Markup | str:
        if players == 1:
            return self._("about %(minutes)d minutes alone", minutes=minutes)
        return self.n_("about %(minutes)d minutes with %(num)d player", "about %(minutes)d minutes with %(num)d players",
                       players, minutes=minutes, num=players)
