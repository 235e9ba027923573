"""The glossary of each language (rules/glossary/LANG.yaml, beside the models, since its words are
the games' words): one word per concept, the names players use for it (accepted where people type,
never a model's name for a box), the synonyms no output may use, and the words typed for each move.
The terminal reads it to know a box by a name players use and to read moves; tests hold the models'
texts and the catalogs to it."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from ..interpreter.model.languages import LANGUAGES
from ..interpreter.model.loader import RULES_DIR

WHERE = RULES_DIR / "glossary"


@dataclass(frozen=True)
class Concept:
    word: str  # what every output says
    also: tuple[str, ...] = ()  # names players use: typed, never a model's name for a thing
    avoid: tuple[str, ...] = ()  # never in any output

    @property
    def names(self) -> tuple[str, ...]:
        return (self.word, *self.also)


@dataclass(frozen=True)
class Glossary:
    lang: str
    concepts: tuple[Concept, ...]
    moves: dict[str, tuple[str, ...]]  # move → the words typed for it

    def concept_of(self, name: str) -> Concept | None:
        """The concept one of whose names `name` is (compared as people type: case, ß, accents)."""
        key = typed(name)
        return next((c for c in self.concepts if any(typed(n) == key for n in c.names)), None)


@lru_cache(maxsize=None)
def glossary(lang: str) -> Glossary:
    path = WHERE / f"{lang}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    concepts = tuple(Concept(str(c["word"]), tuple(map(str, c.get("also", ()))), tuple(map(str, c.get("avoid", ()))))
                     for c in data.get("concepts", ()))
    moves = {verb: tuple(str(w) for w in words) for verb, words in (data.get("moves") or {}).items()}
    return Glossary(lang, concepts, moves)


def move_words() -> dict[str, set[str]]:
    """Every language's words for each move (a person may type any of them)."""
    out: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        for verb, words in glossary(lang).moves.items():
            out.setdefault(verb, set()).update(w.casefold() for w in words)
    return out


def typed(text: str) -> str:
    """A name as people type it: any case, ß as ss, umlauts as ae/oe/ue or bare, accents dropped,
    spaces, commas, hyphens and underscores alike."""
    text = text.strip().casefold()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue")):
        text = text.replace(a, b)
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return re.sub(r"[\s,@_-]+", "_", text)
