"""`ALWAYS`: a check that is True for any one argument, at the cost of one C call."""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any

# An object no caller can hold, so `argument is not _NOBODY` is True for every argument.
_NOBODY = object()

#: True for any argument: the check of a filter that accepts everything.
ALWAYS: Callable[[Any], bool] = partial(operator.is_not, _NOBODY)
