"""The research adapters (issue 27): every bundled model as an OpenSpiel game, a PettingZoo AEC
environment and (one player) a Gymnasium environment, each passing its library's own checks."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.engine.actions import Keep, Roll, Stop, Write
from rulebook.interpreter.adapters.encoding import STEP_KINDS, Encoding, max_length, rank_returns
from rulebook.interpreter.engine.state import GameState

MODELS = list(bundled_models())


def need(module: str):
    """The optional package (the extras .[openspiel], .[rl]); skipped without it, except in CI."""
    try:
        return __import__(module)
    except ImportError:
        if os.environ.get("RULEBOOK_REQUIRE_TOOLS"):
            pytest.fail(f"{module} is required in CI (make test installs the extras)")
        pytest.skip(f"{module} is not installed")


def test_the_encoding_numbers_every_action_once(yahtzee):
    enc = Encoding(yahtzee, 2)
    assert len(enc.keeps) == 462  # every multiset of 0 … 5 of six faces: C(11, 5)
    assert enc.keeps[0] == () and enc.keeps[-1] == (6, 6, 6, 6, 6)
    assert enc.num_actions == 462 + 1 + 13  # keeps, stop, the 13 boxes (no announcements)
    assert enc.action_id(Stop()) == 462 and enc.action_id(Write("chance")) == 463 + list(yahtzee.targets).index("chance")
    state = GameState(yahtzee, ["a", "b"])
    outs = enc.chance_ids(state)
    assert len(outs) == 252 and abs(sum(p for _, p in outs) - 1) < 1e-12
    assert dict(outs)[enc.action_id(Roll((1, 1, 1, 1, 1)))] == pytest.approx(1 / 6 ** 5)
    state.apply(Roll((1, 2, 2, 5, 6)))
    ids = enc.legal_ids(state)
    assert [enc.action(state, a) for a in ids] == sorted(state.legal_actions(), key=enc.action_id)
    assert enc.action(state, enc.action_id(Keep((2, 2)))) == Keep((2, 2))
    obs = enc.observe(state, 1)
    assert obs.shape == (enc.observation_size,) and obs[1] == 1 and obs[2] == 1  # observer 1, player 0 to move
    assert max_length(yahtzee, 2) == 2 * 13 * 6  # per turn: roll, keep, roll, keep, roll, write


def test_dice_that_differ_number_their_rolls_group_by_group():
    """Qwixx: two white dice and four single coloured ones. White 1 2 with red 3 and white 1 3 with
    red 2 are one multiset but two rolls: 21 white pairs × 6⁴ colours = 27,216 outcomes."""
    qwixx = load_model("qwixx")
    enc = Encoding(qwixx, 2)
    state = GameState(qwixx, ["a", "b"])
    outs = dict(enc.chance_ids(state))
    assert len(enc.rolls) == len(outs) == 21 * 6 ** 4 and abs(sum(outs.values()) - 1) < 1e-9
    a, b = Roll((1, 2, 3, 4, 5, 6)), Roll((1, 3, 2, 4, 5, 6))
    assert enc.action_id(a) != enc.action_id(b)
    assert outs[enc.action_id(a)] == pytest.approx(2 / 6 ** 6)  # the two white dice in either order
    assert outs[enc.action_id(Roll((2, 2, 3, 4, 5, 6)))] == pytest.approx(1 / 6 ** 6)
    assert enc.action(state, enc.action_id(b)) == b
    state.apply(b)
    obs = enc.observe(state, 0)
    dice = obs[2 * 2 + len(STEP_KINDS) + 2:][:6 * 5]  # per group, the count of each face: white, red, yellow, green, blue
    assert list(dice.reshape(5, 6).argmax(axis=1) + 1) == [1, 2, 4, 5, 6] and dice[:6].tolist() == [1, 0, 1, 0, 0, 0]


def test_rank_returns_follow_the_ranking(yahtzee):
    state = GameState(yahtzee, ["a", "b", "c"])
    state.sheets = [{"chance": 20}, {"chance": 10}, {"chance": 20}]
    assert rank_returns(state) == [0.5, -1.0, 0.5]


@pytest.mark.parametrize("name", MODELS)
def test_openspiel_random_sim_test(name):
    pyspiel = need("pyspiel")
    import rulebook.interpreter.openspiel  # noqa: F401  registers python_rulebook
    model = load_model(name)
    for players in sorted({model.min_players, min(model.min_players + 1, model.max_players)}):
        game = pyspiel.load_game("python_rulebook", {"model": name, "players": players})
        assert game.num_players() == players
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_openspiel_states_follow_the_engine():
    pyspiel = need("pyspiel")
    import rulebook.interpreter.openspiel  # noqa: F401
    game = pyspiel.load_game("python_rulebook", {"model": "yahtzee", "players": 2, "returns": "score"})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 252
    state.apply_action(game.rules.encoding.action_id(Roll((3, 3, 3, 3, 3))))
    assert state.current_player() == 0 and state.engine.dice == (3, 3, 3, 3, 3)
    assert state.action_to_string(0, game.rules.encoding.stop) == "stop"
    copy = state.clone()
    copy.apply_action(game.rules.encoding.stop)
    assert state.engine.step().kind == "keep" and copy.engine.step().kind == "write"
    back = game.deserialize_state(copy.serialize())
    assert back.engine.to_json() == copy.engine.to_json() and back.history() == copy.history()
    assert len(state.observation_tensor(1)) == game.observation_tensor_size()
    assert state.information_state_string(0) == state.history_str()


def test_an_mcts_game_of_the_model_returns_what_the_engine_says():
    pyspiel = need("pyspiel")
    import rulebook.interpreter.openspiel  # noqa: F401
    from open_spiel.python.algorithms import evaluate_bots, mcts
    game = pyspiel.load_game("python_rulebook", {"model": "yacht", "players": 2})
    rng = np.random.RandomState(7)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=6, evaluator=evaluator, random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rng)
    assert state.is_terminal()
    # the same moves through the engine alone: the same sheets, scores and ranking
    model, engine = load_model("yacht"), None
    engine = GameState(model, ["p0", "p1"])
    enc = Encoding(model, 2)
    for action in state.history():
        engine.apply(enc.action(engine, action))
    assert engine.is_terminal() and engine.sheets == state.engine.sheets
    assert returns == rank_returns(engine) and sorted(returns) == ([-1.0, 1.0] if len(set(engine.returns())) == 2 else [0.0, 0.0])
    assert len(engine.sheets[0]) == len(model.cells) == 12


@pytest.mark.parametrize("name", MODELS)
def test_pettingzoo_api_test(name):
    need("pettingzoo")
    from pettingzoo.test import api_test
    from rulebook.interpreter.pettingzoo import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations with action masks: as PettingZoo's classic games
        api_test(env(model=name, players=2), num_cycles=400)


def test_pettingzoo_rewards_are_the_ranking():
    need("pettingzoo")
    from rulebook.interpreter.pettingzoo import env
    e = env(model="yacht", players=2, returns="rank")
    e.reset(seed=3)
    total = {a: 0.0 for a in e.possible_agents}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, done, truncated, _ = e.last()
        total[agent] += reward
        e.step(None if done or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(total.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert list(total.values()) == rank_returns(e.state)


def _solitaire(path) -> bool:
    """Whether the model file lets one player play (read from its YAML alone: no model is built to collect the tests)."""
    import yaml
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return data["players"]["min"] == 1


@pytest.mark.parametrize("name", [name for name, path in bundled_models().items() if _solitaire(path)])
def test_gymnasium_check_env(name):
    assert load_model(name).min_players == 1
    need("gymnasium")
    from gymnasium.utils.env_checker import check_env
    from rulebook.interpreter.gym import env
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(env(model=name), skip_render_check=True)


def test_the_research_page_agent_loop_runs():
    """docs/research.md's agent loop, run as it is printed there."""
    need("gymnasium")
    need("pettingzoo")
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text(encoding="utf-8")
    code = text.split("```python agent-loop\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "final score" in out.stdout


def test_the_engine_imports_no_adapter_package():
    code = ("import sys, rulebook.interpreter.play.simulate, rulebook.interpreter.play.compare, rulebook.interpreter.engine.state, "
            "rulebook.interpreter.adapters.encoding; "
            "print(sorted(m for m in ('pyspiel', 'pettingzoo', 'gymnasium', 'dask', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.stdout.strip() == "[]", out.stderr


def test_openspiel_game_strings_carry_options_and_states_pickle():
    pyspiel = need("pyspiel")
    import pickle
    import rulebook.interpreter.openspiel  # noqa: F401
    game = pyspiel.load_game("python_rulebook(model=yahtzee,players=3,options=joker:free)")
    assert game.num_players() == 3 and game.rules.model.option_values["joker"] == "free"
    by_dict = pyspiel.load_game("python_rulebook", {"model": "yahtzee", "options": "joker=none"})
    assert by_dict.rules.model.option_values["joker"] == "none" and by_dict.num_players() == 1
    state = game.new_initial_state()
    state.apply_action(game.rules.encoding.action_id(Roll((2, 2, 4, 5, 6))))
    back = pickle.loads(pickle.dumps(state))
    assert back.engine.to_json() == state.engine.to_json() and back.legal_actions() == state.legal_actions()


def test_a_model_where_other_players_act_on_a_roll():
    """tests/data/examples/crossing.yaml: every player may write each roll (`by: all`), passing is
    `stop`; the player to move is the one asked, not only the active one."""
    pyspiel = need("pyspiel")
    need("pettingzoo")
    import rulebook.interpreter.openspiel  # noqa: F401
    from pettingzoo.test import api_test
    from rulebook.interpreter.pettingzoo import env
    from pathlib import Path
    path = str(Path(__file__).resolve().parent / "data" / "examples" / "crossing.yaml")
    game = pyspiel.load_game("python_rulebook", {"model": path, "players": 3})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    state, rng, movers = game.new_initial_state(), np.random.default_rng(4), set()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
            continue
        movers.add((state.current_player(), state.engine.player))
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert any(who != active for who, active in movers)  # someone decided on another player's roll
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(model=path, players=3), num_cycles=300)
