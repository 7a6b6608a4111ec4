"""The shape of a selector text: what two texts share when they differ only in the values
of their literals (`Shape`), and the key it is made of (`shape_key`)."""

from __future__ import annotations

from typing import Any

from ..limits import DEFAULT_LIMITS, Limits
from ..syntax.lexer import LITERAL_CODES, Lexed


class Shape:
    """The shape of a selector: what two texts share when they differ only in the values
    of their literals. Hashable; equal for equal shapes; one object per cached template."""

    __slots__ = ("_hash", "dialect", "key")

    def __init__(self, dialect: str, key: tuple[Any, ...]) -> None:
        object.__setattr__(self, "dialect", dialect)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "_hash", hash(key))

    dialect: str
    key: tuple[Any, ...]
    _hash: int

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Shape is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shape):
            return NotImplemented
        return self is other or (self._hash == other._hash and self.key == other.key)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Shape, (self.dialect, self.key))

    @property
    def slots(self) -> int:
        """How many literals a text of this shape holds."""
        codes: tuple[str, ...] = self.key[1]
        return sum(1 for code in codes if code in LITERAL_CODES)

    def __repr__(self) -> str:
        return f"Shape({self.dialect!r}, {len(self.key[1])} tokens, {self.slots} slots)"


def shape_key(
    dialect: str, flags: tuple[bool, bool], limits: Limits, lexed: Lexed
) -> tuple[Any, ...]:
    """What a text's shape is made of: the dialect and its switches for this text
    (ActiveMQ's and Artemis's prefixes), the limits the parser reads, and each token's code
    (`Lexed.codes`: a keyword, an operator, an identifier's text, a literal's kind)."""
    return (_head(dialect, flags, limits), tuple(lexed.codes))


def text_key(
    dialect: str, flags: tuple[bool, bool], limits: Limits, pieces: tuple[str, ...]
) -> tuple[Any, ...]:
    """A text's key before it is lexed: its text between literals and each literal's kind
    (`syntax.lexer.split_literals`), with what `shape_key` adds. Many texts of one shape
    (other spacing, keyword case) have different text keys; each leads to its shape once
    `scan` has shown that it reads such a text as `split_literals` does."""
    return (_head(dialect, flags, limits), pieces)


def _head(dialect: str, flags: tuple[bool, bool], limits: Limits) -> tuple[Any, ...]:
    # Of the limits, those the parser reads: the length is checked on each text.
    bounds = None if limits is DEFAULT_LIMITS else (limits.max_depth, limits.max_in_items)
    if bounds == _DEFAULT_BOUNDS:
        bounds = None
    return (dialect, flags, bounds)


_DEFAULT_BOUNDS = (DEFAULT_LIMITS.max_depth, DEFAULT_LIMITS.max_in_items)
