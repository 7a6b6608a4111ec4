"""`msgfilter route --plan index`: the SubscriptionIndex plan writes and counts exactly
what the native plan and the per-message filters do; the demo subscriptions stay
selective; the report picture keeps its size at any number of subscriptions."""

from __future__ import annotations

import json
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("yaml")

import msgfilter  # noqa: E402
import msgfilter.arrow  # noqa: E402
import msgfilter.cli  # noqa: E402
from msgfilter.jobs import demo, route, route_index, route_input, subscriptions  # noqa: E402
from msgfilter.jobs.report import Delivery, RouteReport, write_report  # noqa: E402
from msgfilter.layout import DEFAULT_LAYOUT  # noqa: E402

from route_runs import SAMPLE, message_bytes, run_main  # noqa: E402


def run_route(argv: list[str]) -> int:
    return run_main(route, argv)


def as_message(row: dict[str, Any]) -> msgfilter.Message:
    properties: dict[str, object] = dict(row["properties"] or ())
    properties.update((k, v) for k, v in row.items() if k not in ("properties", "tags"))
    return msgfilter.Message(properties, tags=row["tags"])


@pytest.fixture
def archive(sample_archive: Path) -> Path:
    return sample_archive


def written_ids(folder: Path) -> list[str]:
    return sorted(pq.read_table(folder).column("message_id").to_pylist()) if folder.exists() \
        else []


def test_the_index_plan_routes_like_the_filters_and_the_native_plan(
    spark: Any, archive: Path, sample_route: Callable[[str], Path]
) -> None:
    # The native plan is the one `auto` picks for the sample's 8 subscriptions.
    outs = {"index": sample_route("index"), "native": sample_route("auto")}
    reports = {plan: json.loads((out / "report.json").read_text()) for plan, out in outs.items()}
    assert reports["index"]["plan"] == "index" and reports["native"]["plan"] == "native"
    assert reports["index"]["plan_reason"] == "--plan index"
    rows = pq.read_table(archive).to_pylist()
    messages = [as_message(row) for row in rows]
    sizes = [message_bytes(row) for row in rows]
    subs = route_input.load_subscriptions(SAMPLE)
    for number, sub in enumerate(subs):
        f = msgfilter.compile(sub.expression, sub.dialect)
        hits = [i for i, m in enumerate(messages) if f.matches(m)]
        want = sorted(rows[i]["message_id"] for i in hits)
        for plan, report in reports.items():
            delivery = report["deliveries"][number]
            assert delivery["name"] == sub.name
            assert delivery["messages"] == len(hits), (plan, sub.name)
            assert delivery["bytes"] == sum(sizes[i] for i in hits), (plan, sub.name)
            folder = outs[plan] / "messages" / f"subscription={sub.name}"
            assert written_ids(folder) == want, (plan, sub.name)
        assert reports["index"]["deliveries"][number]["runs"] == "index"
    for key in ("published_messages", "published_bytes", "totals"):
        assert reports["index"][key] == reports["native"][key]
    # One file per subscription that receives anything; no staging left behind.
    index_out = outs["index"]
    files = sorted(p.relative_to(index_out) for p in index_out.rglob("*.parquet"))
    assert len(files) == sum(1 for d in reports["index"]["deliveries"] if d["messages"])
    assert not list(index_out.glob("_staging-*"))
    assert (index_out / "messages" / "_SUCCESS").exists()
    # Spark reads the output back with the subscription as a column.
    back = spark.read.parquet(str(index_out / "messages"))
    counts = {r["subscription"]: r["count"] for r in back.groupBy("subscription").count().collect()}
    assert counts == {d["name"]: d["messages"] for d in reports["index"]["deliveries"]
                      if d["messages"]}


def test_partition_directories_are_named_as_spark_names_them(
    spark: Any, archive: Path, tmp_path: Path
) -> None:
    subs = tmp_path / "subs.yaml"
    names = ["a/b=c", "50% off?", "x:y#z", "plain name", "üñí{[]}^*'\"\\"]
    subs.write_text("".join(
        f"- {{name: {json.dumps(n)}, expression: \"priority >= {i}\"}}\n"
        for i, n in enumerate(names)
    ))
    made = {}
    for plan in ("index", "native"):
        out = tmp_path / plan
        args = ["--archive", str(archive), "--subscriptions", str(subs), "--out", str(out),
                "--plan", plan]
        assert run_route(args) == 0
        made[plan] = sorted(p.name for p in (out / "messages").iterdir() if p.is_dir())
    assert made["index"] == made["native"]
    assert made["index"] == sorted(
        route_index.partition_directory("subscription", n) for n in names
    )
    back = spark.read.parquet(str(tmp_path / "index" / "messages"))
    assert {r["subscription"] for r in back.select("subscription").distinct().collect()} \
        == set(names)


