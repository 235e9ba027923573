"""The JSON Schema is the contract editors use: stable id, a description everywhere, models point at it."""
import json
from pathlib import Path

import jsonschema

from rulebook.interpreter.model.loader import bundled_models
from rulebook.interpreter.model.schemacheck import SCHEMA_PATH

SCHEMA = json.loads(SCHEMA_PATH.read_text())


def _properties(node, path=""):
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{path}/{name}", sub
            yield from _properties(sub, f"{path}/{name}")
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                yield from _properties(node[key], f"{path}/{key}")
        for name, sub in node.get("$defs", {}).items():
            yield from _properties(sub, f"#/$defs/{name}")
        for key in ("oneOf", "allOf", "anyOf"):
            for i, sub in enumerate(node.get(key, [])):
                yield from _properties(sub, f"{path}/{key}/{i}")


def test_schema_is_2020_12_with_a_stable_id():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "https://rulebook.dev/schema/model-1.json"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_property_has_a_description_for_hover_help():
    undocumented = [path for path, sub in _properties(SCHEMA) if "description" not in sub]
    assert undocumented == []
    assert len(list(_properties(SCHEMA))) > 40


def test_bundled_models_name_the_schema_on_their_first_line():
    for name, path in bundled_models().items():
        first = Path(path).read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../schema/model.schema.json", name
