"""docs/topics.md runs: every Python block, in order, in one namespace."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "topics.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_page_has_its_examples() -> None:
    assert len(BLOCKS) >= 9
    assert any("PatternTopicsTracker(" in block and "resynced" in block for block in BLOCKS)


def test_every_python_block_of_the_page_runs() -> None:
    module = types.ModuleType("topics_doc")
    sys.modules[module.__name__] = module
    try:
        for number, block in enumerate(BLOCKS, 1):
            code = compile(block, f"{DOC.name} block {number}", "exec", dont_inherit=True)
            try:
                exec(code, module.__dict__)
            except Exception as error:  # pragma: no cover - the failure report
                pytest.fail(f"docs/topics.md python block {number} failed: {error!r}\n{block}")
    finally:
        del sys.modules[module.__name__]
