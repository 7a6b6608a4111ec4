"""docs/broker.md runs: every Python block, in order, in one namespace.

The worked dispatcher example is the last block; running the page from here keeps the
documentation and the code the same thing.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "broker.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_page_has_the_worked_example() -> None:
    assert len(BLOCKS) >= 6
    last = BLOCKS[-1]
    assert "FilterChain([" in last and "rebatch(" in last and "for entry in entries" in last


def test_every_python_block_of_the_page_runs() -> None:
    # A real module, as a reader's script would be: dataclasses look their module up.
    module = types.ModuleType("broker_doc")
    namespace = module.__dict__
    sys.modules[module.__name__] = module
    try:
        for number, block in enumerate(BLOCKS, 1):
            code = compile(block, f"{DOC.name} block {number}", "exec", dont_inherit=True)
            try:
                exec(code, namespace)
            except Exception as error:  # pragma: no cover - the failure report
                pytest.fail(f"docs/broker.md python block {number} failed: {error!r}\n{block}")
    finally:
        del sys.modules[module.__name__]
    # The dispatcher's own results, checked again here so a weakened doc assert shows up.
    delivered = namespace["delivered"]
    assert isinstance(delivered, list) and [d[1:] for d in delivered] == [(0, "250"), (1, "300")]
    acknowledged = namespace["acknowledged"]
    assert isinstance(acknowledged, list) and len(acknowledged) == 3
