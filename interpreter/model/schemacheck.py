"""The model's contract: the JSON Schema, its validator, and its errors said as one line each at the YAML position."""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ModelError, Pos, RulebookError, did_you_mean
from .frozen import LANGUAGES
from .yamlsource import Node, key_position, position_of
from .errors import Either, Message

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "model.schema.json"


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema every model must satisfy."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def valid_marker(source: str) -> Path | None:
    """The file whose presence says this text passed this schema ($RULEBOOK_CACHE or the user's
    cache directory; None if there is none)."""
    from .cachedir import folder as cache_folder
    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256(_schema_bytes() + b"\0" + source.encode("utf-8")).hexdigest()[:32]
    return Path(folder) / "valid-models" / digest


@lru_cache(maxsize=1)
def _schema_bytes() -> bytes:
    return SCHEMA_PATH.read_bytes()


# schema ---------------------------------------------------------------------

def _is_integer(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


@lru_cache(maxsize=1)
def _validator():
    """The schema's validator (jsonschema is imported here, on first use: it is slow to import)."""
    import jsonschema
    cls = jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))
    return cls(schema())


def schema_errors(data: Node, file: str) -> list[RulebookError]:
    validator = _validator()
    found: list[tuple[RulebookError, str, tuple]] = []  # (error, validator, path)
    seen: set[tuple] = set()
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        best = _deepest(err)
        path = list(best.absolute_path)
        message, pos = _humanize(best, data, path)
        key = (pos.line if pos else 0, pos.col if pos else 0)
        if key in seen:
            continue
        seen.add(key)
        found.append((ModelError(message[0], pos or Pos(file, 1, 1), message[1]), best.validator, tuple(path)))
    # A misspelt key explains a missing one: "unknown key 'scroe'; did you mean 'score'?" is enough.
    typos = {(path, e.hint) for e, kind, path in found if kind == "additionalProperties" and e.hint}
    errors = [e for e, kind, path in found
              if not (kind == "required" and (path, f"did you mean '{_missing(e)}'?") in typos)]
    errors.sort(key=lambda e: (e.pos.line, e.pos.col))
    return errors


def _missing(error: RulebookError) -> str:
    """The key named by a "needs 'key'" message."""
    match = re.search(r"needs '([^']+)'$", error.message)
    return match.group(1) if match else ""


def _deepest(err):
    """For oneOf/anyOf failures, the most specific underlying error (a jsonschema.ValidationError)."""
    if err.context:
        return max(err.context, key=lambda e: (len(e.absolute_path), -len(e.message)))
    return err


def _where(path: list) -> str | Message:
    return ".".join(str(p) for p in path) or Message("the model")


def _humanize(err, data, path) -> tuple[tuple[str, str | None], Pos | None]:
    where = _where(path)
    pos = position_of(data, path)
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        if extra and isinstance(err.instance, dict):
            name = extra[0]
            pos = key_position(data, path, name) or pos
            allowed = list(err.schema.get("properties", {}))
            if set(allowed) <= set(LANGUAGES) | {"en"} and allowed:
                return (Message("unknown language '{lang}' in {where} (rulebook speaks en, de and nl)",
                                {"lang": name, "where": where}), None), pos
            return (Message("unknown key '{key}' in {where}", {"key": name, "where": where}),
                    did_you_mean(name, allowed)), pos
    if err.validator == "required":
        missing = re.search(r"'([^']+)' is a required property", err.message)
        name = missing.group(1) if missing else "?"
        if name in LANGUAGES:
            return (Message("missing translation '{lang}' in {where}", {"lang": name, "where": where}), None), pos
        if name == "times":
            return (Message("repeat '{step}' has no bound: add 'times' so the loop ends",
                            {"step": err.instance.get("id", "?")}), None), pos
        return (Message("{where} needs '{key}'", {"where": where, "key": name}), None), pos
    if err.validator == "enum":
        choices = [str(c) for c in err.schema["enum"]]
        return (Message("{where} cannot be {value}; choose one of {choices}",
                        {"where": where, "value": repr(err.instance), "choices": ", ".join(choices)}),
                did_you_mean(str(err.instance), choices)), pos
    if err.validator == "type":
        want = err.schema["type"]
        want = " or ".join(want) if isinstance(want, list) else want
        words = {"object": Message("a mapping"), "array": Message("a list"), "string": Message("text"),
                 "integer": Message("a whole number"), "boolean": Message("true or false")}
        want = Either(tuple(words.get(w, w) for w in want.split(" or ")))
        return (Message("{where} must be {want}, not {got}", {"where": where, "want": want, "got": _kind(err.instance)}),
                None), pos
    if err.validator == "pattern":
        return (Message("{where}: '{value}' is not a valid identifier (lowercase letters, digits and _; starts with a letter)",
                        {"where": where, "value": err.instance}), None), pos
    if err.validator in ("minimum", "maximum"):
        return (Message("{where} must be at least {value}" if err.validator == "minimum" else "{where} must be at most {value}",
                        {"where": where, "value": err.validator_value}), None), pos
    if err.validator in ("minItems", "minLength", "minProperties"):
        return (Message("{where} must not be empty", {"where": where}), None), pos
    if err.validator == "const":
        return (Message("{where} must be {value}", {"where": where, "value": err.validator_value}), None), pos
    return (Message("{where} breaks the schema", {"where": where}), None), pos


def _kind(value: Any) -> Message:
    if isinstance(value, bool):
        return Message("true/false")
    if isinstance(value, (int, float)):
        return Message("the number {value}", {"value": value})
    if isinstance(value, str):
        return Message("the text '{value}'", {"value": value})
    if isinstance(value, list):
        return Message("a list")
    if isinstance(value, dict):
        return Message("a mapping")
    return Message("nothing")


# semantics ------------------------------------------------------------------