def test_a_route_where_nothing_matches_writes_an_empty_output(
    spark: Any, archive: Path, tmp_path: Path
) -> None:
    subs = tmp_path / "subs.yaml"
    subs.write_text("- {name: none, expression: \"region = 'mars'\"}\n")
    out = tmp_path / "out"
    (out / "messages" / "stale").mkdir(parents=True)  # replaced, as the native plan does
    assert run_route(["--archive", str(archive), "--subscriptions", str(subs), "--out",
                      str(out), "--plan", "index"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["deliveries"][0]["messages"] == 0
    assert sorted(p.name for p in (out / "messages").iterdir()) == ["_SUCCESS"]


def test_the_plan_is_chosen_by_the_number_of_subscriptions() -> None:
    few, many = route_input.INDEX_FROM - 1, route_input.INDEX_FROM
    assert route_input.choose_plan("auto", few)[0] == "native"
    assert route_input.choose_plan("auto", many)[0] == "index"
    assert f"{many:,} subscriptions" in route_input.choose_plan("auto", many)[1]
    assert route_input.choose_plan("native", 10_000) == ("native", "--plan native")
    assert route_input.choose_plan("index", 1) == ("index", "--plan index")
    with pytest.raises(route_input.RouteError, match="unknown plan"):
        route_input.choose_plan("fast", 3)


def test_the_index_sees_only_the_columns_the_filters_read() -> None:
    names = ["message_id", "topic", "key", "Key", "tags", "properties", "tag9", "payload",
             "priority"]
    filters = [msgfilter.compile("key = 'a' AND TAGS = 'x'"),
               msgfilter.compile("anytag: gift", "pulsar-tag")]
    assert route_index.columns_read(filters, names, DEFAULT_LAYOUT) == [
        "key", "Key", "tags", "properties", "tag9",
    ]


def test_demo_subscriptions_are_selective_whatever_their_number() -> None:
    many = subscriptions.demo_subscriptions(3000)
    assert subscriptions.demo_subscriptions(100) == many[:100]
    assert len({s.name for s in many}) == len(many)
    table = demo.demo_table(6000, seed=3, payload=False)
    index = msgfilter.SubscriptionIndex()
    for number, sub in enumerate(many):
        index.add(number, sub.expression, sub.dialect)
    pairs = index.match_table(table)
    per_row = Counter(pairs.column("row").to_pylist())
    assert max(per_row.values()) <= 4  # one customer subscription + one per family
    assert len(per_row) > table.num_rows // 2
    # The index agrees with the filters on a sample of rows.
    rows = [msgfilter.arrow.messages(table.slice(i, 1))[0] for i in range(0, 6000, 97)]
    filters = [msgfilter.compile(s.expression, s.dialect) for s in many]
    for i, message in zip(range(0, 6000, 97), rows, strict=True):
        want = {n for n, f in enumerate(filters) if f.matches(message)}
        assert want == set(pairs.filter(pa.compute.equal(pairs.column("row"), i))
                           .column("key").to_pylist())
    with pytest.raises(ValueError, match="at least 1"):
        subscriptions.demo_subscriptions(0)
    with pytest.raises(ValueError, match="customers"):
        subscriptions.demo_subscriptions(60_000)


def test_demo_subscriptions_command_writes_a_route_subscriptions_file(tmp_path: Path) -> None:
    for name in ("subs.yaml", "subs.json"):
        out = tmp_path / name
        assert msgfilter.cli.main(["demo-subscriptions", "--count", "25", "--out", str(out)]) == 0
        loaded = route_input.load_subscriptions(out)
        assert [(s.name, s.expression) for s in loaded] == [
            (s.name, s.expression) for s in subscriptions.demo_subscriptions(25)
        ]
        route_input.compile_subscriptions(loaded)
    assert msgfilter.cli.main(["demo-subscriptions", "--count", "0", "--out",
                               str(tmp_path / "x.yaml")]) == 2


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("count", [8, 10_000])
def test_the_report_stays_readable_at_any_number_of_subscriptions(
    tmp_path: Path, count: int
) -> None:
    deliveries = tuple(
        Delivery(f"sub-{i}", "jms", f"n = {i}", False, (i * 7919) % 500, (i * 7919) % 500 * 300,
                 runs="index")
        for i in range(count)
    )
    report = RouteReport("a.parquet", str(tmp_path), 1000, 300_000, deliveries, 1.5,
                         plan="index", plan_reason="test")
    write_report(report, tmp_path)
    assert png_size(tmp_path / "report.png") == (1100, 950)
    lines = (tmp_path / "report.txt").read_text().splitlines()
    assert sum(line.startswith("sub-") for line in lines) == count  # the file has them all
    top = report.table(top=20).splitlines()
    assert sum(line.startswith("sub-") for line in top) == min(20, count)
    assert ("report.txt and report.json have them all" in report.table(top=20)) == (count > 20)
    assert "plan: index (test)" in lines
    data = json.loads((tmp_path / "report.json").read_text())
    assert len(data["deliveries"]) == count and data["plan"] == "index"


def test_a_bad_expression_among_many_fails_naming_it(tmp_path: Path) -> None:
    subs = tmp_path / "subs.yaml"
    good = subscriptions.demo_subscriptions(200)
    subscriptions.write(good, subs)
    subs.write_text(subs.read_text() + "  - {name: broken-199, expression: \"key = = 'x'\"}\n")
    with pytest.raises(route_input.RouteError, match="subscription 'broken-199' \\(jms\\)"):
        route_input.compile_subscriptions(route_input.load_subscriptions(subs))


def _unpicklable(f: msgfilter.Filter) -> msgfilter.Filter:
    """`f` as an instance of a subclass that refuses pickling (a filter class of a
    user's own, say)."""

    class Unpicklable(type(f)):  # type: ignore[misc]
        __slots__ = ()

        def __reduce__(self) -> Any:
            raise TypeError("this filter does not pickle")

    odd = object.__new__(Unpicklable)
    for klass in type(f).__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            if name not in ("__weakref__", "__dict__") and hasattr(f, name):
                object.__setattr__(odd, name, getattr(f, name))
    return odd


def test_an_index_that_does_not_pickle_travels_as_its_pairs() -> None:
    index = msgfilter.SubscriptionIndex()
    index.add("a", "region = 'eu'")
    index.add("b", "price > 5")
    index.add_filter("c", _unpicklable(msgfilter.compile("region = 'us'")))
    # The executors get the (key, filter) pairs and rebuild the index once per process.
    source, how = route_index.IndexSource.of(index)
    assert source.index is None and "does not pickle" in how
    built = source.get()
    assert built is source.get()
    message = {"region": "us", "price": 7}
    assert built.match(message) == index.match(message) == {"b", "c"}
