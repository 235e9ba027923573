"""Play a game in the terminal: humans, random, greedy and optimal computer players."""
from __future__ import annotations

import random
import sys
from pathlib import Path

from ...interpreter.model.errors import IllegalActionError, Pos, SaveFileError, UsageError
from ...interpreter.play.game import Game, parse_players
from ...interpreter.model.loader import default_model, load_model
from .options import add_option_argument, parse_options
from ..i18n import pick_language
from ..terminal.moves import parse_move
from ..terminal.view import View

DEFAULT_PLAYERS = "Player:human,Computer:optimal"


PLAY_SOLVE_SECONDS = 30.0  # play's default computer does not keep a player waiting longer than this for its table


def default_players(model, lang: str = "en", say=None) -> str:
    """You against the optimal computer player, named in the player's language; the greedy one where
    the model cannot be solved, or where its table is not cached and the solve would take longer than
    PLAY_SOLVE_SECONDS or pass the solver's limits (`say` gets one line saying why, with the numbers)."""
    from ..i18n import translator
    _ = translator(lang).gettext
    why = optimal_out_of_reach(model)
    if why and say is not None:
        say(why.render(_, lang))
    player, computer = _("Player"), _("Computer")
    return f"{player}:human,{computer}:{'greedy' if why is not None else 'optimal'}"


def optimal_out_of_reach(model):
    """None if the optimal player can play at once (its table cached, or solved within
    PLAY_SOLVE_SECONDS and the solver's limits); else why not: '' where the solver cannot read the
    model (the greedy player, as always, without a word), else a Message with the solve's numbers."""
    from ...interpreter.model.errors import Message, Number
    from ...interpreter.solver import induction
    from ...interpreter.solver.abstraction import NotSolvable
    from ...interpreter.solver.solve import load_cached
    from ...interpreter.solver.space import Space
    from ...interpreter.solver.tablefile import BadTable
    try:
        space = Space(model)
    except NotSolvable:
        return ""
    try:
        load_cached(model, space)
        return None
    except BadTable:
        pass
    limits = induction.Limits()
    try:
        est = induction.estimate(space, limits, on_disk=True)
    except NotSolvable:
        return ""
    try:
        induction.refuse_beyond(space, est, limits)
    except NotSolvable:
        pass  # past the solver's limits: the greedy player, with the numbers
    else:
        if est.seconds <= PLAY_SOLVE_SECONDS:
            return None
    return Message("The computer plays greedy (the best points of each turn): the optimal player would first have to "
                   "study the game, {states} states, about {time} and {memory} of memory. Solve the model once with "
                   "'rulebook solve' (and the same options) to play against the optimal player.",
                   {"states": Number(est.states), "time": induction.duration_message(est.seconds),
                    "memory": induction.size_message(est.memory_bytes)})


def add_arguments(p) -> None:
    p.add_argument("model", nargs="?", default=None, metavar="MODEL",
                   help="a model file or bundled name (default: the first in rules/index.txt)")
    p.add_argument("--players", default=None, help=f'NAME:KIND with KIND human, random, greedy, strong, optimal, win (plays to win) or reach:T (plays to score at least T), e.g. '
                   f'"Ann:human,Bob:human,cpu:strong" (default "{DEFAULT_PLAYERS}")')
    p.add_argument("--seed", type=int, default=None, help="seed for the dice (default: random)")
    p.add_argument("--lang", default=None, help="en, de or nl (default: from the locale)")
    p.add_argument("--log", type=Path, default=None, help="write every roll and move to this JSON Lines file")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--save", type=Path, default=None, help="keep the position in this file after every move")
    group.add_argument("--resume", type=Path, default=None, help="continue a game saved with --save")
    add_option_argument(p)


def run(args) -> int:
    from .. import i18n
    explicit = args.lang or i18n.chosen
    saved = Game.saved_language(args.resume) if args.resume and not explicit else None
    lang = saved or pick_language(args.lang)  # a resumed game goes on in the language it was played in
    i18n.chosen = lang  # errors, too
    view = View(lang)
    if args.resume:
        if args.model or args.players is not None or args.option or args.seed is not None:
            raise UsageError("--resume continues a saved game as it was; leave out MODEL, --players, --option and --seed")
        model, seats = Game.read_header(args.resume)
        game = Game.resume(args.resume)
        own_log = args.log is not None and game.saved_log is not None and args.log.is_file() \
            and args.log.resolve() == game.saved_log.resolve()
        if not own_log:
            _refuse_overwrite(args.log, "--log")
        _study(model, seats, view)
        game.save_path = args.resume
        game.lang = lang
        if own_log:
            game.continue_log(args.log)  # the user named the save's own log: it goes on
        elif args.log:
            game.start_log(args.log)
        elif game.saved_log is not None:
            view.console.print(view._("The game's log {path} is not continued; add --log {path} to continue it.",
                                      path=game.saved_log), markup=False, highlight=False)
    else:
        model = load_model(args.model or default_model(), parse_options(args.option))
        def say(line: str) -> None:
            view.console.print(line, markup=False, highlight=False)
        seats = parse_players(args.players if args.players is not None else default_players(model, lang, say))
        if not model.min_players <= len(seats) <= model.max_players:
            raise UsageError("{game} is for {least} to {most} players, not {count}", game=model.name,
                             least=model.min_players, most=model.max_players, count=len(seats))
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
        _refuse_overwrite(args.log, "--log")
        _refuse_overwrite(args.save, "--save", resumable=True)
        _study(model, seats, view)
        game = Game(model, seats, seed)
        game.lang = lang
        if args.log:
            game.start_log(args.log)
        if args.save:
            game.save_path = args.save
            game.save(args.save)
    game.listeners.append(view.event)
    interactive = sys.stdin.isatty()
    if interactive:  # the computers' moves wait for Enter rather than scroll out of the terminal
        import shutil
        view.page(shutil.get_terminal_size().lines, {i for i, s in enumerate(game.seats) if s.kind != "human"})
    return _loop(game, view, interactive, lang)


