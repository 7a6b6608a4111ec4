"""docs/fanout.md runs: every Python block, in order, in one namespace (the topic fan-out
dispatcher is the last block), so the page and the code stay the same thing."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "fanout.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_page_has_the_dispatcher() -> None:
    assert len(BLOCKS) >= 3
    assert "class TopicDispatcher" in BLOCKS[-1] and "fan_out(" in BLOCKS[-1]


def test_every_python_block_of_the_page_runs() -> None:
    module = types.ModuleType("fanout_doc")
    namespace = module.__dict__
    sys.modules[module.__name__] = module
    try:
        for number, block in enumerate(BLOCKS, 1):
            code = compile(block, f"{DOC.name} block {number}", "exec", dont_inherit=True)
            try:
                exec(code, namespace)
            except Exception as error:  # pragma: no cover - the failure report
                pytest.fail(f"docs/fanout.md python block {number} failed: {error!r}\n{block}")
    finally:
        del sys.modules[module.__name__]
    # The dispatcher's own figures, checked here too so a weakened doc assert shows up.
    assert namespace["delivered"] == {"eu": 2, "vip": 2, "tags": 1, "ap": 1}
