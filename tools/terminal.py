"""The terminal's view of a game, drawn with rich: dice, rolls left, score sheets, events."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..interpreter.actions import Keep, Roll, Stop, Write
from ..interpreter.game import Event
from ..interpreter.state import GameState
from .i18n import translator


class View:
    """Prints a game for people in one language."""

    def __init__(self, lang: str, console: Console | None = None):
        self.lang = lang
        self.t = translator(lang)
        self.console = console or Console(highlight=False)

    def _(self, msg: str, **kw) -> str:
        return self.t.gettext(msg).format(**kw)

    def box_name(self, state: GameState, box: str) -> str:
        return state.model.boxes[box].name[self.lang]

    # events --------------------------------------------------------------------
    def event(self, ev: Event, state: GameState) -> None:
        """One line for a move as it happens (everyone's rolls, keeps and choices are shown)."""
        who = state.players[ev.player]
        a = ev.action
        if isinstance(a, Roll) and len(a.faces) == len(state.dice):
            line = self._("{player} rolls {dice}", player=who, dice=" ".join(map(str, state.dice)))
        elif isinstance(a, Roll):
            line = self._("{player} rolls {faces} → {dice}", player=who, faces=" ".join(map(str, a.faces)),
                          dice=" ".join(map(str, state.dice)))
        elif isinstance(a, Keep):
            line = self._("{player} keeps {dice}", player=who, dice=" ".join(map(str, a.dice)) or "–")
        elif isinstance(a, Stop):
            line = self._("{player} stops rolling", player=who)
        else:
            line = self.t.ngettext("{player} writes {points} point in {box}", "{player} writes {points} points in {box}",
                                   ev.points).format(player=who, points=ev.points, box=self.box_name(state, a.box))
            if ev.bonus:
                line += " " + self._("(+{bonus} bonus)", bonus=ev.bonus)
        self.console.print(line)

    # the board -----------------------------------------------------------------
    def board(self, state: GameState) -> None:
        model = state.model
        rnd = round_of(state)
        head = f"{model.name[self.lang]} — " + self._("round {n} of {total}", n=rnd[0], total=rnd[1])
        head += " — " + self._("turn: {player}", player=state.players[state.player])
        self.console.rule(head)
        self.console.print(self.sheet(state))
        if state.dice:
            dice = Text(self._("Dice:") + " ")
            for i, d in enumerate(state.dice, 1):
                dice.append(f" {d} ", style="bold reverse")
                dice.append(" ")
            dice.append("   " + self._("(positions 1 to {n}, left to right)", n=len(state.dice)), style="dim")
            self.console.print(dice)
        step = state.step()
        if step is not None and step.kind == "keep":
            self.console.print(self._("Rolls left: {n}", n=state.rolls_left()))

    def sheet(self, state: GameState) -> Table:
        model = state.model
        me = state.player
        would = {c.box: c for c in state.write_choices()} if state.step() and state.step().kind == "write" else {}
        if not would and state.dice and len(state.dice) == model.n_dice:
            would = {c.box: c for c in state.scorer.choices(state.dice, state.sheets[me], state.roll_number)}
        table = Table(show_lines=False, header_style="bold")
        table.add_column("#", justify="right", style="dim")
        table.add_column(self._("Box"))
        for name in state.players:
            table.add_column(name, justify="right")
        number = 0
        for section in model.sections:
            table.add_row("", Text(section.name[self.lang], style="bold"), *[""] * len(state.players))
            for box in section.boxes:
                number += 1
                cells = []
                for p in range(len(state.players)):
                    if box in state.sheets[p]:
                        cells.append(str(state.sheets[p][box]))
                    elif p == me and box in would:
                        c = would[box]
                        cells.append(Text(f"({c.points}{'+' + str(c.bonus) if c.bonus else ''})", style="green"))
                    else:
                        cells.append("")
                table.add_row(str(number), self.box_name(state, box), *cells)
            totals = [state.totals(p) for p in range(len(state.players))]
            table.add_row("", Text(self._("Total {section}", section=section.name[self.lang]), style="italic"),
                          *[str(t[section.id]) for t in totals])
            for bonus in model.bonuses:
                if bonus.section == section.id:
                    cells = []
                    for p in range(len(state.players)):
                        cell = str(totals[p][bonus.id])
                        if bonus.progress:
                            value, goal = state.scorer.progress(state.sheets[p])[bonus.id]
                            cell = f"{cell}  ({value}/{goal})"
                        cells.append(cell)
                    table.add_row("", bonus.name[self.lang], *cells)
        table.add_row("", Text(self._("Grand total"), style="bold"),
                      *[Text(str(state.totals(p)["total"]), style="bold") for p in range(len(state.players))])
        return table

    def final(self, state: GameState) -> None:
        self.console.rule(self._("Game over"))
        self.console.print(self.sheet(state))
        for rank, name, total in state.ranking():
            self.console.print(self.t.ngettext("{rank}. {player}: {total} point", "{rank}. {player}: {total} points",
                                               total).format(rank=rank, player=name, total=total))


def round_of(state: GameState) -> tuple[int, int]:
    """(current round, number of rounds) from the repeat around the players' turns."""
    rounds = (1, 1)
    for frame in state.stack:
        if frame.step.kind == "each_player":
            break
        if frame.step.kind == "repeat":
            rounds = (frame.iteration + 1, frame.step.times)
    return rounds
