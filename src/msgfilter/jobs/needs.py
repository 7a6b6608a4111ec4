"""The optional packages a job needs, checked before it does any work.

msgfilter's core needs only lark and cachetools; the jobs need extras (pyproject's
`[project.optional-dependencies]`). A job names what it needs and why; `check` imports
each one first, so that a missing package stops the job at once with the pip command
that installs it, not after Spark has routed the whole archive.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Need:
    """One package a job imports."""

    #: The name the job imports.
    module: str
    #: What the job needs it for, as the error message says it.
    why: str


class NotInstalled(Exception):
    """The job cannot start: something it needs (a package, Java) is not installed."""


def check(extra: str, needs: Sequence[Need]) -> None:
    """Import every need; NotInstalled naming each missing one and the extra
    (`pip install 'msgfilter[<extra>]'`) that installs them all."""
    missing: list[str] = []
    for need in needs:
        try:
            importlib.import_module(need.module)
        except ImportError as error:
            # A package that is present but cannot load says why (a broken install, a
            # missing shared library): the message keeps that reason.
            absent = isinstance(error, ModuleNotFoundError) and error.name == need.module
            reason = "" if absent else f" ({error})"
            missing.append(f"  {need.module}: {need.why}{reason}")
    if missing:
        raise NotInstalled(
            "missing packages:\n" + "\n".join(missing)
            + f"\ninstall them with: pip install 'msgfilter[{extra}]'"
        )
