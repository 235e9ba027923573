"""Optimal solitaire play by backward induction over turn-start states, derived from the model.

A turn-start state is which boxes are filled plus the features of `abstraction.features` (capped
section totals, yes/no box values). For every state, from the fullest sheet back to the empty one,
the expected final score is the expected best write after optimal keeps (`turn.TurnTables`).
Everything is vectorized with numpy over batches of states.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from .abstraction import Feature
from . import induction, tablefile
from .induction import Estimate, Limits  # noqa: F401 (MAX_STATES re-exported)
from ..model.frozen import Model
from .cache import cache_key, cache_path, table_options, warn_stderr
from .space import Space, Table

if TYPE_CHECKING:  # (the engine's state: only the bots' tables take one; a solve does not import it)
    from ..engine.state import GameState


def solve(model: Model, progress: Callable[[int, int], None] | None = None, space: "Space | None" = None,
          limits: Limits = Limits(), checkpoint: tuple[Path, str] | None = None,
          warn: Callable[[str], None] | None = None, estimate: Estimate | None = None) -> Table:
    """Backward induction over every reachable turn-start state (see `induction.run`)."""
    space = space or Space(model)
    values, states, seconds = induction.run(space, limits, progress, checkpoint, warn, estimate)
    return Table(values, space.feats, states, seconds)


def load_cached(model: Model, space: "Space") -> Table:
    """The cached table if every check passes (`tablefile.check`); BadTable saying why otherwise."""
    path = cache_path(model)
    values, head = tablefile.check(path, model.hash, table_options(model), (space.entries,))
    try:
        feats = [Feature(**f) for f in head.features]
    except TypeError:
        raise tablefile.BadTable(f"{path.name} tracks sheet quantities of no known kind") from None
    if feats != space.feats:
        raise tablefile.BadTable(f"{path.name} tracks other sheet quantities than the model needs")
    return Table(values, feats, head.states, head.seconds)


def store(model: Model, table: Table) -> None:
    """Write a solved table and its header into the cache (quietly skipped if the disk refuses)."""
    finite, _ = tablefile.count_finite(table.values)
    head = tablefile.Header(model=model.id, model_hash=model.hash, options=table_options(model),
                            shape=list(table.values.shape), dtype=tablefile.DTYPE.str, states=table.states,
                            finite=finite, digest=tablefile.digest(table.values), seconds=table.seconds,
                            features=[f.__dict__ for f in table.features])
    try:
        tablefile.write(cache_path(model), table.values, head)
    except OSError:
        pass  # no cache, no harm


def load_or_solve(model: Model, progress: Callable[[int, int], None] | None = None,
                  use_cache: bool = True, warn: Callable[[str], None] | None = None,
                  space: "Space | None" = None, limits: Limits = Limits(),
                  estimate: Estimate | None = None) -> Table:
    """The solved table, from the disk cache when it passes its checks; computed and stored otherwise.

    A cache file that fails a check is never used: `warn` gets one line saying why, and the table
    is solved again and the file replaced.
    """
    space = space or Space(model)
    if use_cache and (cache_path(model).exists() or tablefile.header_path(cache_path(model)).exists()):
        try:
            return load_cached(model, space)
        except tablefile.BadTable as bad:
            (warn or warn_stderr)(f"{cache_path(model).parent}/{bad}; solving again")
    checkpoint = (cache_path(model), cache_key(model)) if use_cache else None
    try:
        table = solve(model, progress, space, limits, checkpoint, warn, estimate)
    except OSError as e:  # the cache directory refused the checkpoint: solve in memory
        if not use_cache:
            raise
        (warn or warn_stderr)(f"{cache_path(model).parent}: {e.strerror or e}; solving without the cache")
        return solve(model, progress, space, limits, None, warn, estimate)
    if use_cache:
        store(model, table)
    return table


# the optimal bot ----------------------------------------------------------------------------

_SPACES: dict[str, tuple[Space, Table]] = {}


def solved(model: Model, progress=None) -> tuple[Space, Table]:
    """The Space and Table of a model (cached in memory per model and options)."""
    key = cache_key(model)
    if key not in _SPACES:
        space = Space(model)
        _SPACES[key] = (space, load_or_solve(model, progress, space=space))
    return _SPACES[key]


_SPACE_ONLY: dict[str, tuple[Space, np.ndarray]] = {}


def greedy_space(model: Model) -> Space:
    """The Space of a model for the greedy bot (cached per model and options; NotSolvable if none)."""
    key = cache_key(model)
    if key not in _SPACE_ONLY:
        space = Space(model)
        # the future is worth nothing to the greedy bot: one zero seen at every state (no memory per state;
        # a real array was 2 GiB of address space for a sheet of rows filled four times, beyond the workshop's 1 GiB)
        _SPACE_ONLY[key] = (space, np.broadcast_to(np.zeros(1), ((1 << space.n) * space.F,)))
    return _SPACE_ONLY[key][0]


def greedy_table(state: GameState, roll_number: int | None = None):
    """Points + write bonus of every open box for every roll (the greedy bot's table), via the Space."""
    greedy_space(state.model)
    space, zeros = _SPACE_ONLY[cache_key(state.model)]
    return write_table(space, zeros, state, roll_number)


def write_table(space: Space, V: np.ndarray, state: GameState, roll_number: int | None = None):
    """(open boxes, (B, R) values) for the player's sheet: one gather (writetable.py), not a loop over boxes."""
    from .writetable import encode, gather
    mask, fvals = encode(space, state.sheets[state.player])
    return gather(space, roll_number).table(mask, fvals, V)
