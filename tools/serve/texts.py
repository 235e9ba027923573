"""The words of the table page's script, translated on the server (gettext) and sent with the page.

Placeholders are `{name}`, filled in by the script. A pair [singular, plural] is chosen by the
number (one → singular), which is the plural rule of English, German and Dutch alike.
"""
from __future__ import annotations

from functools import lru_cache

from ..i18n import translator

LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands"}  # each in its own language


@lru_cache(maxsize=None)
def kind_names(lang: str) -> dict[str, str]:
    """Who plays a seat, as the page names it."""
    _ = translator(lang).gettext
    return {
        "human": _("Person"),
        "greedy": _("Computer (greedy)"),
        "random": _("Computer (random)"),
        "optimal": _("Computer (optimal)"),
        "strong": _("Computer (strong)"),
        "win": _("Computer (plays to win)"),
    }


@lru_cache(maxsize=None)
def client_texts(lang: str) -> dict[str, object]:
    t = translator(lang)
    _ = t.gettext

    def n_(singular: str, plural: str) -> list[str]:
        return [t.ngettext(singular, plural, 1), t.ngettext(singular, plural, 2)]

    return {
        # whose turn, and what to do
        "turn_of": _("{player}'s turn"),
        "your_turn": _("Your turn, {player}"),
        "round": _("Round {n} of {total}"),
        "pass": _("Write nothing"),
        "do_keep": _("Click the dice you want to keep, then roll again. Or write the dice into a box now."),
        "do_keep_no_stop": _("Click the dice you want to keep, then roll again."),
        "do_write": _("Choose a box for your dice: the grey numbers are what each box would score."),
        "do_announce": _("Announce the box this turn's dice will go into, or announce nothing."),
        "do_bank": _("Bank your turn total, or roll on and risk it."),
        "bank": _("Bank"),
        "roll_on": _("Roll on"),
        "do_write_announced": _("You announced {box}: the dice go there."),
        "do_write_announced_in": _("You announced {box} in the {column} column: the dice go there."),
        "announce_box": _("Announce {box}"),
        "announce_box_in": _("Announce {box} in the {column} column"),
        "announce_none": _("Announce nothing"),
        "ev_announce": _("{player} announces {box}"),
        "ev_announce_in": _("{player} announces {box} in the {column} column"),
        "ev_announce_none": _("{player} announces nothing"),
        "wait_bot": _("{player} is thinking…"),
        "wait_person": _("Waiting for {player}…"),
        "wait_join": _("Waiting for {player} to join: send them the join link."),
        "wait_dice": _("The dice are rolling…"),
        "watching": _("You are watching this table."),
        "you_play": _("You play {player}."),
        "broken": _("This table has stopped because of an error: {message}"),
        # buttons
        "roll": n_("Roll again ({n} roll left)", "Roll again ({n} rolls left)"),
        "rolls_left": n_("{n} roll left", "{n} rolls left"),
        "hint": _("Hint"),
        "hint_optimal": _("Hint from the optimal player (expected final score):"),
        "hint_greedy": _("Hint from the greedy player (expected points this turn):"),
        "hint_keep": _("keep {dice}"),
        "hint_reroll": _("roll all dice again"),
        "hint_stop": _("stop rolling"),
        "hint_write": _("write into {box}"),
        "hint_do": _("Do it"),
        "kept": _("kept"),
        "die": _("Die showing {face}"),
        "die_n": _("Die {n}, showing {face}"),
        "write_label": n_("{box}: write {points} point", "{box}: write {points} points"),
        "copy": _("Copy"),
        "copied": _("Copied"),
        # events
        "ev_roll": _("{player} rolls {dice}"),
        "ev_reroll": _("{player} rolls {faces} → {dice}"),
        "ev_keep": _("{player} keeps {dice}"),
        "ev_keep_none": _("{player} rolls all dice again"),
        "ev_stop": _("{player} stops rolling"),
        "ev_roll_on": _("{player} rolls on"),
        "ev_write": n_("{player} writes {points} point in {box}", "{player} writes {points} points in {box}"),
        "ev_bonus": _("(+{bonus} bonus)"),
        # the sheet
        "box": _("Box"),
        "sheet_of_player": _("Whose score sheet to show"),
        "section_total": _("Total {section}"),
        "section_not_counted": _("{section} (not added to the grand total)"),
        "grand_total": _("Grand total"),
        "progress": _("{value} of {goal}"),
        "open_seat": _("open seat"),
        "would_score": _("would score {points}"),
        "box_uses": _("{box} ({n} entries)"),
        "entries_of": _("{n} of {total} entries written"),
        "column_times": _("this column counts {n} times"),
        "section_weighted": _("{section}, weighted"),
        # the end
        "game_over": _("Game over"),
        "winner": _("{player} wins with {total} points!"),
        "tie": _("A tie at {total} points!"),
        "rank_line": n_("{rank}. {player}: {total} point", "{rank}. {player}: {total} points"),
        "play_again": _("Play again"),
        # the review at the end of a game (what each choice cost, against the solver's table)
        "review": _("Review the game"),
        "review_title": _("What each choice cost"),
        "review_loading": _("Reviewing every decision…"),
        "review_moves": _("Every decision"),
        "review_line": _("Round {round}, {player}, dice {dice}: {made}"),
        "review_line_better": _("Round {round}, {player}, dice {dice}: {made}; better {best}, cost {cost} points"),
        "review_cell": _("This turn cost {cost} points of expected score."),
        "review_cell_chance": _("This turn cost {cost} percentage points of the chance to win."),
        "rematch": _("Rematch"),
        "rematch_ready": _("A rematch is ready: the same seats at a new table."),
        # people coming and going
        "present": _("here"),
        "away": _("away"),
        "robot": _("the computer plays for now"),
        "robot_plays": _("Your time ran out, so the computer is playing for {player}."),
        "take_back": _("Take my seat back"),
        "computer_for": _("the computer, for {player},"),
        "returned": n_("Welcome back. While you were away, the computer made {n} move for you:",
                       "Welcome back. While you were away, the computer made {n} moves for you:"),
        "vote_why": _("{player} is away, and this table has no turn timer."),
        "vote_robot": _("Let the computer play for {player}"),
        "vote_end": _("End the game with the standings so far"),
        "votes_n": n_("({n} vote so far)", "({n} votes so far)"),
        "waiting_start": _("The clock starts when every seat is taken."),
        "start_now": _("Start now, with the computer in the empty seats"),
        "watch_rematch": _("Watch the rematch"),
        "no_access": _("This table is private: open it with your own link, or ask its players for a link."),
        "invite_for": _("Invite link for seat {seat} ({player}), for one person"),
        "new_invite": _("New link (the old one stops working)"),
        "time_left": _("{seconds} s left for this turn"),
        "stand_in": _("{player} plays greedily until the optimal player has studied this game."),
        # the connection
        "offline": _("Connection lost; reconnecting…"),
        "error": _("Refused: {message}"),
    }
