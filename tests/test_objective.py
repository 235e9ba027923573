"""Objective names (solver/objective.py): expected, reach:T, win; anything else one clear line, exit 2."""
import pytest

from rulebook.interpreter.model.errors import UsageError
from rulebook.interpreter.solver.objective import Objective, parse_objective


@pytest.mark.parametrize("text, kind, target, name", [
    (None, "expected", None, "expected"), ("", "expected", None, "expected"), ("expected", "expected", None, "expected"),
    ("reach:250", "reach", 250, "reach:250"), (" Reach:0 ", "reach", 0, "reach:0"), ("win", "win", None, "win"),
])
def test_objective_names_read_back(text, kind, target, name):
    obj = parse_objective(text)
    assert (obj.kind, obj.target, obj.name, str(obj)) == (kind, target, name, name)
    assert parse_objective(obj.name) == obj == Objective(kind, target)


@pytest.mark.parametrize("text", ["reach", "reach:", "reach:x", "reach:-5", "reach:2.5", "reach:100001", "best", "win:3"])
def test_bad_objectives_are_usage_errors(text):
    with pytest.raises(UsageError):
        parse_objective(text)
