"""Finding and building entry filters: by class path, entry point, or definition file.

Three ways to name a filter class, as Pulsar's ``EntryFilterProvider`` does with NAR
packages and their ``entry_filter.yml``:

- a class path ``"package.module:ClassName"`` (or dotted, ``"package.module.ClassName"``);
- an entry point in the group ``msgfilter.entry_filters`` of an installed distribution,
  named by the filter name and pointing at the class;
- a definition file ``entry_filter.yml`` (``name``, ``entryFilterClass`` or ``class``,
  ``description``) in a plugin directory.

`load_filters` turns a list of names (Pulsar's ``entryFilterNames``) into a `FilterChain`.
Every failure is a `FilterLoadError` saying what failed to load and why.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .builtin import BUILTIN_FILTERS
from .config import FilterConfig
from .errors import FilterConfigError, FilterLoadError
from .filters import EntryFilter, FilterChain

#: The importlib.metadata entry point group of entry filter classes.
ENTRY_POINT_GROUP = "msgfilter.entry_filters"
#: The name of a definition file (as Pulsar's ``META-INF/services/entry_filter.yml``).
DEFINITION_FILE = "entry_filter.yml"
_CLASS_KEYS = ("entryFilterClass", "class")


@dataclass(frozen=True, slots=True)
class FilterDefinition:
    """A named entry filter: its class path, description and where it was defined.

    `source` says where the definition came from: ``built-in``, ``entry point <dist>``
    or a file path. `root` is a directory to put on ``sys.path`` before importing the
    class (a plugin directory), or None.
    """

    name: str
    class_path: str
    description: str = ""
    source: str = ""
    root: str | None = None

    def load_class(self) -> type[EntryFilter]:
        """The filter class (see `load_class`)."""
        if self.root is not None and self.root not in sys.path:
            # A plugin directory holds its own modules, as a NAR holds its classes.
            sys.path.append(self.root)
        try:
            return load_class(self.class_path)
        except FilterLoadError as error:
            raise self._named(error) from error.__cause__

    def _named(self, error: FilterLoadError) -> FilterLoadError:
        """`error` (same class) with this filter's name and origin in front."""
        return type(error)(f"entry filter {self.name!r} ({self.source}): {error}")

    def create(self, config: FilterConfig | Mapping[str, object] | None = None) -> EntryFilter:
        """A new filter of this definition, built with `config` (see `create_filter`)."""
        try:
            return create_filter(self.load_class(), config)
        except FilterLoadError as error:
            if str(error).startswith(f"entry filter {self.name!r}"):
                raise
            raise self._named(error) from error.__cause__


def load_class(path: str) -> type[EntryFilter]:
    """The `EntryFilter` subclass at `path`: ``"package.module:Class"`` or dotted.

    A dotted path (``"package.module.Class"``, Java style) is split at the last dot.
    Raises `FilterLoadError` naming the path when the module does not import, has no such
    attribute, or the attribute is not an `EntryFilter` subclass.
    """
    if not isinstance(path, str) or not path.strip():
        raise FilterLoadError(f"an entry filter class path is non-blank text, not {path!r}")
    text = path.strip()
    if ":" in text:
        module_name, _, attribute = text.partition(":")
    else:
        module_name, _, attribute = text.rpartition(".")
    if not module_name or not attribute:
        raise FilterLoadError(f"cannot load entry filter class {path!r}: expected 'module:Class'")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise FilterLoadError(
            f"cannot load entry filter class {path!r}: importing module {module_name!r} "
            f"failed: {type(error).__name__}: {error}"
        ) from error
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise FilterLoadError(
                f"cannot load entry filter class {path!r}: module {module_name!r} has no "
                f"attribute {attribute!r}"
            ) from None
    if not (isinstance(target, type) and issubclass(target, EntryFilter)):
        raise FilterLoadError(
            f"cannot load entry filter class {path!r}: {attribute!r} is not an EntryFilter "
            "subclass"
        )
    return target


def create_filter(
    target: str | type[EntryFilter],
    config: FilterConfig | Mapping[str, object] | None = None,
) -> EntryFilter:
    """A new entry filter of class `target` (a class or a class path) built with `config`.

    When the class declares ``config_type``, `config` is an instance of it or a mapping
    turned into one with `FilterConfig.from_mapping` (validated: `FilterConfigError`);
    the constructor receives it. A class without ``config_type`` is built with no
    argument and refuses a non-empty `config`. Raises `FilterLoadError` when the
    constructor fails.
    """
    cls = load_class(target) if isinstance(target, str) else target
    name = f"{cls.__module__}:{cls.__qualname__}"
    config_type = cls.config_type
    try:
        if config_type is None:
            if config:
                raise FilterConfigError(f"{name} takes no configuration, got {config!r}")
            return cls()
        if isinstance(config, config_type):
            settings = config
        elif config is None or isinstance(config, Mapping):
            settings = config_type.from_mapping(config)
        else:
            raise FilterConfigError(
                f"{name} takes a {config_type.__name__} or a mapping, not "
                f"{type(config).__name__}"
            )
        return cls(settings)  # type: ignore[call-arg]
    except FilterLoadError:
        raise
    except Exception as error:
        raise FilterLoadError(
            f"entry filter {name} failed to start: {type(error).__name__}: {error}"
        ) from error


