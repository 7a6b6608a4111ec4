"""The routing report: messages and bytes published, delivered per subscription, and
what filtering at the broker saves against sending every message to every
subscription. Written as JSON and as a readable table (both with every subscription),
and as a PNG that stays readable at any number of subscriptions: the totals, the
distribution of the delivered share across subscriptions, and the top subscriptions by
bytes."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
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
    #: How the filter ran: "native" or "python" (a Spark column, in part an Arrow UDF),
    #: or "index" (the SubscriptionIndex, in Python). Empty: from `native`.
    runs: str = ""

    @property
    def how(self) -> str:
        """`runs`, or what `native` says when it is not set."""
        return self.runs or ("native" if self.native else "python")


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
    #: The plan that routed the archive ("native" or "index") and why it was chosen.
    plan: str = "native"
    plan_reason: str = ""

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

    def table(self, top: int | None = None) -> str:
        """A fixed-width table for a terminal: every subscription, or with `top` only the
        `top` subscriptions by bytes (the file keeps them all)."""
        shown = list(self.deliveries)
        if top is not None and len(shown) > top:
            shown = sorted(shown, key=lambda d: (-d.bytes, -d.messages))[:top]
        width = max([len("subscription"), *(len(d.name) for d in shown)])
        dwidth = max([len("dialect"), *(len(d.dialect) for d in shown)])
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
        for d in shown:
            lines.append(
                f"{d.name:<{width}}  {d.dialect:<{dwidth}}  "
                f"{d.how:<6}  {d.messages:>11,}  "
                f"{_percent(d.messages, self.published_messages):>6}  "
                f"{human_bytes(d.bytes):>9}  {_percent(d.bytes, self.published_bytes):>6}"
            )
        if len(shown) < len(self.deliveries):
            lines.append(
                f"... the top {len(shown)} of {len(self.deliveries):,} subscriptions by bytes; "
                "report.txt and report.json have them all"
            )
        lines += [
            "",
            f"subscriptions:                          {len(self.deliveries):>13,}",
            f"delivered with broker-side filtering:   {self.delivered_messages:>13,} messages  "
            f"{human_bytes(self.delivered_bytes):>9}",
            f"every message to every subscription:    {self.broadcast_messages:>13,} messages  "
            f"{human_bytes(self.broadcast_bytes):>9}",
            f"saved by filtering at the broker:       {human_bytes(self.saved_bytes):>32}  "
            f"({fine_percent(self.saved_share)})",
            f"plan: {self.plan}" + (f" ({self.plan_reason})" if self.plan_reason else ""),
            f"time: {self.seconds:.1f} s on {self.master or 'Spark'}"
            + (f" (Spark {self.spark_version})" if self.spark_version else ""),
        ]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def _percent(part: int, whole: int) -> str:
    return f"{part / whole * 100:.1f}%" if whole else "-"


def fine_percent(share: float) -> str:
    """`share` as a percentage with the decimals that tell it from 0 and from 100."""
    value = share * 100
    for decimals in (1, 2, 3, 4):
        text = f"{value:.{decimals}f}"
        if float(text) not in (0.0, 100.0) or value in (0.0, 100.0):
            return f"{text} %"
    return f"{value:.2g} %"


def human_bytes(count: float) -> str:
    """`count` bytes in decimal units: 950 B, 12.3 kB, 4.5 MB, 1.2 GB."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(count) < 1000 or unit == "TB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


