"""What ``warckit serve`` serves: collections, where their WARCs are, the listening address.

The same settings come from the command line (``NAME=INDEX``, ``--archive``, ``--writable``…)
or from a TOML or YAML file (``--config``; the suffix decides); flags given on the command
line override the file's. Everything is checked here, before the server starts, so a bad
setting is one :class:`~warckit.errors.UsageError` line and exit status 2.

A config file (TOML; YAML has the same keys)::

    host = "127.0.0.1"
    port = 8080
    data = "/var/lib/warckit"      # where writable collections keep their SQLite store
    workers = 1
    replay = "http://localhost:8081/{coll}/{timestamp}/{url}"

    [collections.web]
    index = ["web-2024.cdxj", "web-2025.idx"]    # one path or a list (stacked)
    archive = ["/data/warcs", "s3://bucket/warcs/"]

    [collections.inbox]
    writable = true
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import UsageError
from ..io.remote import add_storage_option, default_storage_options, is_url

__all__ = ["CollectionSpec", "ServeConfig", "apply_storage_options", "build_config", "index_kind",
           "load_config_file", "parse_assignment"]

#: Keys a config file may have at the top level, and in a collection.
_TOP_KEYS = frozenset({"host", "port", "data", "workers", "replay", "collections",
                       "storage_options"})
_COLLECTION_KEYS = frozenset({"index", "archive", "writable"})


@dataclass(frozen=True)
class CollectionSpec:
    """One collection: its sorted indexes (stacked) or a writable store, and its WARC locations."""

    name: str
    indexes: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    writable: bool = False


@dataclass(frozen=True)
class ServeConfig:
    """Every setting of ``warckit serve`` (see the module docstring)."""

    host: str = "127.0.0.1"
    port: int = 8080
    data: str | None = None
    workers: int = 1
    replay: str | None = None
    collections: tuple[CollectionSpec, ...] = field(default_factory=tuple)
    #: fsspec options (``KEY=VALUE``, as ``--storage-option``) for URL indexes and archives.
    storage_options: tuple[str, ...] = ()

    def to_json(self) -> str:
        """The config as JSON (how uvicorn worker processes receive it)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        raw = json.loads(text)
        colls = tuple(CollectionSpec(c["name"], tuple(c["indexes"]), tuple(c["archives"]),
                                     bool(c["writable"])) for c in raw.pop("collections"))
        return cls(collections=colls, storage_options=tuple(raw.pop("storage_options")), **raw)

    def store_path(self, name: str) -> str:
        """The SQLite file of writable collection *name*."""
        assert self.data is not None
        return os.path.join(self.data, f"{name}.sqlite")


def index_kind(path: str) -> str:
    """``"parquet"`` (a directory or ``.parquet`` file), ``"zipnum"`` (``.idx``) or ``"plain"``."""
    if path.endswith(".parquet") or (not is_url(path) and os.path.isdir(path)):
        return "parquet"
    if path.endswith((".idx", ".summary")):
        return "zipnum"
    return "plain"


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    """``NAME=VALUE`` → ``(NAME, VALUE)``; a usage error naming *option* otherwise."""
    name, sep, value = text.partition("=")
    if not sep or not value:
        raise UsageError(f"{option}: expected NAME=VALUE, not {text!r}")
    check_name(name, option)
    return name, value


def check_name(name: str, where: str) -> None:
    """A collection name is one URL path segment that no route takes."""
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name):
        raise UsageError(f"{where}: bad collection name {name!r} (letters, digits, '-', '_', '.')")


