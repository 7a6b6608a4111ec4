"""Errors of the broker API: loading filters and reading their configuration."""

from __future__ import annotations

from ..errors import FilterError


class FilterLoadError(FilterError):
    """An entry filter could not be found, imported, defined or built.

    The message names what failed to load (a class path, an entry point, a definition
    file, a filter name) and why; the underlying exception, if any, is the ``__cause__``.
    """


class FilterConfigError(FilterLoadError):
    """A filter's configuration is invalid: an unknown setting or a value of the wrong kind."""
