"""`msgfilter route` and `msgfilter demo-data` end to end, through their `main(args)`."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("yaml")

import msgfilter  # noqa: E402
from msgfilter.jobs import demo, route, route_input  # noqa: E402

from route_runs import SAMPLE, message_bytes, run_main  # noqa: E402


def as_message(row: dict[str, Any]) -> msgfilter.Message:
    """An archive row as the default Layout shows it to a filter."""
    properties: dict[str, object] = dict(row["properties"] or ())
    properties.update((k, v) for k, v in row.items() if k not in ("properties", "tags"))
    return msgfilter.Message(properties, tags=row["tags"])


def test_route_writes_what_the_per_message_filters_match(
    sample_archive: Path, sample_route: Callable[[str], Path]
) -> None:
    archive, out = sample_archive, sample_route("auto")
    report = json.loads((out / "report.json").read_text())
    assert (out / "report.txt").read_text().startswith("msgfilter route: 3,000 messages")
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    rows = pq.read_table(archive).to_pylist()
    messages = [as_message(row) for row in rows]
    sizes = [message_bytes(row) for row in rows]
    assert report["published_messages"] == len(rows)
    assert report["published_bytes"] == sum(sizes)
    subscriptions = route_input.load_subscriptions(SAMPLE)
    assert [d["name"] for d in report["deliveries"]] == [s.name for s in subscriptions]
    dialects = set()
    for sub, delivery in zip(subscriptions, report["deliveries"], strict=True):
        f = msgfilter.compile(sub.expression, sub.dialect)
        dialects.add(sub.dialect)
        hits = [i for i, m in enumerate(messages) if f.matches(m)]
        assert delivery["messages"] == len(hits), sub.name
        assert delivery["bytes"] == sum(sizes[i] for i in hits), sub.name
        part = out / "messages" / f"subscription={sub.name}"
        written = pq.read_table(part).column("message_id").to_pylist() if hits else []
        assert sorted(written) == sorted(rows[i]["message_id"] for i in hits), sub.name
    assert dialects == {"jms", "rocketmq", "rocketmq-tag", "pulsar-tag"}
    # Every subscription matches something in the sample, and filtering saves bytes.
    assert all(d["messages"] > 0 for d in report["deliveries"])
    totals = report["totals"]
    assert totals["delivered_bytes"] == sum(d["bytes"] for d in report["deliveries"])
    assert totals["broadcast_bytes"] == len(subscriptions) * report["published_bytes"]
    assert totals["saved_bytes"] == totals["broadcast_bytes"] - totals["delivered_bytes"] > 0
    assert totals["saved_share"] == pytest.approx(
        totals["saved_bytes"] / totals["broadcast_bytes"], abs=1e-6
    )


def test_route_reads_json_lines_like_parquet(
    sample_archive: Path, sample_route: Callable[[str], Path], tmp_path: Path
) -> None:
    # The same messages as the shared Parquet archive (the demo data of the same seed),
    # in JSON Lines.
    jsonl = tmp_path / "a.jsonl"
    assert run_main(demo, ["--rows", "3000", "--out", str(jsonl), "--seed", "7"]) == 0
    assert pq.read_table(sample_archive).equals(demo.demo_table(3000, seed=7))
    out = tmp_path / "out-jsonl"
    args = ["--archive", str(jsonl), "--subscriptions", str(SAMPLE), "--out", str(out)]
    assert run_main(route, args) == 0
    reports = [json.loads((o / "report.json").read_text()) for o in (out, sample_route("auto"))]
    numbers = [
        [(d["name"], d["messages"], d["bytes"]) for d in r["deliveries"]] for r in reports
    ]
    assert numbers[0] == numbers[1]
    assert reports[0]["published_bytes"] == reports[1]["published_bytes"]


def test_a_bad_expression_fails_before_spark_starts(tmp_path: Path) -> None:
    subs = tmp_path / "subs.yaml"
    subs.write_text(textwrap.dedent("""\
        - name: fine
          dialect: jms
          expression: a = 1
        - name: broken-one
          dialect: jms
          expression: "color = = 'red'"
        - name: broken-tags
          dialect: pulsar-tag
          expression: "sometag: x"
        """))
    out = tmp_path / "out"
    # A fresh interpreter, so that "Spark did not start" is visible as "pyspark was
    # never imported".
    code = textwrap.dedent(f"""\
        import argparse, sys
        from msgfilter.jobs import route
        parser = argparse.ArgumentParser()
        route.add_arguments(parser)
        args = parser.parse_args(["--archive", {str(tmp_path)!r}, "--subscriptions",
                                  {str(subs)!r}, "--out", {str(out)!r}])
        code = route.main(args)
        print(code, "pyspark" in sys.modules)
        """)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert "subscription 'broken-one' (jms)" in done.stderr
    assert "color = = 'red'\n" in done.stderr and "^" in done.stderr
    assert "subscription 'broken-tags' (pulsar-tag)" in done.stderr
    assert "'fine'" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "non-empty list"),
        ("- {name: a, expression: x = 1}\n- {name: a, expression: x = 2}", "used twice"),
        ("- {name: a, dialect: nope, expression: x = 1}", "unknown dialect"),
        ("- {name: a, expr: x = 1}", "unknown keys"),
        ("- {dialect: jms, expression: x = 1}", "`name`"),
    ],
)
def test_subscription_file_errors(tmp_path: Path, content: str, message: str) -> None:
    subs = tmp_path / "subs.yaml"
    subs.write_text(content)
    with pytest.raises(route_input.RouteError, match=message):
        route_input.compile_subscriptions(route_input.load_subscriptions(subs))


def test_missing_archive_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--archive", str(tmp_path / "nope.parquet"), "--subscriptions", str(SAMPLE),
            "--out", str(tmp_path / "out")]
    assert run_main(route, args) == 2
    assert "no archive at" in capsys.readouterr().err


def test_demo_data_is_deterministic_batched_and_skewed() -> None:
    table = demo.demo_table(5000, seed=11)
    assert table.equals(demo.demo_table(5000, seed=11))
    assert not table.equals(demo.demo_table(5000, seed=12))
    assert table.column_names == [
        "message_id", "topic", "publish_time", "key", "tags", "properties", "priority",
        "redelivery_count", "batch_id", "batch_index", "payload",
    ]
    rows = table.select(["batch_id", "batch_index", "publish_time", "tags"]).to_pylist()
    for before, after in itertools.pairwise(rows):
        if after["batch_id"] == before["batch_id"]:
            assert after["batch_index"] == before["batch_index"] + 1
            assert after["publish_time"] == before["publish_time"]
        else:
            assert after["batch_index"] == 0 and after["batch_id"] == before["batch_id"] + 1
    tags = [r["tags"] for r in rows]
    assert tags.count("order-created") > 5 * tags.count("audit") > 0  # skewed
    assert tags.count(None) > 0
    keys = [dict(p) for p in table.column("properties").to_pylist()]
    assert 0 < sum("tier" not in k for k in keys) < len(keys)  # often missing
    assert all(("amount" in k) == ("currency" in k) for k in keys)
    assert demo.demo_table(0).num_rows == 0
