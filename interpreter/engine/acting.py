"""Who acts on a roll: the order rules, defined once for the engine, the bots and the readers.

A write step says who takes it (`by:`):
- `active`: the player whose turn it is (every step before dice groups and Qwixx);
- `others`: each other player, in seat order from the one after the active player;
- `all`: every player, the active one first, then in seat order.

With `others` and `all` the players act at once: each decides on the same roll, and the step's
effects (counters, a row locked for all) and the end check come after the last of them, so no
player's choice changes what the next may do on this roll (Qwixx: two players may lock the same
row on one white sum). The engine asks them one after the other in this order; its
`current_player()` (OpenSpiel's) is the one asked now.
"""
from __future__ import annotations

BY = ("active", "others", "all")


def actors(by: str, active: int, players: int) -> tuple[int, ...]:
    """The players who take a step with `by`, in the order they are asked."""
    ring = tuple((active + k) % players for k in range(players))
    if by == "all":
        return ring
    if by == "others":
        return ring[1:]
    return (active,)


def at_once(by: str) -> bool:
    """Whether the players of the step act at once (effects and the end check after the last)."""
    return by != "active"
