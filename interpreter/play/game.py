"""Running a game: seeded dice, players, a JSON Lines log, save files and replays.

Randomness comes only from one seeded `random.Random`, whose state is saved with the game, so a
resumed game continues exactly as an uninterrupted one would, and a log replays to the same sheets.
"""
from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..engine.actions import Action, Roll, Stop, Write, parse_action
from ..model.errors import IllegalActionError, Message, ModelError, Pos, SaveFileError, UsageError, did_you_mean
from ..model.limits import NumberTooLong, hint_for, limits, loads_json, read_untrusted
from ..model.loader import display_name, bundled_models, load_source, model_hash
from ..model.frozen import LANGUAGES, Model
from ..players.registry import BOTS, REACH, is_kind, make_bot, reach_target
from ..engine.state import CHANCE, GameState

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
            raise UsageError("--players has an empty entry: '{spec}'", spec=spec)
        name, sep, kind = part.rpartition(":")
        head, _, last = name.rpartition(":")
        if last.strip().lower() + ":" == REACH:  # NAME:reach:T (or reach:T, named after itself)
            name, kind = head if head.strip() else f"{last.strip()}:{kind.strip()}", f"{REACH}{kind.strip()}"
            reach_target(kind.lower())  # a T out of range: its own line
        elif not sep:
            name, kind = (part, "human") if part not in BOTS | {"human"} else (part, part)
        kind = kind.strip().lower()
        if kind != "human" and not is_kind(kind):
            raise UsageError("unknown player kind '{kind}' in --players",
                             did_you_mean(kind, sorted(BOTS | {"human"})) or
                             Message("choose human, {kinds}", {"kinds": ", ".join(sorted(BOTS) + ["reach:T"])}),
                             kind=kind)
        _check_name(name.strip(), UsageError)
        if not name.strip():
            raise UsageError("a player in --players needs a name: '{part}'", part=part)
        seats.append(Seat(name.strip(), kind))
    return _distinct_names(seats)


MAX_NAME = 40
_UNPRINTABLE_NAME = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _check_name(name: str, cls, pos: Pos | None = None) -> None:
    """A player's name is printed to terminals and pages: short, and without control characters."""
    problem = None
    if len(name) > MAX_NAME:
        problem = Message("a player's name may have at most {limit} characters, not {length}",
                          {"limit": MAX_NAME, "length": len(name)})
    elif _UNPRINTABLE_NAME.search(name):
        problem = Message("a player's name may not contain control characters")
    if problem is not None:
        raise cls(problem) if cls is UsageError else cls(problem, pos)


def _distinct_names(seats: list[Seat]) -> list[Seat]:
    """Players sharing a name are numbered: `cpu:random,cpu:greedy` → 'cpu 1', 'cpu 2'."""
    names = [s.name for s in seats]
    taken = set(names)
    out = []
    for seat in seats:
        if names.count(seat.name) > 1:
            k = 1
            while f"{seat.name} {k}" in taken:
                k += 1
            taken.add(f"{seat.name} {k}")
            seat = Seat(f"{seat.name} {k}", seat.kind)
        out.append(seat)
    return out


@dataclass
class Event:
    """Something that happened, for logs and for the people watching."""

    player: int
    action: Action
    points: int | None = None  # for writes
    bonus: int = 0
    passed: bool = False  # a stop at a write step: the player wrote nothing (an optional write)
    banked: bool = False  # a stop at a bank step: the player banked

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "move": str(self.action)}
        if self.points is not None:
            out["points"] = self.points
            out["bonus"] = self.bonus
        return out


