"""Loading entry filters: class paths, a real entry point, definition files, configuration."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from msgfilter.broker import (
    ENTRY_POINT_GROUP,
    EntryFilter,
    FilterChain,
    FilterConfigError,
    FilterLoadError,
    JmsSelectorConfig,
    JmsSelectorFilter,
    available_filters,
    create_filter,
    entry_point_definitions,
    find_definitions,
    load_class,
    load_filters,
    read_definition,
)
from msgfilter.broker.loading import _read_flat_yaml
from msgfilter.errors import FilterError

PLUGIN = '''
from dataclasses import dataclass

from msgfilter.broker import EntryFilter, FilterConfig, FilterResult


@dataclass(frozen=True, slots=True)
class LimitConfig(FilterConfig):
    limit: int = 3


class Limit(EntryFilter):
    """Rejects batches larger than the limit."""

    config_type = LimitConfig

    def __init__(self, config=None):
        self.config = config or LimitConfig()

    def filter_entry(self, entry, context):
        return FilterResult.REJECT if entry.size > self.config.limit else None


class Plain(EntryFilter):
    def filter_entry(self, entry, context):
        return None


class Explodes(EntryFilter):
    def __init__(self):
        raise OSError("no disk")

    def filter_entry(self, entry, context):
        return None


NOT_A_FILTER = 42
'''


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[Path]:
    """A real module, `msgfilter_sample_plugin`, importable from a temporary directory."""
    (tmp_path / "msgfilter_sample_plugin.py").write_text(PLUGIN, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("msgfilter_sample_plugin", None)


def test_load_class_by_path(plugin: Path) -> None:
    limit = load_class("msgfilter_sample_plugin:Limit")
    assert issubclass(limit, EntryFilter) and limit.__name__ == "Limit"
    assert load_class("msgfilter_sample_plugin.Plain").__name__ == "Plain"
    assert load_class("msgfilter.broker:JmsSelectorFilter") is JmsSelectorFilter


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("no_such_module_xyz:Thing", "importing module 'no_such_module_xyz' failed"),
        ("msgfilter_sample_plugin:Missing", "has no attribute 'Missing'"),
        ("msgfilter_sample_plugin:NOT_A_FILTER", "is not an EntryFilter subclass"),
        ("", "non-blank"),
        ("justaname", "expected 'module:Class'"),
    ],
)
def test_load_class_errors_say_what_and_why(plugin: Path, path: str, reason: str) -> None:
    with pytest.raises(FilterLoadError) as caught:
        load_class(path)
    assert reason in str(caught.value)
    assert isinstance(caught.value, FilterError)


def test_create_filter_passes_a_typed_validated_config(plugin: Path) -> None:
    f = create_filter("msgfilter_sample_plugin:Limit", {"limit": "7"})
    assert f.config.limit == 7  # type: ignore[attr-defined]
    with pytest.raises(FilterConfigError) as caught:
        create_filter("msgfilter_sample_plugin:Limit", {"limit": "many"})
    assert "LimitConfig.limit" in str(caught.value)
    with pytest.raises(FilterConfigError):
        create_filter("msgfilter_sample_plugin:Plain", {"anything": 1})
    assert type(create_filter("msgfilter_sample_plugin:Plain")).__name__ == "Plain"
    with pytest.raises(FilterLoadError) as failed:
        create_filter("msgfilter_sample_plugin:Explodes")
    assert "failed to start" in str(failed.value) and "no disk" in str(failed.value)
    jms = create_filter(JmsSelectorFilter, JmsSelectorConfig(dialect="rocketmq"))
    assert jms.config.dialect == "rocketmq"  # type: ignore[attr-defined]
    with pytest.raises(FilterConfigError):
        create_filter(JmsSelectorFilter, 5)  # type: ignore[arg-type]


def _definition(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "entry_filter.yml"
    file.write_text(text, encoding="utf-8")
    return file


def test_definition_files(plugin: Path, tmp_path: Path) -> None:
    file = _definition(
        tmp_path / "defs" / "limit",
        "name: limit\nentryFilterClass: msgfilter_sample_plugin:Limit\ndescription: caps\n",
    )
    definition = read_definition(file)
    assert (definition.name, definition.class_path, definition.description) == (
        "limit", "msgfilter_sample_plugin:Limit", "caps",
    )
    nar_style = _definition(
        tmp_path / "defs" / "plain" / "META-INF" / "services",
        "name: plain\nclass: msgfilter_sample_plugin:Plain\n",
    )
    assert read_definition(nar_style).root == str((tmp_path / "defs" / "plain").resolve())
    found = find_definitions(tmp_path / "defs")
    assert sorted(found) == ["limit", "plain"]
    assert found["limit"].create({"limit": 1}).config.limit == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("name: ' '\nentryFilterClass: a:B\n", "'name' is missing or blank"),
        ("name: x\n", "'entryFilterClass' (or 'class') is missing or blank"),
        ("name: x\nentryFilterClass: ''\n", "is missing or blank"),
        ("- a\n- b\n", "must be a mapping"),
        ("name: [unclosed\n", "cannot read entry filter definition"),
    ],
)
def test_invalid_definition_files(tmp_path: Path, text: str, reason: str) -> None:
    file = _definition(tmp_path, text)
    with pytest.raises(FilterLoadError) as caught:
        read_definition(file)
    assert reason in str(caught.value) and str(file) in str(caught.value)


def test_two_files_defining_one_name_are_refused(tmp_path: Path) -> None:
    _definition(tmp_path / "a", "name: same\nclass: m:A\n")
    _definition(tmp_path / "b", "name: same\nclass: m:B\n")
    with pytest.raises(FilterLoadError, match="defined twice"):
        find_definitions(tmp_path)
    with pytest.raises(FilterLoadError, match="does not exist"):
        find_definitions(tmp_path / "nowhere")


def test_a_definition_whose_class_fails_names_the_filter(tmp_path: Path) -> None:
    _definition(tmp_path / "x", "name: ghost\nclass: no_such_module_abc:Ghost\n")
    with pytest.raises(FilterLoadError) as caught:
        load_filters("ghost", directory=tmp_path)
    assert "entry filter 'ghost'" in str(caught.value)
    assert "no_such_module_abc" in str(caught.value)


def test_flat_yaml_reader_without_pyyaml() -> None:
    text = "# plugin\nname: 'my filter'\nentryFilterClass: a.b:C  # the class\n\ndescription:\n"
    assert _read_flat_yaml(text) == {
        "name": "my filter", "entryFilterClass": "a.b:C", "description": "",
    }
    with pytest.raises(ValueError):
        _read_flat_yaml("just words\n")


@pytest.fixture
def installed_plugin(plugin: Path) -> Iterator[Path]:
    """A real installed distribution: a .dist-info with an entry point, on sys.path."""
    dist = plugin / "msgfilter_sample_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: msgfilter-sample-plugin\nVersion: 1.0\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nlimit = msgfilter_sample_plugin:Limit\n", encoding="utf-8"
    )
    yield plugin


def test_entry_points(installed_plugin: Path) -> None:
    found = entry_point_definitions()
    assert found["limit"].class_path == "msgfilter_sample_plugin:Limit"
    assert "msgfilter-sample-plugin" in found["limit"].source
    chain = load_filters(["limit", "jms"], configs={"limit": {"limit": 2}})
    assert isinstance(chain, FilterChain) and len(chain) == 2
    assert chain.filters[0].config.limit == 2  # type: ignore[attr-defined]


def test_load_filters_by_name() -> None:
    chain = load_filters(" jms , ,rocketmq,pulsar-tag")
    assert [type(f).__name__ for f in chain.filters] == [
        "JmsSelectorFilter", "RocketMQEntryFilter", "PulsarTagEntryFilter",
    ]
    assert set(available_filters()) >= {"jms", "rocketmq", "pulsar-tag"}
    with pytest.raises(FilterLoadError) as caught:
        load_filters("jms,missing")
    assert "No entry filter is found for name 'missing'" in str(caught.value)
    assert "available:" in str(caught.value)
    with pytest.raises(FilterConfigError, match="not loaded"):
        load_filters("jms", configs={"jsm": {}})
    with pytest.raises(FilterConfigError):
        load_filters("jms", configs={"jms": {"batch_mode": "sometimes"}})
