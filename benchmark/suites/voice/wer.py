"""Word error rate with the normalisation both sides need: case, punctuation, and numbers as words.

Turns say "24" or "twenty four" and recognisers write "24", "24°" or "twenty-four"; a WER that counted
those as errors would measure formatting, not hearing.
"""

from __future__ import annotations

import re

_ONES = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SYMBOLS = {"%": " percent ", "°c": " degrees ", "°": " degrees ", "&": " and ", "+": " plus "}


def number_words(value: int) -> str:
    if value < 20:
        return _ONES[value]
    if value < 100:
        tens, ones = divmod(value, 10)
        return _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if value < 1000:
        hundreds, rest = divmod(value, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {number_words(rest)}" if rest else "")
    if value < 1_000_000:
        thousands, rest = divmod(value, 1000)
        return f"{number_words(thousands)} thousand" + (f" {number_words(rest)}" if rest else "")
    return " ".join(_ONES[int(d)] for d in str(value))


def _number(match: re.Match[str]) -> str:
    whole, fraction = match.group(1), match.group(2)
    text = number_words(int(whole))
    if fraction:
        text += " point " + " ".join(_ONES[int(d)] for d in fraction)
    return f" {text} "


def normalise(text: str) -> str:
    text = text.lower()
    for symbol, words in _SYMBOLS.items():
        text = text.replace(symbol, words)
    text = re.sub(r"(\d+):(\d\d)", lambda m: f" {m.group(1)} {'' if m.group(2) == '00' else m.group(2)} ", text)
    text = re.sub(r"\b(a|p)\.?m\.?(?=\W|$)", r" \1m ", text)
    text = re.sub(r"(\d+)(?:\.(\d+))?", _number, text)
    text = text.replace("-", " ")
    text = re.sub(r"[^a-z' ]+", " ", text)
    return " ".join(text.split())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """WER after ``normalise`` (jiwer); 0 for two empty texts, 1 for a hypothesis of an empty reference."""
    import jiwer  # the [speech] extra: a base install scores text runs without it

    ref, hyp = normalise(reference), normalise(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return float(jiwer.wer(ref, hyp))