@dataclass
class Game:
    """A model, its seats and a seeded RNG; `advance()` and `apply()` move it one action at a time."""

    model: Model
    seats: list[Seat]
    seed: int
    rng: random.Random = field(init=False)
    state: GameState = field(init=False)
    log_path: Path | None = None
    save_path: Path | None = None
    saved_log: Path | None = None  # the log a save file names (never opened unless named again by the user)
    lang: str | None = None  # the language the people play in, kept in the save so --resume speaks it
    listeners: list[Callable[[Event, GameState], None]] = field(default_factory=list)

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.state = GameState(self.model, [s.name for s in self.seats])
        self.bots = {i: _bot(s.kind, self.model, self.rng) for i, s in enumerate(self.seats) if s.kind != "human"}

    # running ----------------------------------------------------------------
    def roll(self) -> Roll:
        """The pending roll, drawn from the game's RNG."""
        return self.state.sample_chance(self.rng)

    def apply(self, action: Action) -> Event:
        """Apply an action for whoever is due; logs and tells listeners."""
        state = self.state
        player = state.actor  # who decides now (at a step several players take, not only the active one)
        step = state.step()
        bonus_before = sum(state.awards[player].values())
        state.apply(action)
        event = Event(player, action, passed=isinstance(action, Stop) and step is not None and step.kind == "write",
                      banked=isinstance(action, Stop) and step is not None and step.kind == "bank")
        if isinstance(action, Write):
            event.points = state.sheets[player][state.last_cell]
            event.bonus = sum(state.awards[player].values()) - bonus_before
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
        return {"rulebook": FORMAT, "model": self.model.id, "model_path": str(Path(self.model.path).resolve()),
                "model_hash": self.model.hash, "options": self.model.option_values, "seed": self.seed,
                "players": [{"name": s.name, "kind": s.kind} for s in self.seats]}

    def start_log(self, path: Path) -> None:
        """Log to a new file: the header, with the position to start from if the game is under way."""
        header = self.header()
        if self.state.to_json() != GameState(self.model, self.state.players).to_json():
            header["start"] = self.state.to_json()
        try:  # a new file: never through a link (also a dangling one), never over another file
            with _open_new(path, os.O_EXCL) as f:
                f.write(json.dumps(header) + "\n")
        except FileExistsError:
            raise UsageError("{flag} {path} exists already; choose another file (nothing was overwritten)",
                             flag="--log", path=path) from None
        except OSError as exc:
            raise UsageError("cannot write the log {path}: {reason}", path=path, reason=exc.strerror or exc) from None
        self.log_path = path

    def _log(self, record: dict[str, Any]) -> None:
        if self.log_path:
            with _open_new(self.log_path, os.O_APPEND) as f:  # a link put in its place is not followed
                f.write(json.dumps(record) + "\n")
        if self.save_path:
            self.save(self.save_path)

    def save(self, path: Path) -> None:
        data = {**self.header(), "rng": _rng_to_json(self.rng.getstate()), "state": self.state.to_json(),
                "log": str(self.log_path.resolve()) if self.log_path else None}
        if self.lang:
            data["lang"] = self.lang
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with _open_new(tmp, os.O_EXCL) as f:
                f.write(json.dumps(data))
            os.replace(tmp, path)  # never leave a half-written save; a link there is replaced, not followed
        except OSError as exc:
            raise UsageError("cannot write the save file {path}: {reason}", path=path, reason=exc.strerror or exc) from None

    @staticmethod
    def read_header(path: Path) -> tuple[Model, list[Seat]]:
        """The model and players of a save file (SaveFileError if it is damaged or does not fit)."""
        data = _read_save(path)
        where = Pos(str(path), 1, 1)
        return _model_for(data, where), _seats_from(data, where)

    @staticmethod
    def saved_language(path: Path) -> str | None:
        """The language a save file was played in (None if it does not say or cannot be read)."""
        try:
            lang = _read_save(path).get("lang")
        except SaveFileError:
            return None
        return lang if lang in LANGUAGES else None

    @classmethod
    def resume(cls, path: Path) -> "Game":
        """The game saved in `path` (SaveFileError, naming the file, if it is damaged or does not fit)."""
        where = Pos(str(path), 1, 1)
        data = _read_save(path)
        model = _model_for(data, where)
        seats = _seats_from(data, where)
        seed = data.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise SaveFileError("the save file has no seed", where)
        game = cls(model, seats, seed)
        try:
            game.rng.setstate(_rng_from_json(data["rng"]))
        except (KeyError, TypeError, ValueError, OverflowError):
            raise SaveFileError("the saved dice generator is damaged", where) from None
        if "state" not in data:
            raise SaveFileError("no game state in the save file", where)
        try:
            game.state = GameState.from_json(model, data["state"])
        except SaveFileError as exc:
            raise SaveFileError(exc.msg, where, exc.hint_msg) from None
        if game.state.players != [s.name for s in seats]:
            raise SaveFileError("the saved game's players do not match its header", where)
        log = data.get("log")
        if log is not None and not isinstance(log, str):
            raise SaveFileError("the save file's log entry is damaged", where)
        # The save only *names* its log: a resumed game writes to no file but those on the command line
        # (the save itself, and --log), so a save file cannot make rulebook append to ~/.bashrc.
        game.saved_log = Path(log) if log else None
        game.lang = data.get("lang") if data.get("lang") in LANGUAGES else None
        return game

    def continue_log(self, path: Path) -> None:
        """Append to `path`, which the user named on the command line as the saved game's own log."""
        self.log_path = path


