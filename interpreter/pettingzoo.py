"""Every model as a PettingZoo AEC environment: `env(model=…, players=N, options=…)` (the extra
`.[rl]`; see adapters/pettingzoo.py and docs/research.md)."""
from .adapters.pettingzoo import RulebookEnv, env  # noqa: F401
