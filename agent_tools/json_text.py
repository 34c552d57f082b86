"""Reading the bracket structure of JSON text without parsing it: quotes and backslash escapes are followed,
so a bracket inside a string is not structure. The scan is iterative (a model's output may nest deeper than
the recursion limit) and tolerates text that is not JSON around or after the structure it finds.
"""

from __future__ import annotations

from collections.abc import Iterator


def brackets(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(index, character) of every ``{``, ``}``, ``[`` and ``]`` of ``text`` from ``start`` outside a JSON string."""
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{}[]":
            yield index, char


def matching_brace(text: str, start: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``start``, or None when it is never closed."""
    depth = 0
    for index, char in brackets(text, start):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def nesting_exceeds(text: str, limit: int) -> bool:
    """True when objects and arrays of ``text`` nest more than ``limit`` levels deep (stray closers are ignored)."""
    depth = 0
    for _, char in brackets(text):
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth = max(0, depth - 1)
    return False


def value_nesting_exceeds(value: object, limit: int) -> bool:
    """True when decoded JSON ``value`` nests dicts/lists more than ``limit`` levels deep (an iterative walk)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False
