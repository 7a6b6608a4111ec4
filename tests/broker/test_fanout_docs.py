"""docs/fanout.md runs: every Python block, in order, in one namespace (the topic fan-out
dispatcher is the last block), so the page and the code stay the same thing."""

from __future__ import annotations

from doc_pages import python_blocks, run_blocks

BLOCKS = python_blocks("fanout.md")


def test_the_page_has_the_dispatcher() -> None:
    assert len(BLOCKS) >= 3
    assert "class TopicDispatcher" in BLOCKS[-1] and "fan_out(" in BLOCKS[-1]


def test_every_python_block_of_the_page_runs() -> None:
    namespace = run_blocks("fanout.md")
    # The dispatcher's own figures, checked here too so a weakened doc assert shows up.
    assert namespace["delivered"] == {"eu": 2, "vip": 2, "tags": 1, "ap": 1}