def _study(model, seats, view: View) -> None:
    """Solve the model before an optimal computer player needs it, with a progress bar."""
    if any(s.kind == "optimal" for s in seats):
        from ...interpreter.solver.solve import solved
        from ..progress import progress_bar
        with progress_bar(view._("The computer studies the game (once; then it is cached)")) as update:
            solved(model, update)
    if any(s.kind == "win" for s in seats):
        from ...interpreter.players.registry import win_is_exact
        from ..progress import progress_bar
        if win_is_exact(model):
            from ...interpreter.players.exactwin import prepare
            with progress_bar(view._("The computer works out its chance to win in every position of the game "
                                     "(for these players; it takes a while)")) as update:
                prepare(model, len(seats), update)
        else:
            from ...interpreter.solver.solve import solved
            with progress_bar(view._("The computer studies the game (once; then it is cached)")) as update:
                solved(model, update)


def _refuse_overwrite(path: Path | None, flag: str, resumable: bool = False) -> None:
    if path is not None and (path.exists() or path.is_symlink()):  # an empty file, a dangling link: not ours
        if resumable:
            raise UsageError("{flag} {path} exists already; continue it with --resume, or choose another file "
                             "(nothing was overwritten)", flag=flag, path=path)
        raise UsageError("{flag} {path} exists already; choose another file (nothing was overwritten)",
                         flag=flag, path=path)


def _loop(game: Game, view: View, interactive: bool, lang: str) -> int:
    line_no = 0
    redraw = True  # the board is drawn again only when the position changed, so hints and errors stay in view
    while True:
        for _ in game.run_bots():
            pass
        if game.state.is_terminal():
            view.fit(lambda v: v.final(game.state))
            view.final(game.state)
            return 0
        if interactive and redraw:
            view.fit(lambda v: v.board(game.state))
            view.board(game.state)
        redraw = False
        prompt = view._("{player}, your move (help for help): ", player=game.state.players[game.state.actor])
        try:
            text = input(prompt) if interactive else sys.stdin.readline()
        except EOFError:  # Ctrl-D: stop playing, as 'quit' does
            view.console.print()
            text = "quit"
        view.typed()
        if not interactive and text == "":
            if game.save_path:
                raise SaveFileError("the input ended before the game did; the position is saved in {path}",
                                    Pos("stdin", line_no + 1, 1), path=game.save_path)
            raise SaveFileError("the input ended before the game did", Pos("stdin", line_no + 1, 1))
        line_no += 1
        text = text.split("#", 1)[0]  # a comment
        if not text.strip():
            continue
        try:
            move = parse_move(text, game.state, lang)
            if move == "help":
                view.console.print(help_text(view), markup=False)
                continue
            if move == "sheet":
                view.board(game.state)
                continue
            if move == "hint":
                _hint(game, view)
                continue
            if move == "quit":
                if game.save_path:
                    game.save(game.save_path)
                    view.console.print(view._("Saved in {path}.", path=game.save_path))
                return 0
            for action in move:
                game.apply(action)
            redraw = True
        except IllegalActionError as exc:
            if not interactive:
                raise IllegalActionError(exc.msg, Pos("stdin", line_no, 1), exc.hint_msg) from None
            view.error(exc)


def _hint(game: Game, view: View) -> None:
    from ..terminal.hint import hint_lines
    for line in hint_lines(game.state, view):
        view.console.print(line)


def help_text(view: View) -> str:
    return view._("""Moves:
  keep 2 2 4    keep these faces and roll the other dice (also: k 2 2 4, or just 2 2 4)
  pos 1 2 5     keep the dice at these positions (also: p 125)
  roll          roll all dice again;   stop   stop rolling
  write fours   write the dice into a box, by its name or its number on the sheet (also: w 4)
  hint          what the computer would do;   sheet   show the board;   quit   stop playing""")
