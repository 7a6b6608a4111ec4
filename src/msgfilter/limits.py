"""Size limits applied while compiling an expression."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on what one expression may ask of the compiler.

    They keep compile time and memory proportional to the text and stop a hostile
    expression from exhausting the stack: every limit fails with `FilterLimitError`.
    """

    #: Characters of expression text.
    max_length: int = 1_000_000
    #: Nesting depth of parentheses and of the expression tree.
    max_depth: int = 256
    #: Items in one IN list.
    max_in_items: int = 65_536


DEFAULT_LIMITS = Limits()