def _read_flat_yaml(text: str) -> dict[str, str]:
    """A flat ``key: value`` YAML mapping (what an entry_filter.yml holds) without PyYAML."""
    out: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or line == "---":
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"line {number}: expected 'key: value'")
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            if end < 0:
                raise ValueError(f"line {number}: unterminated quoted value")
            value = value[1:end]
        else:
            value = value.split(" #", 1)[0].strip()
        out[key.strip().strip("'\"")] = value
    return out


def _parse_yaml(text: str) -> object:
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is present in development
        return _read_flat_yaml(text)
    return yaml.safe_load(text)


def read_definition(path: str | Path) -> FilterDefinition:
    """The filter definition in a definition file (YAML, like Pulsar's entry_filter.yml).

    Reads ``name``, the class (``entryFilterClass``, or ``class``) and an optional
    ``description``; other keys are ignored. Both name and class must be non-blank text.
    The file's plugin directory (its folder, or the folder above ``META-INF/services``)
    becomes the definition's `root`. Raises `FilterLoadError` naming the file and the
    reason.
    """
    file = Path(path)
    try:
        data = _parse_yaml(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise FilterLoadError(f"cannot read entry filter definition {str(file)!r}: {error}") from (
            error
        )
    except Exception as error:  # a YAML syntax error
        raise FilterLoadError(
            f"cannot read entry filter definition {str(file)!r}: {type(error).__name__}: {error}"
        ) from error
    if not isinstance(data, Mapping):
        raise FilterLoadError(
            f"entry filter definition {str(file)!r} must be a mapping with name and "
            f"entryFilterClass, not {type(data).__name__}"
        )
    name = data.get("name")
    class_path = next((data[k] for k in _CLASS_KEYS if k in data), None)
    description = data.get("description") or ""
    problems = []
    if not isinstance(name, str) or not name.strip():
        problems.append("'name' is missing or blank")
    if not isinstance(class_path, str) or not class_path.strip():
        problems.append("'entryFilterClass' (or 'class') is missing or blank")
    if problems:
        reasons = "; ".join(problems)
        raise FilterLoadError(f"invalid entry filter definition {str(file)!r}: {reasons}")
    assert isinstance(name, str) and isinstance(class_path, str)
    root = file.parent
    if root.name == "services" and root.parent.name == "META-INF":
        root = root.parent.parent
    return FilterDefinition(
        name.strip(), class_path.strip(), str(description), str(file), str(root.resolve())
    )


def find_definitions(directory: str | Path) -> dict[str, FilterDefinition]:
    """Every definition file named ``entry_filter.yml`` under `directory`, by filter name.

    Raises `FilterLoadError` for a missing directory, an invalid file, or two files that
    define the same name.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise FilterLoadError(f"entry filters directory {str(folder)!r} does not exist")
    found: dict[str, FilterDefinition] = {}
    for file in sorted(folder.rglob(DEFINITION_FILE)):
        definition = read_definition(file)
        if definition.name in found:
            raise FilterLoadError(
                f"entry filter {definition.name!r} is defined twice: "
                f"{found[definition.name].source!r} and {definition.source!r}"
            )
        found[definition.name] = definition
    return found


def entry_point_definitions() -> dict[str, FilterDefinition]:
    """The filters installed distributions declare in the ``msgfilter.entry_filters`` group."""
    # Imported here: importlib.metadata costs tens of milliseconds to import.
    from importlib.metadata import entry_points

    found: dict[str, FilterDefinition] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(point, "dist", None)
        source = f"entry point of {dist.name}" if dist is not None else "entry point"
        found.setdefault(point.name, FilterDefinition(point.name, point.value, "", source))
    return found


def available_filters(directory: str | Path | None = None) -> dict[str, FilterDefinition]:
    """Every filter that can be loaded by name.

    The built-ins (``jms``, ``pulsar-tag``, ``rocketmq``), then entry points, then the
    definitions under `directory`: a later source wins for the same name.
    """
    found = {
        name: FilterDefinition(
            name,
            f"{cls.__module__}:{cls.__qualname__}",
            (cls.__doc__ or "").strip().splitlines()[0],
            "built-in",
        )
        for name, cls in BUILTIN_FILTERS.items()
    }
    found.update(entry_point_definitions())
    if directory is not None:
        found.update(find_definitions(directory))
    return found


def load_filters(
    names: str | Iterable[str],
    *,
    directory: str | Path | None = None,
    configs: Mapping[str, FilterConfig | Mapping[str, object]] | None = None,
) -> FilterChain:
    """A `FilterChain` of the filters called `names`, in that order.

    `names` is a list or a comma-separated string (Pulsar's ``entryFilterNames``; blank
    items are skipped). Names are looked up with `available_filters(directory)`.
    `configs` maps a name to its configuration (see `create_filter`). Raises
    `FilterLoadError` for an unknown name ("No entry filter is found for name ..."), a
    configuration for a name not in `names`, or a filter that fails to load; filters
    already built are closed first.
    """
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
    wanted = [n for n in wanted if n]
    settings = dict(configs or {})
    stray = sorted(set(settings) - set(wanted))
    if stray:
        raise FilterConfigError(f"configuration given for entry filters not loaded: {stray}")
    known = available_filters(directory)
    built: list[EntryFilter] = []
    try:
        for name in wanted:
            definition = known.get(name)
            if definition is None:
                raise FilterLoadError(
                    f"No entry filter is found for name {name!r} (available: "
                    f"{', '.join(sorted(known)) or 'none'})"
                )
            built.append(definition.create(settings.get(name)))
    except BaseException:
        FilterChain(built).close()
        raise
    return FilterChain(built)
