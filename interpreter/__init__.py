"""rulebook's interpreter: load dice-game models, compile their scoring DSL, run and solve games.

A library with no user interface; `rulebook.tools` is the command line on top of it.
"""
from .model.errors import RulebookError

__all__ = ["RulebookError", "load_model", "bundled_models"]


def __getattr__(name: str):
    """`load_model` and `bundled_models`, imported on first use (so `rulebook --help` stays fast)."""
    if name in ("load_model", "bundled_models"):
        from .model import loader
        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
