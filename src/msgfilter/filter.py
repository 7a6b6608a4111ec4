"""`Filter`: what every compiled expression is, whatever its dialect."""

from __future__ import annotations

import pickle
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, NoReturn

from .limits import DEFAULT_LIMITS, Limits
from .semantics.model import ValueModel


class Filter(ABC):
    """A compiled, immutable filter expression.

    `matches(message)` is True only when the expression is TRUE for the message;
    `evaluate(message)` gives TRUE, FALSE or None for UNKNOWN. A message is a
    `Mapping[str, object]` of properties (and header fields) or a `msgfilter.Message`.
    Neither ever raises because of what a message holds.

    Filters are hashable, compare equal when they mean the same expression in the same
    dialect, are safe to share between threads, and pickle as their dialect and text
    (rebuilt through the cache on the other side).
    """

    __slots__ = (
        "_frozen", "dialect", "evaluate", "identifiers", "limits", "matches", "model", "text",
    )

    #: The text the filter was compiled from.
    text: str
    #: The name of its dialect.
    dialect: str
    #: How its dialect types and compares values: what each backend lowers it by.
    model: ValueModel
    #: The compile limits it was built under.
    limits: Limits
    #: The message names the expression reads.
    identifiers: frozenset[str]
    #: True when the expression is TRUE for the message.
    matches: Callable[[Any], bool]
    #: TRUE, FALSE or None (UNKNOWN) for the message.
    evaluate: Callable[[Any], bool | None]

    def __init__(
        self,
        text: str,
        dialect: str,
        identifiers: frozenset[str],
        matches: Callable[[Any], bool],
        evaluate: Callable[[Any], bool | None],
        limits: Limits = DEFAULT_LIMITS,
        *,
        model: ValueModel,
    ) -> None:
        # Plain attributes (not methods) so that `f.matches(m)` costs one call.
        for name, value in (
            ("text", text), ("dialect", dialect), ("identifiers", identifiers),
            ("matches", matches), ("evaluate", evaluate), ("limits", limits),
            ("model", model),
        ):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @abstractmethod
    def unparse(self) -> str:
        """Canonical text of the expression: it compiles to an equal filter."""

    @abstractmethod
    def _key(self) -> object:
        """What equality and hashing compare, besides the dialect."""

    def explain(self) -> str:
        """A readable account of how the expression was understood."""
        names = ", ".join(sorted(self.identifiers)) or "(none)"
        return (
            f"dialect:     {self.dialect}\n"
            f"canonical:   {self.unparse()}\n"
            f"identifiers: {names}"
        )

    def __str__(self) -> str:
        return self.unparse()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r}, dialect={self.dialect!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Filter):
            return NotImplemented
        return self.dialect == other.dialect and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.dialect, self._key()))

    def __reduce__(self) -> tuple[Any, ...]:
        # No import of the compiler here: it registered itself (`register_compiler`).
        compiler = _compiler
        if compiler is None:  # pragma: no cover - msgfilter/__init__ imports the engine
            raise pickle.PicklingError("msgfilter.engine is not loaded: no compiler to name")
        if self.limits == DEFAULT_LIMITS:
            return (compiler, (self.text, self.dialect))
        return (_rebuild, (self.text, self.dialect, self.limits))

    def __copy__(self) -> Filter:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Filter:
        return self


#: The compiler a pickled filter is rebuilt by (`msgfilter.engine.compile`, cached).
#: The engine is built on `Filter`, so it registers itself here when it is imported
#: rather than this module importing it back: pickling closes no import cycle.
_compiler: Callable[..., Filter] | None = None


def register_compiler(compiler: Callable[..., Filter]) -> None:
    """Make `compiler(text, dialect, limits=...)` what unpickling rebuilds filters by."""
    global _compiler
    _compiler = compiler


def _rebuild(text: str, dialect: str, limits: Limits) -> Filter:
    """Unpickle a filter compiled under non-default limits."""
    compiler = _compiler
    if compiler is None:  # pragma: no cover - msgfilter/__init__ imports the engine
        raise pickle.UnpicklingError("msgfilter.engine is not loaded: no compiler to use")
    return compiler(text, dialect, limits=limits)
