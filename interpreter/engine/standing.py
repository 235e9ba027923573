"""A game's standing: each player's totals, final score with tie-breaks, counters as expressions read them, and the ranking."""
from __future__ import annotations


class Standing:
    """GameState's scores and ranking (read from the sheets, awards and counters)."""

    __slots__ = ()

    def final_scores(self) -> list[tuple[int, ...]]:
        """Each player's (final score, tie-breaks…), as they are ranked."""
        return [self.scorer.final_score(self.sheets[p], self.awards[p], self.counters_of(p))
                for p in range(len(self.players))]

    def counters_of(self, player: int) -> dict[str, int] | None:
        """The counters as the player's expressions read them: their own and the game's (None: the
        model has no counters)."""
        if not self.model.counters:
            return None
        return {**self.game_counters, **self.counter_values[player]}

    def totals(self, player: int) -> dict[str, int]:
        """The player's totals: each section's, the bonuses and the grand total."""
        return self.scorer.totals(self.sheets[player], self.awards[player], self.counters_of(player))

    def ranking(self) -> list[tuple[int, str, int]]:
        """(rank, player, final score), best first; equal keys share a rank (a tie). The ranking alone
        decides: players for whom the model's `winner.ahead_if` holds come first, then the final score
        and tie-breaks; who ended the game has no say."""
        keys = self.final_scores()
        sign = 1 if self.model.winner == "lowest_total" else -1
        ahead = self.model.ahead_if
        first = [False] * len(self.players)
        if ahead is not None:
            from ..model.dsl.compiler import Context
            first = [bool(ahead(Context(sheet=self.scorer.view(self.sheets[p]), counters=self.counters_of(p))))
                     for p in range(len(self.players))]
        full = [(not first[p], [sign * k for k in keys[p]]) for p in range(len(self.players))]
        order = sorted(range(len(self.players)), key=lambda p: (full[p], p))
        out, rank = [], 0
        for i, p in enumerate(order):
            if i == 0 or full[p] != full[order[i - 1]]:
                rank = i + 1
            out.append((rank, self.players[p], keys[p][0]))
        return out