def _open_new(path: Path, how: int):
    """A text file opened for writing without following a link at `path`: `os.O_EXCL` makes a new
    file, `os.O_APPEND` goes on with one."""
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | how | (os.O_CREAT if how == os.O_EXCL else 0)
    return os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8")


def _bot(kind: str, model: Model, rng: random.Random):
    try:
        return make_bot(kind, model, rng)
    except ImportError:
        raise UsageError("the '{kind}' computer player is not available", kind=kind) from None


def _rng_to_json(state) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data) -> tuple:
    version, internal, gauss = data
    internal = tuple(int(x) for x in internal)
    if len(internal) != 625 or (gauss is not None and not isinstance(gauss, float)):
        raise ValueError("not a Mersenne Twister state")
    return (int(version), internal, gauss)


def _read_save(path: Path) -> dict:
    data = _read_json(path, "save file")
    if not isinstance(data, dict) or data.get("rulebook") != FORMAT or "state" not in data:
        raise SaveFileError("not a rulebook save file", Pos(str(path), 1, 1))
    return data


# Whole sentences for each kind of file (a placeholder for the kind would not decline in German).
# Reading itself (missing, folder, device, size) is limits.read_untrusted's, with its own sentences.
_TEXTS = {
    "save file": {"json": Message("the save file is not valid JSON"),
                  "digits": Message("the save file holds a number of {digits} digits; numbers may have at most {limit} digits")},
    "log file": {"json": Message("not valid JSON"),  # at its line: the log line is not valid JSON
                 "digits": Message("the log holds a number of {digits} digits; numbers may have at most {limit} digits")},
}


def _read_text(path: Path, what: str) -> str:
    """A save or log file's text: a regular file within the size budget, or SaveFileError saying why not."""
    return read_untrusted(path, what, SaveFileError)


def _json(text: str, path: Path, what: str, line: int = 1):
    """One JSON value with whole numbers bounded; SaveFileError at its line otherwise."""
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise SaveFileError(_TEXTS[what]["json"], Pos(str(path), line + exc.lineno - 1, exc.colno)) from None  # the parser's words are English; the position says where
    except NumberTooLong as exc:
        raise SaveFileError(_TEXTS[what]["digits"], Pos(str(path), line, 1), hint_for("number_digits"),
                            digits=exc.digits, limit=limits().number_digits) from None
    except (ValueError, RecursionError) as exc:
        raise SaveFileError(_TEXTS[what]["json"], Pos(str(path), line, 1)) from None


def _read_json(path: Path, what: str):
    return _json(_read_text(path, what), path, what)


def _model_for(header: dict, where: Pos) -> Model:
    """The model a log or save was made with, with its options; refuse a changed or unnamed model.

    The header names the model by a bundled id (`model`) and by the path it was loaded from
    (`model_path`). Either is used only if its text has the header's `model_hash`: the hash is
    required, and a path is read only if it is a regular file within the size budget.
    """
    name, path, expected = header.get("model"), header.get("model_path"), header.get("model_hash")
    if not isinstance(name, str) or (path is not None and not isinstance(path, str)):
        raise SaveFileError("the header does not name a model", where)
    if not isinstance(expected, str) or not expected:
        raise SaveFileError("the header has no model_hash, so its model cannot be checked", where,
                            "only files written by rulebook play are read")
    options = header.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(v, (str, int, bool)) for v in options.values()):
        raise SaveFileError("the header's options are damaged", where)
    candidates: list[tuple[Path, str]] = []
    if path and not _model_file(Path(path)):  # a log names a model file, never /proc/self/environ
        raise SaveFileError("the header's model_path {path} is not a model file (*.yaml)", where, path=path[:200])
    if path:
        candidates.append((Path(path), path))
    bundled = bundled_models()
    if name in bundled:
        candidates.append((bundled[name], name))
    found = None
    problems = []
    for file, label in candidates:
        try:
            source = read_untrusted(file, "model", ModelError)
        except ModelError as exc:
            problems.append(exc.msg)
            continue
        if model_hash(source) == expected:
            found = (file, source)
        else:
            problems.append(Message("the model {path} has changed since this game was played (hash {old}, now {new})",
                                    {"path": display_name(file), "old": expected[:16], "new": model_hash(source)}))
        break  # the file that is there decides; the bundled model stands in only for a missing file
    if found is None:
        raise SaveFileError(problems[0] if problems else Message("the game's model '{name}' is neither bundled nor found",
                                                                 {"name": name}), where)
    file, source = found
    try:
        return load_source(source, display_name(file),
                           {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()})
    except (UsageError, ModelError) as exc:
        raise SaveFileError("the game's model cannot be loaded: {reason}", where, exc.hint_msg, reason=exc.msg) from None


