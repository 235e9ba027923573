"""rulebook's interpreter: load dice-game models, compile their scoring DSL, run and solve games.

A library with no user interface; `rulebook.tools` is the command line on top of it.
"""
from .errors import RulebookError


__all__ = ["RulebookError"]
from .loader import bundled_models, load_model  # noqa: E402

__all__ += ["load_model", "bundled_models"]
