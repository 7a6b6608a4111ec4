"""RabbitMQ's answers, committed as data: tests/amqp/data/*.json, each naming the
RabbitMQ commit whose evaluator answered (built and run locally, never committed)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from msgfilter import Message

DATA = Path(__file__).parent / "data"


def load(name: str) -> dict[str, Any]:
    with open(DATA / name, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def value(raw: Any) -> Any:
    if isinstance(raw, dict):
        if "hex" in raw:
            return bytes.fromhex(raw["hex"])
        return uuid.UUID(raw["uuid"])
    return raw


def message(raw: dict[str, Any]) -> Message:
    return Message(
        {k: value(v) for k, v in raw["app"].items()},
        {k: value(v) for k, v in raw["fields"].items()},
    )
