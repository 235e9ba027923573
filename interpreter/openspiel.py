"""Every model as an OpenSpiel game: importing this module registers `python_rulebook` with pyspiel
(the extra `.[openspiel]`; see adapters/openspiel.py and docs/research.md)."""
from .adapters.openspiel import GAME_TYPE, NAME, RulebookGame, RulebookState  # noqa: F401
