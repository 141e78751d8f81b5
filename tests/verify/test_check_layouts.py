"""check's head layouts (:mod:`warckit.check.layout`): a record of a layout seen before
is checked from its values by position; the report is the one the field rules make from
its fields by name, whatever layouts were learnt before (none, this file's, another's)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_paths import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warckit.check import layout as check_layout
from warckit.check import report as check_report
from warckit.check.report import check_file


class _Forgetful(dict):  # type: ignore[type-arg]
    """Layouts that are never kept: every record takes the path by field name."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


@pytest.fixture
def forgetting(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def use(forget: bool) -> None:
        layouts: dict[Any, Any] = _Forgetful() if forget else {}
        monkeypatch.setattr(check_layout, "LAYOUTS", layouts)
        monkeypatch.setattr(check_report, "LAYOUTS", layouts)

    yield use  # type: ignore[misc]


def _reports(path: Any, forgetting: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    forgetting(False)
    cold = check_file(path).as_dict()
    warm = check_file(path).as_dict()  # (every layout of the file known from the start)
    forgetting(True)
    by_name = check_file(path).as_dict()
    return cold, warm, by_name


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".tsv"))


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_reports_do_not_depend_on_the_layouts_learnt(path: Path, forgetting: Any) -> None:
    cold, warm, by_name = _reports(path, forgetting)
    assert cold == by_name
    assert warm == by_name


_NAMES = ["WARC-Type", "WARC-Record-ID", "WARC-Date", "Content-Length", "Content-Type", "WARC-Target-URI",
          "WARC-Concurrent-To", "WARC-Warcinfo-ID", "WARC-Refers-To", "WARC-Profile", "WARC-Block-Digest",
          "WARC-Payload-Digest", "WARC-IP-Address", "WARC-Segment-Number", "WARC-Truncated", "X-Note",
          "warc-type", "WARC-Filename"]
_VALUES = {
    "WARC-Type": ["response", "resource", "metadata", "revisit", "warcinfo", "request", "continuation",
                  "conversion", "Response", "odd", " response ", ""],
    "WARC-Record-ID": ["<urn:uuid:1>", "<urn:uuid:2>", "<urn:uuid:3>", "urn:uuid:4", "<bad id>", ""],
    "WARC-Date": ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123Z", "2024-01-02", "yesterday"],
    "WARC-Target-URI": ["http://example.com/", "<http://example.com/>", "not a uri", ""],
    "WARC-Concurrent-To": ["<urn:uuid:1>", "<urn:uuid:9>", " <urn:uuid:2> ", "x"],
    "WARC-Warcinfo-ID": ["<urn:uuid:1>", "urn:uuid:1", "<urn:uuid:8>"],
    "WARC-Refers-To": ["<urn:uuid:2>", "<urn:uuid:7>"],
    "WARC-Profile": ["http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
                     "http://netpreserve.org/warc/1.0/revisit/server-not-modified", "http://x/other"],
    "WARC-Block-Digest": ["sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "sha1:AAAA", "md5:x", ""],
    "WARC-Payload-Digest": ["sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "sha1:BBBB"],
    "WARC-IP-Address": ["1.2.3.4", "::1", "300.1.1.1"],
    "WARC-Segment-Number": ["1", "2", "0", "x"],
    "WARC-Truncated": ["length", "other"],
    "Content-Type": ["text/plain", "application/http; msgtype=response", "bad type"],
}


@st.composite
def _warc(draw: st.DrawFn) -> bytes:
    """Records that share a few layouts (field names in order) with values good and bad."""
    layouts = draw(st.lists(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=9), min_size=1, max_size=3))
    out = []
    for _ in range(draw(st.integers(1, 8))):
        names = draw(st.sampled_from(layouts))
        body = draw(st.sampled_from([b"", b"hello", b"HTTP/1.1 200 OK\r\n\r\nhi"]))
        version = draw(st.sampled_from([b"WARC/1.1", b"WARC/1.0", b"WARC/1.1", b"WARC/0.18"]))
        lines = []
        for n in names:
            if n == "Content-Length":
                value = str(len(body))
            else:
                value = draw(st.sampled_from(_VALUES.get(n, _VALUES.get(n.title(), ["x", ""]))))
            lines.append(f"{n}: {value}\r\n".encode())
        if "Content-Length" not in names:
            lines.append(b"Content-Length: %d\r\n" % len(body))
        out.append(version + b"\r\n" + b"".join(lines) + b"\r\n" + body + b"\r\n\r\n")
    return b"".join(out)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_warc())
def test_reports_by_position_are_the_reports_by_name(forgetting: Any, tmp_path_factory: Any, data: bytes) -> None:
    path = tmp_path_factory.mktemp("layouts") / f"{hashlib.sha1(data).hexdigest()}.warc"
    path.write_bytes(data)
    cold, warm, by_name = _reports(path, forgetting)
    assert cold == by_name
    assert warm == by_name


def test_a_layout_is_kept_per_version_and_names(forgetting: Any, tmp_path: Path) -> None:
    forgetting(False)
    head = (b"WARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\nWARC-Date: 2024-01-02T03:04:05Z\r\n"
            b"WARC-Target-URI: http://x/\r\nContent-Type: text/plain\r\n")
    data = b"".join(b"WARC/1.1\r\n" + head % i + b"Content-Length: 0\r\n\r\n\r\n\r\n" for i in range(3))
    (tmp_path / "a.warc").write_bytes(data)
    report = check_file(tmp_path / "a.warc")
    assert report.codes() == {"warcinfo-not-first"}
    assert [r.record_id for r in report.records] == ["<urn:uuid:0>", "<urn:uuid:1>", "<urn:uuid:2>"]
    names = b"WARC-Type:WARC-Record-ID:WARC-Date:WARC-Target-URI:Content-Type:Content-Length:"
    assert list(check_layout.LAYOUTS) == [("1.1", names)]
    lay = check_layout.LAYOUTS["1.1", names]
    assert (lay.wtype, lay.record_id, lay.refs) == (0, 1, ())
    # The quick tests by position, in the rule table's order: WARC-Record-ID a bracketed
    # URI (kind 1), Content-Length digits (2), WARC-Date WARC 1.1's date (10), WARC-Type
    # a type (6), Content-Type a media type (3), WARC-Target-URI a URI (0).
    assert lay.steps == {"resource": ((1, 1), (5, 2), (2, 10), (0, 6), (4, 3), (3, 0))}
    assert check_file(tmp_path / "a.warc").codes() == {"warcinfo-not-first"}


def test_long_names_are_not_kept(forgetting: Any, tmp_path: Path) -> None:
    forgetting(False)
    many = b"".join(b"X-%05d: y\r\n" % i for i in range(600))
    data = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            b"WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://x/\r\n" + many +
            b"Content-Length: 0\r\n\r\n\r\n\r\n")
    (tmp_path / "a.warc").write_bytes(data)
    assert check_file(tmp_path / "a.warc").ok
    assert check_layout.LAYOUTS == {}
