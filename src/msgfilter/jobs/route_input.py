"""What `msgfilter route` reads and decides before Spark starts: the subscriptions file,
every filter compiled (a bad one stops the job with its caret error), the plan, the
archive's format, and the packages the job needs. The batch job (`route`) and the
streaming one (`follow`) both start here, so that a mistake costs no Spark start."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import dialects
from ..engine import compile as compile_filter
from ..errors import FilterError
from ..filter import Filter
from . import needs, spark_session

#: `--plan auto` routes with the SubscriptionIndex from this many subscriptions on; below
#: it, native Spark columns. Measured with benchmarks/bench_route.py on the 200 000-message
#: demo archive (local[*], 2 cores): see docs/route.md.
INDEX_FROM = 50
PLANS = ("auto", "native", "index")

@dataclass(frozen=True, slots=True)
class Subscription:
    """One entry of the subscriptions file."""

    name: str
    dialect: str
    expression: str


class RouteError(Exception):
    """The job cannot start: a bad subscriptions file, expression or path."""




@dataclass(frozen=True, slots=True)
class Prepared:
    """Everything the job needs from its command line, checked."""

    subscriptions: list[Subscription]
    filters: list[Filter]
    archive_format: str


def prepare(subscriptions_file: str, archive: str, given_format: str | None) -> Prepared:
    """The cheap mistakes first (the subscriptions need only PyYAML), then what Spark and
    the report need: all before Spark starts. RouteError or needs.NotInstalled."""
    path = Path(subscriptions_file)
    needs.check("spark", () if path.suffix.lower() == ".json" else (YAML_NEED,))
    subscriptions = load_subscriptions(path)
    filters = compile_subscriptions(subscriptions)
    archive_format = find_archive_format(archive, given_format)
    check_needs()
    return Prepared(subscriptions, filters, archive_format)


def fail(command: str, error: BaseException) -> int:
    """Print why the job cannot start; its exit status (2)."""
    print(f"msgfilter {command}: {error}", file=sys.stderr)
    return 2


#: What the job imports: all of it in the `spark` extra.
NEEDS = (
    needs.Need("pyspark", "runs the job"),
    needs.Need("pyarrow", "the Arrow batches of the index plan and of filters' Python parts"),
    # pyspark checks for it at mapInArrow (the index plan) even though no pandas runs.
    needs.Need("pandas", "pyspark's mapInArrow"),
    needs.Need("matplotlib", "draws report.png"),
)
YAML_NEED = needs.Need("yaml", "reads a YAML subscriptions file (PyYAML)")


def check_needs() -> None:
    """NotInstalled (naming the `spark` extra) when a package the job imports is not
    installed, or when no Java is found."""
    needs.check("spark", NEEDS)
    java = spark_session.java_missing()
    if java is not None:
        raise needs.NotInstalled(java)


def load_subscriptions(path: Path) -> list[Subscription]:
    """The subscriptions of a YAML or JSON file: a list of {name, dialect, expression},
    or a mapping with such a list under `subscriptions`. `dialect` defaults to jms."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RouteError(f"cannot read the subscriptions file: {error}") from None
    data: Any
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            # libyaml's loader, when PyYAML has it: 10 000 subscriptions load in 0.3 s,
            # not 3 s.
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception as error:  # yaml and json raise their own kinds
        raise RouteError(f"{path}: not valid YAML or JSON: {error}") from None
    if isinstance(data, dict) and "subscriptions" in data:
        data = data["subscriptions"]
    if not isinstance(data, list) or not data:
        raise RouteError(f"{path}: expected a non-empty list of subscriptions")
    found: list[Subscription] = []
    seen: set[str] = set()
    for index, entry in enumerate(data, 1):
        where = f"{path}: subscription #{index}"
        if not isinstance(entry, dict):
            raise RouteError(f"{where}: expected a mapping with name, dialect, expression")
        unknown = set(entry) - {"name", "dialect", "expression"}
        if unknown:
            raise RouteError(f"{where}: unknown keys {sorted(unknown)}")
        name, dialect = entry.get("name"), entry.get("dialect", dialects.DEFAULT)
        expression = entry.get("expression", "")
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            raise RouteError(f"{where}: `name` must be a non-empty printable string")
        if name in seen:
            raise RouteError(f"{where}: the name {name!r} is used twice")
        if not isinstance(dialect, str):
            raise RouteError(f"{where} ({name!r}): `dialect` must be a string")
        if expression is None:
            expression = ""
        if not isinstance(expression, str):
            raise RouteError(f"{where} ({name!r}): `expression` must be a string")
        seen.add(name)
        found.append(Subscription(name, dialect, expression))
    return found


def compile_subscriptions(subscriptions: Sequence[Subscription]) -> list[Filter]:
    """Each subscription's filter; RouteError naming every bad one, with its caret."""
    filters: list[Filter] = []
    errors: list[str] = []
    for sub in subscriptions:
        try:
            filters.append(compile_filter(sub.expression, sub.dialect))
        except FilterError as error:
            errors.append(f"subscription {sub.name!r} ({sub.dialect}): {error}")
    if errors:
        raise RouteError("bad filter expression\n" + "\n".join(errors))
    return filters


def choose_plan(requested: str, count: int) -> tuple[str, str]:
    """The plan to run ("native" or "index") for `count` subscriptions, and why."""
    if requested not in PLANS:
        raise RouteError(f"unknown plan {requested!r}: one of {', '.join(PLANS)}")
    if requested != "auto":
        return requested, f"--plan {requested}"
    if count >= INDEX_FROM:
        return "index", f"auto: {count:,} subscriptions, the index from {INDEX_FROM} on"
    return "native", f"auto: {count:,} subscriptions, native columns below {INDEX_FROM}"


def find_archive_format(archive: str, given: str | None) -> str:
    """`given`, else the archive's format by its extension: .json and .jsonl are JSON
    Lines, the rest Parquet. A local directory goes by its files' extensions (JSON when
    every file Spark would read is .json or .jsonl)."""
    local = "://" not in archive
    if local and not Path(archive).exists():
        raise RouteError(f"no archive at {archive}")
    if given is not None:
        return given
    suffixes = {Path(archive).suffix.lower()}
    if local and Path(archive).is_dir():
        suffixes = {f.suffix.lower() for f in data_files(Path(archive))} or {""}
    return "json" if suffixes <= {".json", ".jsonl"} else "parquet"


def data_files(folder: Path) -> list[Path]:
    """The files of `folder` Spark's file sources read: not hidden (`.`) nor marked as
    Spark's own (`_`), as Hadoop's default path filter skips them."""
    return sorted(
        f for f in folder.iterdir() if f.is_file() and not f.name.startswith(("_", "."))
    )
