"""Typed filter configuration: frozen dataclasses built from plain mappings."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import FilterConfigError

C = TypeVar("C", bound="FilterConfig")

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True, slots=True)
class FilterConfig:
    """Base class of entry filter configurations.

    Subclass it as a frozen dataclass whose fields have defaults, and check values that
    need more than their type in `validate` (raise `FilterConfigError`). On construction
    every field is converted to its annotated type (so ``batch_mode="exact"`` becomes
    `BatchMode.EXACT`) and then `validate` runs. `from_mapping` builds one from strings
    and plain values, as configuration files and broker settings give them.

    Field types it converts to: ``str``, ``bool`` (also "true"/"false", "yes"/"no",
    "on"/"off", "1"/"0"), ``int``, ``float``, any ``enum.Enum`` (by name or value, any
    case), ``tuple[str, ...]`` (from a list or a comma-separated string), and ``X | None``.
    """

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            try:
                value = _convert(hints[f.name], getattr(self, f.name))
            except (TypeError, ValueError) as error:
                raise FilterConfigError(f"{type(self).__name__}.{f.name}: {error}") from None
            object.__setattr__(self, f.name, value)
        self.validate()

    def validate(self) -> None:
        """Check the settings together; raise `FilterConfigError` for invalid ones."""

    @classmethod
    def from_mapping(cls: type[C], values: Mapping[str, object] | None = None) -> C:
        """The configuration described by `values`; missing settings take their defaults.

        Keys are field names (``-`` may stand for ``_``). Raises `FilterConfigError`
        naming the setting for an unknown key or a value that does not convert.
        """
        if values is None:
            values = {}
        if not isinstance(values, Mapping):
            raise FilterConfigError(
                f"{cls.__name__}: configuration must be a mapping, not {type(values).__name__}"
            )
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            name = str(key).replace("-", "_")
            if name not in known:
                raise FilterConfigError(
                    f"{cls.__name__}: unknown setting {key!r} (known: {', '.join(sorted(known))})"
                )
            try:
                kwargs[name] = _convert(hints[name], value)
            except (TypeError, ValueError) as error:
                raise FilterConfigError(f"{cls.__name__}.{name}: {error}") from None
        try:
            return cls(**kwargs)
        except FilterConfigError:
            raise
        except (TypeError, ValueError) as error:
            raise FilterConfigError(f"{cls.__name__}: {error}") from error

    def as_dict(self) -> dict[str, object]:
        """The settings as plain values (enums by value, tuples as lists), for display."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


def _convert(hint: Any, value: object) -> object:
    """`value` converted to the field type `hint`, or TypeError / ValueError saying why."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        last: Exception | None = None
        for option in options:
            if option is type(None):
                continue
            try:
                return _convert(option, value)
            except (TypeError, ValueError) as error:
                last = error
        raise last or TypeError(f"unexpected {value!r}")
    if origin is tuple:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            raise TypeError(f"expected a list or comma-separated text, not {type(value).__name__}")
        return tuple(str(_convert(str, i)).strip() for i in items if str(i).strip())
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if isinstance(value, hint):
            return value
        if isinstance(value, str):
            for member in hint:
                if value.lower() in (member.name.lower(), str(member.value).lower()):
                    return member
        choices = ", ".join(str(m.value) for m in hint)
        raise ValueError(f"{value!r} is not one of: {choices}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ValueError(f"expected true or false, not {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            return int(value.strip())
        raise TypeError(f"expected an integer, not {value!r}")
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            return float(value.strip())
        raise TypeError(f"expected a number, not {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise TypeError(f"expected text, not {type(value).__name__}")
    raise TypeError(f"settings of type {hint!r} are not supported")  # pragma: no cover