def write_report(report: RouteReport, directory: Path, chart: bool = True) -> list[Path]:
    """report.json, report.txt and (unless `chart` is False) report.png in `directory`;
    returns their paths. Each is written beside its place under a hidden name and
    renamed over it, so that a reader (or a job killed mid-write) never sees half a
    file: the streaming job rewrites the report after every batch."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / JSON_FILE, directory / TABLE_FILE]
    _replace(paths[0], lambda tmp: tmp.write_text(
        json.dumps(report.to_json(), indent=2) + "\n", "utf-8"))
    _replace(paths[1], lambda tmp: tmp.write_text(report.table() + "\n", "utf-8"))
    if chart:
        paths.append(directory / CHART_FILE)
        _replace(paths[2], lambda tmp: bar_chart(report, tmp))
    return paths


def _replace(path: Path, write: Callable[[Path], object]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    write(tmp)
    os.replace(tmp, path)


class ChartPainter:
    """report.png redrawn in a thread of its own: drawing takes 1-2 s, longer than a
    small micro-batch, so a batch hands the painter its report and goes on. A report
    handed in while one is drawn replaces any still waiting: the picture follows the
    running total, at most one drawing behind, and `finish` draws the last one."""

    def __init__(self, directory: Path) -> None:
        import threading

        self.path = directory / CHART_FILE
        self.waiting: RouteReport | None = None
        self.busy = False
        self.failure: BaseException | None = None
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._paint, name="msgfilter-chart", daemon=True)
        self.thread.start()

    def show(self, report: RouteReport) -> None:
        """Draw `report` when the painter is free."""
        with self.changed:
            self.waiting = report
            self.changed.notify_all()

    def finish(self) -> None:
        """Wait for the last report handed in to be drawn; raise what drawing raised."""
        with self.changed:
            while self.waiting is not None or self.busy:
                self.changed.wait()
        if self.failure is not None:
            raise self.failure

    def _paint(self) -> None:
        while True:
            with self.changed:
                while self.waiting is None:
                    self.changed.wait()
                report, self.waiting, self.busy = self.waiting, None, True
            try:
                _replace(self.path, partial(_draw, report))
            except Exception as error:  # handed to `finish`, in the job's thread
                self.failure = error
            with self.changed:
                self.busy = False
                self.changed.notify_all()


def _draw(report: RouteReport, path: Path) -> None:
    bar_chart(report, path)


#: Subscriptions the chart names, by bytes received.
CHART_TOP = 20


def _short(name: str, width: int = 42) -> str:
    return name if len(name) <= width else name[: width - 1] + "\u2026"


def bar_chart(report: RouteReport, path: Path) -> None:
    """The report as one picture of fixed size, whatever the number of subscriptions:
    the totals (every message to every subscription against what filtering delivers),
    a histogram of the share of the published bytes each subscription receives, and the
    top `CHART_TOP` subscriptions by bytes."""
    # The object API with the Agg canvas: no pyplot, no global backend switch.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 9.5), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    grid = figure.add_gridspec(2, 2, height_ratios=(1, 1.6))
    figure.suptitle(
        f"{report.published_messages:,} messages ({human_bytes(report.published_bytes)}), "
        f"{len(report.deliveries):,} subscriptions: broker-side filtering saves "
        f"{human_bytes(report.saved_bytes)} ({fine_percent(report.saved_share)})"
        + (f"  [plan: {report.plan}]" if report.plan else ""),
        fontsize=11,
    )
    _totals(report, figure.add_subplot(grid[0, 0]))
    _histogram(report, figure.add_subplot(grid[0, 1]))
    _top(report, figure.add_subplot(grid[1, :]))
    figure.savefig(path, format="png")


def _totals(report: RouteReport, axes: Any) -> None:
    """Messages and bytes: every message to every subscription, and what is delivered
    (each as a share of the first)."""
    rows: tuple[tuple[str, int, int, Callable[[float], str]], ...] = (
        ("messages", report.broadcast_messages, report.delivered_messages, _count),
        ("bytes", report.broadcast_bytes, report.delivered_bytes, human_bytes),
    )
    for y, (_, everything, delivered, shown) in enumerate(rows):
        share = delivered / everything if everything else 0.0
        axes.barh(y + 0.2, 1.0, height=0.38, color="#d9d9d9",
                  label="every message to every subscription" if y == 0 else None)
        axes.barh(y - 0.2, share, height=0.38, color="#2b6cb0",
                  label="delivered with broker-side filtering" if y == 0 else None)
        axes.text(1.0, y + 0.2, f" {shown(everything)}", va="center", fontsize=8)
        axes.text(share, y - 0.2, f" {shown(delivered)} ({fine_percent(share)})",
                  va="center", fontsize=8)
    axes.set_yticks([0, 1], labels=[r[0] for r in rows])
    axes.set_ylim(1.6, -0.6)
    axes.set_xlim(0, 1.6)  # room for the labels
    axes.set_xticks([0, 0.5, 1.0], labels=["0", "50 %", "100 %"])
    axes.set_title("totals", fontsize=10)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=7, frameon=False)


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _histogram(report: RouteReport, axes: Any) -> None:
    """How many subscriptions receive which share of the published bytes (log bins:
    selective subscriptions receive tiny shares)."""
    import math

    published = report.published_bytes
    shares = [d.bytes / published * 100 for d in report.deliveries if published and d.bytes]
    empty = len(report.deliveries) - len(shares)
    low = min([1e-4, *shares])
    edges = [10 ** (math.floor(math.log10(low)) + i / 4) for i in range(200)]
    # 100 % closes the last bin (a zero-width bin would hide everything at 100 %).
    edges = [e for e in edges if e < 99.999] + [100.0]
    if shares:
        axes.hist(shares, bins=edges, color="#2b6cb0")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_xscale("log")
    decades = [e for e in edges if abs(math.log10(e) - round(math.log10(e))) < 1e-9]
    axes.set_xticks(decades, labels=[f"{d:g} %" for d in decades], fontsize=7)
    axes.set_xlabel("share of the published bytes a subscription receives (%)")
    axes.set_ylabel("subscriptions")
    axes.set_title("delivered share across subscriptions", fontsize=10)
    if empty:
        axes.text(0.98, 0.95, f"{empty:,} receive nothing", transform=axes.transAxes,
                  ha="right", va="top", fontsize=8)


def _top(report: RouteReport, axes: Any) -> None:
    """The top subscriptions by bytes: what each receives over everything published."""
    top = sorted(report.deliveries, key=lambda d: (-d.bytes, -d.messages))[:CHART_TOP]
    names: Sequence[str] = [_short(d.name) for d in top]
    delivered = [d.bytes / 1e6 for d in top]
    everything = report.published_bytes / 1e6
    positions = range(len(names))
    axes.barh(positions, [everything] * len(names), color="#d9d9d9")
    axes.barh(positions, delivered, color="#2b6cb0")
    for y, value in zip(positions, delivered, strict=True):
        axes.text(value, y, f" {human_bytes(value * 1e6)}", va="center", fontsize=7)
    axes.set_yticks(list(positions), labels=names, fontsize=7)
    axes.set_ylim(max(len(names), CHART_TOP // 2) - 0.5, -0.5)  # bars of a steady height
    axes.set_xlim(0, max(everything, 1e-6) * 1.15)
    axes.set_xlabel("MB delivered to the subscription (blue) of the MB published (grey)")
    more = len(report.deliveries) - len(top)
    axes.set_title(
        f"top {len(top)} subscriptions by bytes"
        + (f" ({more:,} more in report.txt / report.json)" if more else ""),
        fontsize=10,
    )
