"""Numbers in words, in every language rulebook speaks: 13 → thirteen / dreizehn / dertien, and how
often: once, twice / einmal, zweimal / één keer, twee keer (used by `describe` and the pages)."""
from __future__ import annotations

from .wording import check_lang

_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
       "fifteen sixteen seventeen eighteen nineteen").split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_DE = ("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "
       "fünfzehn sechzehn siebzehn achtzehn neunzehn").split()
_DE_TENS = "_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
_NL = ("nul één twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien "
       "vijftien zestien zeventien achttien negentien").split()
_NL_TENS = "_ _ twintig dertig veertig vijftig zestig zeventig tachtig negentig".split()


def number_words(n: int, lang: str) -> str:
    """A whole number in words: 13 → thirteen / dreizehn / dertien (digits from 10000 on)."""
    check_lang(lang)
    if n < 0 or n >= 10000:
        return str(n)
    return {"en": _en_words, "de": _de_words, "nl": _nl_words}[lang](n)


def _en_words(n: int) -> str:
    if n < 20:
        return _EN[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _EN_TENS[tens] + (f"-{_EN[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_EN[hundreds]} hundred" + (f" and {_en_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    tail = "" if not rest else (f" and {_en_words(rest)}" if rest < 100 else f" {_en_words(rest)}")
    return f"{_EN[thousands]} thousand{tail}"


def _de_words(n: int, inner: bool = False) -> str:
    """German numbers are written as one word; 1 is 'eins' alone but 'ein' inside a compound."""
    if n == 1:
        return "ein" if inner else "eins"
    if n < 20:
        return _DE[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return (f"{_de_words(unit, True)}und" if unit else "") + _DE_TENS[tens]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_de_words(hundreds, True)}hundert" + (_de_words(rest, inner) if rest else "")
    thousands, rest = divmod(n, 1000)
    return f"{_de_words(thousands, True)}tausend" + (_de_words(rest, inner) if rest else "")


def _nl_words(n: int, inner: bool = False) -> str:
    """Dutch numbers are one word; units come first with 'en' (ë after twee and drie)."""
    if n == 1 and inner:
        return "een"
    if n < 20:
        return _NL[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        if not unit:
            return _NL_TENS[tens]
        first = _nl_words(unit, True)
        return first + ("ën" if first.endswith("e") else "en") + _NL_TENS[tens]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = "honderd" if hundreds == 1 else f"{_nl_words(hundreds, True)}honderd"
        return head + (_nl_words(rest, True) if rest else "")
    thousands, rest = divmod(n, 1000)
    head = "duizend" if thousands == 1 else f"{_nl_words(thousands, True)}duizend"
    return head + (f" {_nl_words(rest, True)}" if rest else "")


WORDS_UP_TO = 12  # a rule book writes a count up to twelve in words, a larger one in numerals (13 Runden)


def count_text(n: int, lang: str) -> str:
    """A count as a rule book prints it: in words up to twelve (fünf Würfel), in numerals above (60 Felder)."""
    check_lang(lang)
    return number_words(n, lang) if 0 <= n <= WORDS_UP_TO else str(n)


def times_words(n: int, lang: str) -> str:
    """How often, as an adverb: once, twice, three times / einmal, zweimal / één keer, twee keer (13 times,
    13-mal, 13 keer above twelve)."""
    check_lang(lang)
    if lang == "en":
        return {1: "once", 2: "twice"}.get(n) or f"{count_text(n, 'en')} times"
    if lang == "de":
        return f"{_de_words(n, True)}mal" if 0 < n <= WORDS_UP_TO else f"{n}-mal"
    return f"{count_text(n, 'nl')} keer"

