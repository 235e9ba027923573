"""The languages every human-readable text of a model, page and message comes in."""
LANGUAGES = ("en", "de", "nl")
