"""Running a game: seeded dice, players, a JSON Lines log, save files and replays.

Randomness comes only from one seeded `random.Random`, whose state is saved with the game, so a
resumed game continues exactly as an uninterrupted one would, and a log replays to the same sheets.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from .actions import Action, Roll, Stop, Keep, Write, parse_action
from .errors import IllegalActionError, SaveFileError, UsageError, did_you_mean
from .loader import load_model
from .model import Model
from .players import BOTS, make_bot
from .state import CHANCE, GameState

FORMAT = 1


@dataclass(frozen=True)
class Seat:
    name: str
    kind: str  # 'human' or a bot name


def parse_players(spec: str) -> list[Seat]:
    """`"Ann:human,Bob:human,cpu:greedy"` → seats; a bare kind is named after itself."""
    seats = []
    for part in [p.strip() for p in spec.split(",")]:
        if not part:
            raise UsageError(f"--players has an empty entry: '{spec}'")
        name, sep, kind = part.rpartition(":")
        if not sep:
            name, kind = (part, "human") if part not in BOTS | {"human"} else (part, part)
        kind = kind.strip().lower()
        if kind not in BOTS | {"human"}:
            raise UsageError(f"unknown player kind '{kind}' in --players",
                             did_you_mean(kind, sorted(BOTS | {"human"})) or "kinds: human, random, greedy, optimal")
        if not name.strip():
            raise UsageError(f"a player in --players needs a name: '{part}'")
        seats.append(Seat(name.strip(), kind))
    names = [s.name for s in seats]
    for n in names:
        if names.count(n) > 1:
            raise UsageError(f"two players are called '{n}'; give each a different name")
    return seats


@dataclass
class Event:
    """Something that happened, for logs and for the people watching."""

    player: int
    action: Action
    points: int | None = None  # for writes
    bonus: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "move": str(self.action)}
        if self.points is not None:
            out["points"] = self.points
            out["bonus"] = self.bonus
        return out


@dataclass
class Game:
    """A model, its seats and a seeded RNG; `step()` advances one action at a time."""

    model: Model
    seats: list[Seat]
    seed: int
    rng: random.Random = field(init=False)
    state: GameState = field(init=False)
    log_path: Path | None = None
    save_path: Path | None = None
    listeners: list[Callable[[Event, GameState], None]] = field(default_factory=list)

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.state = GameState(self.model, [s.name for s in self.seats])
        self.bots = {i: make_bot(s.kind, self.model, self.rng) for i, s in enumerate(self.seats) if s.kind != "human"}

    # running ----------------------------------------------------------------
    def roll(self) -> Roll:
        m = self.state.dice_to_roll()
        return Roll(tuple(sorted(self.rng.randint(1, self.model.faces) for _ in range(m))))

    def waiting_for_human(self) -> bool:
        p = self.state.current_player()
        return p >= 0 and p not in self.bots

    def apply(self, action: Action) -> Event:
        """Apply an action for whoever is due; logs and tells listeners."""
        state = self.state
        player = state.player
        before = (dict(state.awards[player]), state.step().kind)
        state.apply(action)
        event = Event(player, action)
        if isinstance(action, Write):
            event.points = state.sheets[player][action.box]
            event.bonus = sum(state.awards[player].values()) - sum(before[0].values())
        self._log(event.to_json())
        for listen in self.listeners:
            listen(event, state)
        return event

    def advance(self) -> Event | None:
        """Do the next chance or bot move; None when a human must move or the game is over."""
        p = self.state.current_player()
        if p == CHANCE:
            return self.apply(self.roll())
        if p in self.bots:
            return self.apply(self.bots[p].choose(self.state))
        return None

    def run_bots(self) -> Iterator[Event]:
        while True:
            ev = self.advance()
            if ev is None:
                return
            yield ev

    # logs and saves -----------------------------------------------------------
    def header(self) -> dict[str, Any]:
        return {"rulebook": FORMAT, "model": self.model.id, "model_path": self.model.path,
                "model_hash": self.model.hash, "options": self.model.option_values, "seed": self.seed,
                "players": [{"name": s.name, "kind": s.kind} for s in self.seats]}

    def start_log(self, path: Path, append: bool = False) -> None:
        self.log_path = path
        if not append:
            path.write_text(json.dumps(self.header()) + "\n", encoding="utf-8")

    def _log(self, record: dict[str, Any]) -> None:
        if self.log_path:
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
        if self.save_path:
            self.save(self.save_path)

    def save(self, path: Path) -> None:
        data = {**self.header(), "rng": _rng_to_json(self.rng.getstate()), "state": self.state.to_json(),
                "log": str(self.log_path) if self.log_path else None}
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)  # never leave a half-written save

    @classmethod
    def resume(cls, path: Path) -> "Game":
        data = _read_json(path)
        model = _model_for(data, str(path))
        seats = _seats_from(data, str(path))
        game = cls(model, seats, int(data.get("seed", 0)))
        try:
            game.rng.setstate(_rng_from_json(data["rng"]))
        except (KeyError, TypeError, ValueError):
            raise SaveFileError(f"{path}: the saved dice generator is damaged") from None
        try:
            game.state = GameState.from_json(model, data["state"])
        except KeyError:
            raise SaveFileError(f"{path}: no game state in the save file") from None
        except SaveFileError as exc:
            raise SaveFileError(f"{path}: {exc.message}") from None
        if data.get("log"):
            game.log_path = Path(data["log"])
        return game


def _rng_to_json(state) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data) -> tuple:
    version, internal, gauss = data
    return (int(version), tuple(int(x) for x in internal), gauss)


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SaveFileError(f"{path}: no such save file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SaveFileError(f"{path}: cannot read the save file ({exc.__class__.__name__})") from None
    except json.JSONDecodeError as exc:
        raise SaveFileError(f"{path}:{exc.lineno}:{exc.colno}: the save file is not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("rulebook") != FORMAT:
        raise SaveFileError(f"{path}: not a rulebook save file")
    return data


def _model_for(header: dict, where: str) -> Model:
    """The model a log or save was made with, with its options; refuse a changed model."""
    name = header.get("model_path") or header.get("model")
    if not isinstance(name, str):
        raise SaveFileError(f"{where}: the header does not name a model")
    options = header.get("options") or {}
    if not isinstance(options, dict):
        raise SaveFileError(f"{where}: the header's options are damaged")
    try:
        model = load_model(name if Path(name).exists() else str(header.get("model")),
                           {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()})
    except UsageError as exc:
        raise SaveFileError(f"{where}: {exc.message}") from None
    if header.get("model_hash") not in (None, model.hash):
        raise SaveFileError(f"{where}: the model {model.path} has changed since this game was played "
                            f"(hash {header.get('model_hash')} ≠ {model.hash})")
    return model


def _seats_from(header: dict, where: str) -> list[Seat]:
    try:
        seats = [Seat(str(p["name"]), str(p["kind"])) for p in header["players"]]
    except (KeyError, TypeError):
        raise SaveFileError(f"{where}: the header's players are damaged") from None
    for s in seats:
        if s.kind not in BOTS | {"human"}:
            raise SaveFileError(f"{where}: unknown player kind '{s.kind}'")
    return seats


def replay(path: Path) -> GameState:
    """Re-run a log; SaveFileError naming the line if it does not fit its model."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise SaveFileError(f"{path}: no such log file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SaveFileError(f"{path}: cannot read the log ({exc.__class__.__name__})") from None
    if not lines:
        raise SaveFileError(f"{path}:1: the log is empty")
    records = []
    for n, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SaveFileError(f"{path}:{n}:{exc.colno}: not valid JSON ({exc.msg})") from None
    header = records[0]
    if not isinstance(header, dict) or header.get("rulebook") != FORMAT:
        raise SaveFileError(f"{path}:1: not a rulebook log (the first line must be its header)")
    model = _model_for(header, f"{path}:1")
    seats = _seats_from(header, f"{path}:1")
    state = GameState(model, [s.name for s in seats])
    for n, rec in enumerate(records[1:], 2):
        if not isinstance(rec, dict) or "move" not in rec:
            raise SaveFileError(f"{path}:{n}: a log line needs a 'move'")
        if state.is_terminal():
            raise SaveFileError(f"{path}:{n}: the game was already over")
        if rec.get("player") != state.player:
            raise SaveFileError(f"{path}:{n}: it is {state.players[state.player]}'s move, not player {rec.get('player')}'s")
        try:
            state.apply(parse_action(str(rec["move"])))
        except IllegalActionError as exc:
            raise SaveFileError(f"{path}:{n}: {exc.message}") from None
        if "points" in rec and isinstance(state.step, object):
            box = str(rec["move"]).split()[-1]
            if state.sheets[rec["player"]].get(box) != rec["points"]:
                raise SaveFileError(f"{path}:{n}: the log says {rec['points']} points in {box}, "
                                    f"the model gives {state.sheets[rec['player']].get(box)}")
    return state