def _strings(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise UsageError(f"{where}: expected a string or a list of strings, not {value!r}")


def load_config_file(path: str) -> dict[str, Any]:
    """The settings in a TOML (``.toml``) or YAML (``.yaml``/``.yml``) file, as a dict.

    Relative paths in it are taken relative to the file's directory.

    Raises:
        UsageError: the file is missing, not parseable, or has unknown keys or bad values.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    raw = _parse(data, path)
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: expected a table of settings at the top")
    unknown = sorted(set(raw) - _TOP_KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown setting(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(_TOP_KEYS))}")
    base = os.path.dirname(os.path.abspath(path))
    colls = raw.get("collections", {})
    if not isinstance(colls, dict):
        raise UsageError(f"{path}: 'collections' must be a table of NAME = {{index, archive, writable}}")
    out_colls: dict[str, dict[str, Any]] = {}
    for name, spec in colls.items():
        where = f"{path}: collections.{name}"
        check_name(str(name), where)
        if not isinstance(spec, dict):
            raise UsageError(f"{where}: expected a table with index, archive, writable")
        bad = sorted(set(spec) - _COLLECTION_KEYS)
        if bad:
            raise UsageError(f"{where}: unknown key(s) {', '.join(bad)}; "
                             f"known: {', '.join(sorted(_COLLECTION_KEYS))}")
        writable = spec.get("writable", False)
        if not isinstance(writable, bool):
            raise UsageError(f"{where}.writable: expected true or false, not {writable!r}")
        out_colls[str(name)] = {
            "indexes": [_relative(base, p) for p in _strings(spec.get("index", []), f"{where}.index")],
            "archives": [_relative(base, p) for p in _strings(spec.get("archive", []), f"{where}.archive")],
            "writable": writable,
        }
    raw["collections"] = out_colls
    if "storage_options" in raw:
        raw["storage_options"] = _strings(raw["storage_options"], f"{path}: storage_options")
    if isinstance(raw.get("data"), str):
        raw["data"] = _relative(base, raw["data"])
    return raw


def _parse(data: bytes, path: str) -> Any:
    """The TOML or YAML document in *data* (the suffix of *path* says which)."""
    lower = path.lower()
    if lower.endswith(".toml"):
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
        try:
            return tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}: not valid TOML: {' '.join(str(exc).split())}") from None
    if lower.endswith((".yaml", ".yml")):
        try:
            import yaml  # type: ignore[import-untyped, unused-ignore]
        except ModuleNotFoundError:
            raise UsageError(f"{path}: a YAML config needs PyYAML: pip install 'warckit[serve]'"
                             ) from None
        try:
            return yaml.safe_load(data) or {}
        except yaml.YAMLError as exc:
            raise UsageError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    raise UsageError(f"{path}: a config file is .toml, .yaml or .yml")


def _relative(base: str, path: str) -> str:
    if is_url(path) or os.path.isabs(path):
        return path
    return os.path.join(base, os.path.expanduser(path))


def build_config(
    assignments: Sequence[str],
    *,
    archives: Iterable[str] = (),
    writable: Iterable[str] = (),
    file_settings: Mapping[str, Any] | None = None,
    host: str | None = None,
    port: int | None = None,
    data: str | None = None,
    workers: int | None = None,
    replay: str | None = None,
    storage_options: Iterable[str] = (),
) -> ServeConfig:
    """Combine the config file's settings (*file_settings*) and the command line's.

    A collection named on the command line (``NAME=INDEX``) takes the indexes given there
    instead of the file's; ``--archive NAME=…`` likewise replaces its archive locations.

    Raises:
        FileNotFoundError: an index is missing.
        UsageError: a bad ``NAME=INDEX``, an ``--archive`` or
            ``--writable`` name clash, a writable collection without a data directory, a
            bad port or worker count, no collection at all.
    """
    settings = dict(file_settings or {})
    colls: dict[str, dict[str, Any]] = {
        name: {"indexes": list(c["indexes"]), "archives": list(c["archives"]),
               "writable": c["writable"]}
        for name, c in settings.get("collections", {}).items()
    }
    cli_indexes: dict[str, list[str]] = {}
    for text in assignments:
        name, path = parse_assignment(text, "NAME=INDEX")
        cli_indexes.setdefault(name, []).append(path)
    for name, paths in cli_indexes.items():
        colls.setdefault(name, {"indexes": [], "archives": [], "writable": False})["indexes"] = paths
    for name in writable:
        check_name(name, "--writable")
        if name in cli_indexes:
            raise UsageError(f"--writable {name}: {name} is already a collection of indexes "
                             "(a writable collection starts empty)")
        colls.setdefault(name, {"indexes": [], "archives": [], "writable": False})["writable"] = True
    cli_archives: dict[str, list[str]] = {}
    for text in archives:
        name, where = parse_assignment(text, "--archive")
        if name not in colls:
            raise UsageError(f"--archive {text}: no collection named {name!r}")
        cli_archives.setdefault(name, []).append(where)
    for name, places in cli_archives.items():
        colls[name]["archives"] = places

    out_data = data if data is not None else settings.get("data")
    specs = []
    for name, c in colls.items():
        if c["writable"] and c["indexes"]:
            raise UsageError(f"collection {name}: writable and with indexes; "
                             "a writable collection starts empty")
        if not c["writable"] and not c["indexes"]:
            raise UsageError(f"collection {name}: no index (give {name}=INDEX or make it writable)")
        for path in c["indexes"]:
            _check_index(path)
        places = c["archives"] or [_beside(p) for p in c["indexes"]]
        for place in places:
            if not is_url(place) and not os.path.isdir(place):
                raise UsageError(f"collection {name}: archive {place}: not a directory or URL")
        specs.append(CollectionSpec(name, tuple(c["indexes"]), tuple(dict.fromkeys(places)),
                                    c["writable"]))
    if not specs:
        raise UsageError("nothing to serve: give NAME=INDEX, --writable NAME or --config FILE")
    if any(s.writable for s in specs):
        if not out_data:
            raise UsageError("a writable collection needs --data DIR (where its store is kept)")
        if os.path.exists(out_data) and not os.path.isdir(out_data):
            raise UsageError(f"--data {out_data}: not a directory")
    config = ServeConfig(
        host=str(host if host is not None else settings.get("host", "127.0.0.1")),
        port=_int(port if port is not None else settings.get("port", 8080), "port", 0, 65535),
        data=out_data,
        workers=_int(workers if workers is not None else settings.get("workers", 1), "workers",
                     1, 256),
        replay=replay if replay is not None else settings.get("replay"),
        collections=tuple(specs),
        storage_options=(*settings.get("storage_options", ()), *storage_options),
    )
    if config.replay is not None and not isinstance(config.replay, str):
        raise UsageError(f"replay: expected a URL template, not {config.replay!r}")
    for text in config.storage_options:
        add_storage_option({}, text)  # checked here: a bad one is a usage error now
    return config


def apply_storage_options(config: ServeConfig) -> None:
    """Make *config*'s storage options the process default for URL inputs (a worker's too)."""
    defaults = default_storage_options()
    for text in config.storage_options:
        add_storage_option(defaults, text)


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise UsageError(f"{what}: expected a whole number from {low} to {high}, not {value!r}")
    return value


def _check_index(path: str) -> None:
    if is_url(path):
        return
    if not os.path.exists(path):  # unreadable input, as for every command: exit 1
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    # A Parquet index directory holds .parquet files (warckit index -f parquet).
    if os.path.isdir(path) and not path.endswith(".parquet") and not any(n.endswith(".parquet") for _r, _d, names in os.walk(path) for n in names):
        raise UsageError(f"{path}: a directory, but no Parquet index in it")


def _beside(index: str) -> str:
    """Where an index's WARCs are by default: its own directory (or URL prefix)."""
    if is_url(index):
        return index.rsplit("/", 1)[0] + "/"
    return os.path.dirname(os.path.abspath(index.rstrip("/"))) or "."

