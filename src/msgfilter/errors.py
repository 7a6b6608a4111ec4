"""The exceptions msgfilter raises (every one a `FilterError`, itself a `ValueError`), and
the outcome types shared by every backend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

_WINDOW = 50


class FilterError(ValueError):
    """Base class of every error about a filter expression."""


class FilterPositionError(FilterError):
    """An error that points at a place in the expression text.

    `offset` is 0-based into `text`; `line` and `column` are 1-based. `str()` shows the
    message, then the offending line with a caret under the fault.
    """

    def __init__(self, message: str, text: str, offset: int) -> None:
        self.message = message
        self.text = text
        self.offset = max(0, min(offset, len(text)))
        before = text[: self.offset]
        self.line = before.count("\n") + 1
        self.column = self.offset - (before.rfind("\n") + 1) + 1
        super().__init__(self._render())

    def _render(self) -> str:
        start = self.text.rfind("\n", 0, self.offset) + 1
        end = self.text.find("\n", self.offset)
        end = len(self.text) if end < 0 else end
        prefix = suffix = ""
        # A long line is cut to a window around the fault so the caret stays readable.
        if self.offset - start > _WINDOW:
            start, prefix = self.offset - _WINDOW, "..."
        if end - self.offset > _WINDOW:
            end, suffix = self.offset + _WINDOW, "..."
        source_line = prefix + self.text[start:end] + suffix
        before = prefix + self.text[start : self.offset]
        # Tabs stay tabs under the caret so that it lines up in a terminal.
        pad = "".join("\t" if ch == "\t" else " " for ch in before)
        return (
            f"{self.message} at line {self.line}, column {self.column}\n"
            f"  {source_line}\n  {pad}^"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.text, self.offset))


class FilterSyntaxError(FilterPositionError):
    """The text is not a valid expression of the dialect (lexical or grammar error).

    `expected` lists, in plain words, what could have stood at `offset`.
    """

    def __init__(
        self, message: str, text: str, offset: int, expected: Sequence[str] = ()
    ) -> None:
        self.expected = tuple(expected)
        super().__init__(message, text, offset)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.text, self.offset, self.expected))


class FilterTypeError(FilterPositionError):
    """The expression is well formed but breaks a static typing rule of its dialect."""


class FilterLimitError(FilterPositionError):
    """The expression exceeds a size limit (text length, nesting depth, IN-list size)."""


# -- outcomes shared by every backend ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EvaluationFailure:
    """The outcome "the broker throws here": not TRUE, FALSE or UNKNOWN. It is falsy, so
    `if outcome:` still reads as "does not match"; `java_class` and `message` say what
    the broker would have thrown."""

    java_class: str
    message: str

    def __bool__(self) -> bool:
        return False
