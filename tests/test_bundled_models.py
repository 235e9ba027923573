"""What every bundled model must have: clean checks, texts in every language, examples that score."""
import pytest

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.model.frozen import LANGUAGES

MODELS = list(bundled_models())


@pytest.mark.parametrize("name", MODELS)
def test_texts_in_every_language(name):
    model = load_model(name)
    for lang in LANGUAGES:
        texts = [model.name[lang], model.tagline[lang], model.objective[lang]]
        texts += [o.name[lang] for o in model.options.values()]
        texts += [o.description[lang] for o in model.options.values() if o.description]
        texts += [b.name[lang] for b in model.boxes.values()] + [b.rule[lang] for b in model.boxes.values()]
        texts += [s.name[lang] for s in model.sections] + [b.name[lang] for b in model.bonuses]
        texts += [s.name[lang] for s in model.flow.walk()]
        assert all(t.strip() for t in texts), (name, lang)
    # the German and Dutch tagline are translations, not copies of the English one
    assert model.tagline["de"] != model.tagline["en"] and model.tagline["nl"] != model.tagline["en"]


@pytest.mark.parametrize("name", MODELS)
def test_every_box_has_an_example(name):
    model = load_model(name)
    assert all(box.example for box in model.boxes.values())
