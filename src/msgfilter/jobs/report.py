"""The routing report: messages and bytes published, delivered per subscription, and
what filtering at the broker saves against sending every message to every
subscription. Written as JSON, as a readable table and as a PNG bar chart."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: Files `write_report` creates in the output directory.
JSON_FILE, TABLE_FILE, CHART_FILE = "report.json", "report.txt", "report.png"


@dataclass(frozen=True, slots=True)
class Delivery:
    """What one subscription receives."""

    name: str
    dialect: str
    expression: str
    #: True when Spark evaluates the whole filter natively (no Python per row).
    native: bool
    messages: int
    bytes: int
    #: The parts evaluated in Python (an Arrow UDF), with why.
    python_parts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RouteReport:
    """The outcome of one `msgfilter route` run.

    Bytes are the UTF-8 / raw sizes of each message's payload, key, tag and property keys
    and values: what a broker sends, without protocol framing.
    """

    archive: str
    output: str
    published_messages: int
    published_bytes: int
    deliveries: tuple[Delivery, ...]
    seconds: float
    master: str = ""
    spark_version: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def delivered_messages(self) -> int:
        return sum(d.messages for d in self.deliveries)

    @property
    def delivered_bytes(self) -> int:
        return sum(d.bytes for d in self.deliveries)

    @property
    def broadcast_messages(self) -> int:
        """Messages sent if every subscription received every message."""
        return self.published_messages * len(self.deliveries)

    @property
    def broadcast_bytes(self) -> int:
        return self.published_bytes * len(self.deliveries)

    @property
    def saved_bytes(self) -> int:
        return self.broadcast_bytes - self.delivered_bytes

    @property
    def saved_share(self) -> float:
        """The share of the broadcast bytes that filtering at the broker does not send."""
        return self.saved_bytes / self.broadcast_bytes if self.broadcast_bytes else 0.0

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data, totals included."""
        data = asdict(self)
        data["deliveries"] = [
            {**asdict(d), "share_of_messages": _share(d.messages, self.published_messages),
             "share_of_bytes": _share(d.bytes, self.published_bytes)}
            for d in self.deliveries
        ]
        data["totals"] = {
            "delivered_messages": self.delivered_messages,
            "delivered_bytes": self.delivered_bytes,
            "broadcast_messages": self.broadcast_messages,
            "broadcast_bytes": self.broadcast_bytes,
            "saved_bytes": self.saved_bytes,
            "saved_share": round(self.saved_share, 6),
        }
        return data

    def table(self) -> str:
        """A fixed-width table for a terminal."""
        width = max([len("subscription"), *(len(d.name) for d in self.deliveries)])
        dwidth = max([len("dialect"), *(len(d.dialect) for d in self.deliveries)])
        head = (
            f"{'subscription':<{width}}  {'dialect':<{dwidth}}  {'runs':<6}  "
            f"{'messages':>11}  {'share':>6}  {'bytes':>9}  {'share':>6}"
        )
        lines = [
            f"msgfilter route: {self.published_messages:,} messages, "
            f"{human_bytes(self.published_bytes)} in {self.archive}",
            "",
            head,
            "-" * len(head),
        ]
        for d in self.deliveries:
            lines.append(
                f"{d.name:<{width}}  {d.dialect:<{dwidth}}  "
                f"{'native' if d.native else 'python':<6}  {d.messages:>11,}  "
                f"{_percent(d.messages, self.published_messages):>6}  "
                f"{human_bytes(d.bytes):>9}  {_percent(d.bytes, self.published_bytes):>6}"
            )
        lines += [
            "",
            f"delivered with broker-side filtering:   {self.delivered_messages:>13,} messages  "
            f"{human_bytes(self.delivered_bytes):>9}",
            f"every message to every subscription:    {self.broadcast_messages:>13,} messages  "
            f"{human_bytes(self.broadcast_bytes):>9}",
            f"saved by filtering at the broker:       {human_bytes(self.saved_bytes):>32}  "
            f"({self.saved_share * 100:.1f} %)",
            f"time: {self.seconds:.1f} s on {self.master or 'Spark'}"
            + (f" (Spark {self.spark_version})" if self.spark_version else ""),
        ]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def _percent(part: int, whole: int) -> str:
    return f"{part / whole * 100:.1f}%" if whole else "-"


def human_bytes(count: float) -> str:
    """`count` bytes in decimal units: 950 B, 12.3 kB, 4.5 MB, 1.2 GB."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(count) < 1000 or unit == "TB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def write_report(report: RouteReport, directory: Path) -> list[Path]:
    """report.json, report.txt and report.png in `directory`; returns their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / JSON_FILE, directory / TABLE_FILE, directory / CHART_FILE]
    paths[0].write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    paths[1].write_text(report.table() + "\n", encoding="utf-8")
    bar_chart(report, paths[2])
    return paths


def bar_chart(report: RouteReport, path: Path) -> None:
    """A horizontal bar per subscription: the bytes it receives, over the bytes it
    would receive without filtering (everything published)."""
    # The object API with the Agg canvas: no pyplot, no global backend switch.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names: Sequence[str] = [d.name for d in report.deliveries]
    delivered = [d.bytes / 1e6 for d in report.deliveries]
    everything = report.published_bytes / 1e6
    figure = Figure(figsize=(9, 1.2 + 0.45 * max(1, len(names))), dpi=110)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = range(len(names))
    axes.barh(positions, [everything] * len(names), color="#d9d9d9",
              label="without filtering (every message)")
    axes.barh(positions, delivered, color="#2b6cb0", label="with broker-side filtering")
    for y, value in zip(positions, delivered, strict=True):
        axes.text(value, y, f" {human_bytes(value * 1e6)}", va="center", fontsize=8)
    axes.set_yticks(list(positions), labels=names)
    axes.invert_yaxis()
    axes.set_xlim(0, max(everything, 1e-6) * 1.2)  # room for the labels
    axes.set_xlabel("MB delivered to the subscription")
    axes.set_title(
        f"{report.published_messages:,} messages: broker-side filtering saves "
        f"{human_bytes(report.saved_bytes)} ({report.saved_share * 100:.1f} %)",
        fontsize=10,
    )
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1 - 1.0 / (2 + len(names))),
                ncols=2, fontsize=8, frameon=False)
    figure.tight_layout()
    figure.savefig(path)
