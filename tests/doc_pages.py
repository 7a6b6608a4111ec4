"""Running a documentation page's Python blocks, so pages and code stay the same thing."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of docs/`page`, in order."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)


def run_blocks(page: str) -> dict[str, Any]:
    """Every Python block of docs/`page`, in order, in one namespace (returned). The
    namespace is a real module, as a reader's script would be: dataclasses look their
    module up."""
    module = types.ModuleType(page.replace(".", "_"))
    sys.modules[module.__name__] = module
    try:
        for number, block in enumerate(python_blocks(page), 1):
            code = compile(block, f"{page} block {number}", "exec", dont_inherit=True)
            try:
                exec(code, module.__dict__)
            except Exception as error:  # pragma: no cover - the failure report
                pytest.fail(f"docs/{page} python block {number} failed: {error!r}\n{block}")
    finally:
        del sys.modules[module.__name__]
    return module.__dict__
