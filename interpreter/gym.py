"""Every one-player model as a Gymnasium environment: `env(model=…)` (the extra `.[rl]`; see
adapters/gym.py and docs/research.md)."""
from .adapters.gym import RulebookSolitaire, env  # noqa: F401