def _model_file(path: Path) -> bool:
    """Whether a path from a log or save may be read as its model: a *.yaml or *.yml file outside
    the system's own folders (/proc, /sys, /dev), so a log cannot make a reader hash other files."""
    if path.suffix.lower() not in (".yaml", ".yml") or len(str(path)) > 4096:
        return False
    try:
        parts = path.resolve().parts
    except (OSError, RuntimeError, ValueError):
        return False
    return not (len(parts) > 1 and parts[1] in ("proc", "sys", "dev"))


def _seats_from(header: dict, where: Pos) -> list[Seat]:
    try:
        seats = [Seat(str(p["name"]), str(p["kind"])) for p in header["players"]]
    except (KeyError, TypeError):
        raise SaveFileError("the header's players are damaged", where) from None
    if not seats:
        raise SaveFileError("the header lists no players", where)
    for s in seats:
        _check_name(s.name, SaveFileError, where)
        if s.kind != "human" and not is_kind(s.kind):
            raise SaveFileError("unknown player kind '{kind}'", where, kind=s.kind)
    return seats


@dataclass
class Replay:
    """A log re-run: its model, players and the state it ends in."""

    model: Model
    seats: list[Seat]
    seed: int | None
    state: GameState
    moves: int


def replay(path: Path, before: Callable[[GameState, Action, int], None] | None = None,
           start: Callable[[Model, list[Seat]], None] | None = None) -> Replay:
    """Re-run a log; SaveFileError at the line (and column) where it does not fit its model.

    `start(model, seats)` is called once the header is read, `before(state, action, line)` before each
    move is applied (a reader such as a review looks at the position the move was made in)."""
    lines = _read_text(path, "log file").splitlines()
    if not lines:
        raise SaveFileError("the log is empty", Pos(str(path), 1, 1))

    def record(n: int):
        return _json(lines[n - 1], path, "log file", n)

    at = Pos(str(path), 1, 1)
    header = record(1)
    if isinstance(header, dict) and "rng" in header and "state" in header:
        raise SaveFileError("this is a save file, not a log", at, "continue it with rulebook play --resume")
    if not isinstance(header, dict) or header.get("rulebook") != FORMAT:
        raise SaveFileError("not a rulebook log (the first line must be its header)", at)
    model = _model_for(header, at)
    seats = _seats_from(header, at)
    try:
        state = GameState(model, [s.name for s in seats])
        if "start" in header:
            state = GameState.from_json(model, header["start"])
    except (SaveFileError, IllegalActionError) as exc:
        raise SaveFileError(exc.msg, at, exc.hint_msg) from None
    if state.players != [s.name for s in seats]:
        raise SaveFileError("the header's start position has other players", at)
    if start is not None:
        start(model, seats)
    moves = 0
    for n in range(2, len(lines) + 1):
        if not lines[n - 1].strip():
            continue
        at = Pos(str(path), n, 1)
        rec = record(n)
        if not isinstance(rec, dict) or not isinstance(rec.get("move"), str):
            raise SaveFileError("a log line is an object with a 'move'", at)
        if state.is_terminal():
            raise SaveFileError("the game was already over", at)
        player = state.actor  # the player who decides (at a step several players take, the one asked)
        if rec.get("player") != player:
            raise SaveFileError("it is {name}'s move (player {player}), not player {other}'s", at,
                                name=state.players[player], player=player, other=rec.get("player"))
        try:
            action = parse_action(rec["move"])
            if before is not None and state.current_player() != CHANCE and action in state.legal_actions():
                before(state, action, n)
            state.apply(action)
        except IllegalActionError as exc:
            raise SaveFileError(exc.msg, at, exc.hint_msg) from None
        if isinstance(action, Write) and "points" in rec and state.sheets[player][state.last_cell] != rec["points"]:
            raise SaveFileError("the log says {points} points in {box}, the model gives {model_points}", at,
                                points=rec["points"], box=action.box, model_points=state.sheets[player][state.last_cell])
        moves += 1
    seed = header.get("seed")
    return Replay(model, seats, seed if isinstance(seed, int) and not isinstance(seed, bool) else None, state, moves)
