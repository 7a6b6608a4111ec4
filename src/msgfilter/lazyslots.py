"""A slot of a frozen slots dataclass that is filled on first read.

Readers that build objects by the thousand (a stored entry's messages) leave some slots
unset and let them be made only if someone reads them. A `__getattr__` hook would do the
same, but a class with one loses CPython's fast path for every attribute (its evaluators
read other slots of the same objects per message); this descriptor costs only the slot it
stands for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

#: What a `LazySlot`'s `make` returns when it cannot make the value: the slot stays unset
#: and the read raises AttributeError (None is a value a slot may hold).
UNSET: Final = object()


class LazySlot:
    """Stands in for the class attribute of slot `name` (its member descriptor): reads
    it, or when it is unset, sets it to `make(instance)` (`UNSET`: unset stays an
    AttributeError) and returns that. Writes go to the slot."""

    __slots__ = ("_get", "_make", "_set", "name")

    def __init__(self, owner: type, name: str, make: Callable[[Any], object]) -> None:
        member = owner.__dict__[name]
        self.name = name
        self._get = member.__get__
        self._set = member.__set__
        self._make = make
        setattr(owner, name, self)

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        try:
            return self._get(instance, owner)
        except AttributeError:
            value = self._make(instance)
            if value is UNSET:
                raise
            self._set(instance, value)
            return value

    def __set__(self, instance: object, value: object) -> None:
        self._set(instance, value)
