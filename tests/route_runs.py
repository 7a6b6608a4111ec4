"""Helpers of the routing-job tests: a job's `main(args)` as the command line calls it,
and the size the report counts for a message."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The subscriptions the routing tests route by (the sample users are shown).
SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "subscriptions.yaml"


def run_main(module: Any, argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return int(module.main(parser.parse_args(list(argv))))


def message_bytes(row: dict[str, Any]) -> int:
    """What the report counts for a message: payload, key, tag, property keys and values."""
    size = len(row["payload"] or b"")
    size += sum(len((row[k] or "").encode()) for k in ("key", "tags"))
    for k, v in row["properties"] or ():
        size += len(k.encode()) + len((v or "").encode())
    return size
