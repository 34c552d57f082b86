"""JSON text indented by two spaces, the same characters as ``json.dumps(data, indent=2, ensure_ascii=False,
allow_nan=False)`` writes, several times faster.

The standard library encodes an indented document in pure Python, one generator per container (its C encoder is
used only without ``indent``): hashing an episode's file form (``benchmark.runs.store.episode_sha256``, once per
episode of every run) spent most of its time there. This encoder walks the data once into a list of parts, with
the C string escaper of ``json`` and the same decisions in the same order as ``json.encoder._make_iterencode``:
``str`` (subclasses too) escaped, ``None``/``True``/``False``, ``int`` (subclasses as plain numbers, bools before
ints), ``float`` by ``float.__repr__`` (NaN and infinities refused), lists and tuples, dicts in their order (keys:
strings, floats, bools, None and ints as ``json`` converts them), anything else refused with ``TypeError``.

:func:`plain_indented_json` writes the same characters for plain JSON data only — exactly ``dict`` with ``str``
keys, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None``, no subclasses — and refuses anything else with
:class:`NotPlainJSON`: data for which pydantic's JSON mode gives back equal data of the same types, so its text may
be written without that copy (``Episode.dumps``). (Writing an episode's home in one call of ``json``'s C encoder
where a container holds only scalars was tried: no faster, its containers are small or hold lists.)
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

INDENT = "  "
_INFINITY = float("inf")


def indented_json(data: Any, newline: str = "\n") -> str:
    """``json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)``, character for character; ``newline``:
    the line break and indent of the level it is written at (that of a value in a document being written)."""
    parts: list[str] = []
    _encode(data, parts, newline)
    return "".join(parts)


def _number(value: float) -> str:
    if value != value or value in (_INFINITY, -_INFINITY):
        raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
    return float.__repr__(value)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _number(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _null(_: None) -> str:
    return "null"


# The text of a value of exactly these types, written in the container's own loop (no call of ``_encode``: an
# episode's home is mostly such values, and the call per value was most of the time); anything else, subclasses
# included, goes through ``_encode``.
_PLAIN_TEXT: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    bool: ("false", "true").__getitem__,
    type(None): _null,
    float: _number,
}


def _encode(value: Any, parts: list[str], newline: str) -> None:
    """Append ``value``'s text to ``parts``; ``newline`` is the line break and indent of its own level."""
    if isinstance(value, str):
        parts.append(encode_basestring(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        parts.append(_number(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = newline + INDENT
        separator = "[" + inner
        for item in value:
            plain = _PLAIN_TEXT.get(type(item))
            if plain is not None:
                parts.append(separator + plain(item))
            else:
                parts.append(separator)
                _encode(item, parts, inner)
            separator = "," + inner
        parts.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = newline + INDENT
        separator = "{" + inner
        for key, item in value.items():
            plain = _PLAIN_TEXT.get(type(item))
            if plain is not None:
                parts.append(separator + encode_basestring(_key(key)) + ": " + plain(item))
            else:
                parts.append(separator + encode_basestring(_key(key)) + ": ")
                _encode(item, parts, inner)
            separator = "," + inner
        parts.append(newline + "}")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class NotPlainJSON(TypeError):
    """Data that is not plain JSON data (a type other than exactly dict, list, str, int, float, bool or None, or a
    key other than a str): :func:`plain_indented_json` does not write it."""


_CONTAINERS = (list, dict)
_STR_ONLY = frozenset({str})
# A key's text and the ": " after it, by key: a home's keys (attribute paths, field names) recur in every episode.
_KEY_TEXTS: dict[str, str] = {}
KEY_TEXTS_KEPT = 16384


def _key_text(key: str) -> str:
    text = encode_basestring(key) + ": "
    if len(_KEY_TEXTS) < KEY_TEXTS_KEPT:
        _KEY_TEXTS[key] = text
    return text


def plain_indented_json(data: Any, newline: str = "\n") -> str:
    """``indented_json(data)`` for plain JSON data, written at the level whose line break and indent is ``newline``;
    :class:`NotPlainJSON` for anything else, ``ValueError`` for a non-finite float."""
    parts: list[str] = []
    text = _PLAIN_TEXT.get(type(data))
    if text is not None:
        return text(data)
    if type(data) not in _CONTAINERS:
        raise NotPlainJSON(f"{type(data).__name__} is not plain JSON data")
    _encode_plain(data, parts, newline)
    return "".join(parts)


def _encode_plain(value: list[Any] | dict[str, Any], parts: list[str], newline: str) -> None:
    """Append the text of a plain container, exactly a list or a dict (its items checked here, level by level)."""
    if not value:
        parts.append("{}" if isinstance(value, dict) else "[]")
        return
    inner = newline + INDENT
    if isinstance(value, dict):
        if not set(map(type, value)) <= _STR_ONLY:
            raise NotPlainJSON("a dict key that is not a str")
        separator, key_texts = "{" + inner, _KEY_TEXTS
        for key, item in value.items():
            scalar = _PLAIN_TEXT.get(type(item))
            if scalar is not None:
                parts.append(separator + (key_texts.get(key) or _key_text(key)) + scalar(item))
            else:
                parts.append(separator + (key_texts.get(key) or _key_text(key)))
                _encode_plain_item(item, parts, inner)
            separator = "," + inner
        parts.append(newline + "}")
    else:
        separator = "[" + inner
        for item in value:
            scalar = _PLAIN_TEXT.get(type(item))
            if scalar is not None:
                parts.append(separator + scalar(item))
            else:
                parts.append(separator)
                _encode_plain_item(item, parts, inner)
            separator = "," + inner
        parts.append(newline + "]")


def _encode_plain_item(item: Any, parts: list[str], newline: str) -> None:
    if type(item) not in _CONTAINERS:
        raise NotPlainJSON(f"{type(item).__name__} is not plain JSON data")
    _encode_plain(item, parts, newline)
