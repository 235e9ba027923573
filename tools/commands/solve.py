"""Compute optimal solitaire play (maximum expected final score) by backward induction."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ...interpreter.solver import induction
from ...interpreter.solver.abstraction import NotSolvable
from ...interpreter.solver.objective import REACH, WIN, parse_objective
from ...interpreter.model.errors import Message, RulebookError, UsageError
from ...interpreter.model.loader import is_bundled, load_model
from ...interpreter.solver.space import Space
from ...interpreter.solver.cache import cache_path
from ...interpreter.solver.solve import load_cached, load_or_solve
from ...interpreter.solver.tablefile import BadTable
from .options import add_option_argument, parse_options
from .outputs import output_file, write_output
from ..i18n import error_text, number, options_text, pick_language, translator
from ..progress import progress_bar

TRUSTED_STATES = 2**40  # a bundled model's cap: --memory is reached long before


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--json", action="store_true", help='print {"expected_score": …, "maximizes": …, "states": …, "seconds": …}')
    p.add_argument("--no-cache", action="store_true", help="compute afresh and do not store the table")
    cap = p.add_argument("--max-states", type=int, default=None, metavar="N",
                         help="refuse to solve more states than this (default: the budget's solver_states, "
                              "%(usual)d, for a model file; a bundled model is limited by --memory only)")
    cap.usual = induction.MAX_STATES
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help=f"memory the solve may use, as in 4G (default {induction.MEMORY // 2**30}G); "
                        "a table larger than this is memory-mapped from the cache")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: every core this process may use)")
    p.add_argument("--distribution", action="store_true",
                   help="also the exact distribution of the final score under optimal play: its percentiles, "
                        'and with --json the key "distribution" (final score -> probability)')
    p.add_argument("--policy", choices=("optimal", "greedy"), default="optimal",
                   help="whose exact distribution: the optimal player's (the default) or the greedy player's")
    p.add_argument("--at-least", type=int, action="append", default=[], metavar="T",
                   help="the exact chance of a final score of at least T (repeatable; implies --distribution)")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.svg",
                   help="draw the exact distribution of the final score (.svg; implies --distribution)")
    p.add_argument("--force", action="store_true", help="replace the --plot file if it exists")
    p.add_argument("--objective", default="expected", metavar="OBJECTIVE",
                   help="what the player maximizes: expected (the expected final score, the default), reach:T "
                        "(the chance of a final score of at least T, as in reach:250) or win (the chance to win, "
                        "with every player playing to win: the whole game's states, for small games)")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="with --objective win: how many players are at the table (default 2)")
    p.add_argument("--lang", default=None)
    add_option_argument(p)


def limits_from(args, model=None) -> induction.Limits:
    """The solve's limits from the flags. A model shipped with rulebook is no untrusted input: without
    --max-states it is solved however many states it has, within --memory (the estimate says how long)."""
    try:
        memory = induction.parse_size(args.memory) if args.memory else induction.MEMORY
    except ValueError:
        raise UsageError("--memory: '{text}' is not a size (as in 4G or 512M)", text=args.memory) from None
    jobs = args.jobs if args.jobs is not None else len(os.sched_getaffinity(0))
    if jobs < 1 or (args.max_states is not None and args.max_states < 1) or memory < 1:
        raise UsageError("--jobs, --max-states and --memory must be positive")
    max_states = args.max_states
    if max_states is None and model is not None and is_bundled(model):
        max_states = TRUSTED_STATES
    return induction.Limits(max_states=max_states, memory=memory, jobs=jobs)


def _what_to_do(args, model) -> Message:
    """What makes a refused model playable well: an option value of its own under which the solver
    can solve it (tried in turn: yes/no options and word options, at most 8 variants), else the
    strong bot, which plays any model without a table."""
    chosen = parse_options(args.option)
    tried = 0
    for option in model.options.values():
        if option.type == "bool":
            values = [str(not model.option_values[option.id]).lower()]
        elif option.choices:
            values = [v for v in option.choices if v != model.option_values[option.id]]
        else:
            continue
        for value in values:
            tried += 1
            if tried > 8:
                break
            try:
                Space(load_model(args.model, {**chosen, option.id: value}))
            except RulebookError:
                continue
            return Message("it can be solved with -O {option}={value}; or play against the strong bot, which needs "
                           "no table: rulebook play {model} --players you:human,cpu:strong",
                           {"option": option.id, "value": value, "model": args.model})
    return Message("play against the strong bot, which needs no table: rulebook play {model} --players "
                   "you:human,cpu:strong", {"model": args.model})


def run(args) -> int:
    from ...interpreter.solver import kernel
    kernel.compile_in_background()  # a first solve in a cache: the compile overlaps loading the model and its states
    model = load_model(args.model, parse_options(args.option))
    limits = limits_from(args, model)
    lang = pick_language(args.lang)
    _ = translator(lang).gettext
    objective = parse_objective(args.objective)
    if objective.kind == WIN:
        from .solvewin import run_win
        return run_win(args, model, lang, _)
    if args.plot is not None:  # checked before any work, not after
        if args.plot.suffix.lower() != ".svg":
            raise UsageError("--plot writes SVG; name the file *.svg, not '{name}'", name=args.plot.name)
        output_file(args.plot, "--plot", [Path(model.path)], args.force)
    args.distribution = args.distribution or bool(args.at_least) or args.plot is not None
    try:
        space = Space(model)  # refuses models the solver cannot read before any work
    except NotSolvable as exc:
        raise NotSolvable(exc.msg, exc.pos, _what_to_do(args, model)) from None
    estimate = None
    cached = False
    if not args.no_cache:
        try:
            load_cached(model, space)
            cached = True
        except BadTable:
            pass
    if not cached:
        if kernel.will_compile():
            print(_("preparing the solver: its compiled kernel is built once, which takes a few seconds"),
                  file=sys.stderr, flush=True)
        estimate = induction.estimate(space, limits, on_disk=not args.no_cache)
        induction.refuse_beyond(space, estimate, limits)
        fields = dict(states=number(estimate.states, lang), table=number(estimate.table_bytes / 2**20, lang, 1),
                      work=number(estimate.work_bytes / 2**20, lang, 1), seconds=number(estimate.seconds, lang),
                      jobs=estimate.jobs)
        line = (_("solving {states} states: table {table} MB on disk, {work} MB working memory, "
                  "about {seconds} s on {jobs} cores") if estimate.on_disk else
                _("solving {states} states: table {table} MB in memory, {work} MB working memory, "
                  "about {seconds} s on {jobs} cores"))
        print(line.format(**fields), file=sys.stderr, flush=True)
    start = time.perf_counter()
    try:
        with progress_bar(_("solving"), eta=True) as update:
            table = load_or_solve(model, update, use_cache=not args.no_cache, space=space, limits=limits,
                                  estimate=estimate)
    except induction.Interrupted as stop:
        print(error_text(stop, lang), file=sys.stderr)
        return 130
    seconds = time.perf_counter() - start
    dist = reach = None
    if args.distribution or objective.kind == REACH:
        from ...interpreter.solver.distribution import at_least, score_distribution, summary
        began = time.perf_counter()
        tables = None
        if args.policy == "optimal" and not args.no_cache:  # the bot's policy tables, built once beside the table
            from ...interpreter.play.bulk import policy_tables
            tables = policy_tables(model, space)
        dist = score_distribution(space, table.values if args.policy == "optimal" else None,
                                  jobs=limits.jobs, policy=tables)
        dist_seconds = time.perf_counter() - began
        dist_mean, percentiles = summary(dist)
        chances = {t: at_least(dist, t) for t in args.at_least}
    if objective.kind == REACH:
        from ...interpreter.solver.reach import reach_chances
        began = time.perf_counter()
        reach = float(reach_chances(space, objective.target, jobs=limits.jobs)[objective.target])
        reach_seconds = time.perf_counter() - began
        expected_reach = at_least(dist, objective.target)
    if args.plot is not None:
        from ..documents.histogram import histogram_svg
        title = (_("{game}: exact distribution of the final score with optimal play") if args.policy == "optimal" else
                 _("{game}: exact distribution of the final score with greedy play")).format(game=model.name[lang])
        write_output(args.plot, histogram_svg({model.name[lang]: dist}, title, y_label=_("probability"),
                                              x_label=_("final score")), "--plot", args.force)
    if args.json:
        # what the value is: the expected grand total, also where the game ranks by a score of its own
        out = {"expected_score": round(table.expected_score, 6), "maximizes": "expected grand total",
               "states": table.states, "seconds": round(seconds, 3), "solve_seconds": round(table.seconds, 3)}
        if model.ranking is not None:
            out["ranked_by"] = model.ranking.name["en"]  # not what the solver maximizes
        if estimate is not None:
            out.update(estimated_seconds=round(estimate.seconds, 1), table_bytes=estimate.table_bytes,
                       jobs=estimate.jobs)
        if args.distribution:
            out.update(distribution={str(k): v for k, v in dist.items()}, distribution_mean=round(dist_mean, 6),
                       percentiles={str(q): v for q, v in percentiles.items()},
                       distribution_seconds=round(dist_seconds, 3), policy=args.policy)
            if chances:
                out["at_least"] = {str(t): c for t, c in chances.items()}
            if args.plot is not None:
                out["plot"] = str(args.plot)
        if reach is not None:  # the chance of the reach:T player, and of the optimal (expected) player at the same T
            out.update(objective=objective.name, target=objective.target, reach_probability=reach,
                       expected_player_reach_probability=expected_reach, reach_seconds=round(reach_seconds, 3))
        print(json.dumps(out))
        return 0
    opts = options_text(model, lang)
    no_options = _("no options")
    print(f"{model.name[lang]} ({opts or no_options})")
    print(_("expected score with optimal play: {score}").format(score=number(table.expected_score, lang, 4)))
    if model.ranking is not None:
        print(_("The solver maximizes the expected grand total; this game ranks its players by {score}, "
                "which the solver does not maximize.").format(score=model.ranking.name[lang]))
    line = _("states: {states}; solved in {seconds} s").format(states=number(table.states, lang), seconds=number(table.seconds, lang, 1))
    if abs(seconds - table.seconds) >= 0.5:
        line += " " + _("(read from the cache in {seconds} s)").format(seconds=number(seconds, lang, 2))
    print(line)
    if args.distribution:
        values = ", ".join(f"{q} %: {number(v, lang)}" for q, v in percentiles.items())
        print((_("exact distribution of the final score with optimal play (percentiles): {values}")
               if args.policy == "optimal" else
               _("exact distribution of the final score with greedy play (percentiles): {values}")).format(values=values))
        for t, c in chances.items():
            print(_("chance of a final score of at least {score}: {chance} %").format(
                score=number(t, lang), chance=number(100 * c, lang, 3)))
        print(_("computed in {seconds} s from the table, the mean {mean}").format(
            seconds=number(dist_seconds, lang, 1), mean=number(dist_mean, lang, 4)))
        if args.plot is not None:
            print(_("plot: {path}").format(path=args.plot))
    if reach is not None:
        print(_("highest chance of a final score of at least {score}: {chance} % (the player who maximizes the "
                "expected score: {base} %), computed in {seconds} s").format(
            score=number(objective.target, lang), chance=number(100 * reach, lang, 3),
            base=number(100 * expected_reach, lang, 3), seconds=number(reach_seconds, lang, 1)))
    if not args.no_cache:
        print(_("table: {path}").format(path=cache_path(model)))
    return 0
