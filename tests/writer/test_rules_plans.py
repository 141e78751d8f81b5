"""record.rules: the per-shape plans (and their one call checking every value) give the
findings of the rule table walked field by field."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from warckit._speedups import _headers_py as _syntax
from warckit.record import rules
from warckit.record.headers import Headers

_GOOD = [
    ("WARC-Type", "response"),
    ("WARC-Record-ID", "<urn:uuid:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0>"),
    ("WARC-Date", "2024-01-02T03:04:05Z"),
    ("WARC-Target-URI", "http://example.com/a"),
    ("Content-Type", 'application/http; msgtype=response; x="q"'),
    ("WARC-IP-Address", "192.0.2.1"),
    ("WARC-Block-Digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ("WARC-Concurrent-To", "<urn:uuid:1>"),
    ("WARC-Concurrent-To", "<urn:uuid:2>"),
    ("Content-Length", "10"),
]


def _field_by_field(headers: Headers, version: str) -> tuple[object, ...]:
    """The reference: the same checks with the plans' one-call check of every value off."""
    rules._PLANS.clear()
    quick, rules._accept_values = rules._accept_values, lambda groups, steps: False
    try:
        return rules.validate_headers(headers, version, offset=7, source="s")
    finally:
        rules._accept_values = quick
        rules._PLANS.clear()


def test_a_bad_value_in_a_planned_shape_is_found() -> None:
    rules._PLANS.clear()
    for _ in range(3):
        assert rules.validate_headers(Headers(_GOOD), "1.1") == ()
    plan = next(iter(rules._PLANS.values()))
    assert plan.quick is not None and ("warc-date", _syntax.DATE_11) in plan.quick
    bad = [(n, "2024-13-02T03:04:05" if n == "WARC-Date" else v) for n, v in _GOOD]
    found = rules.validate_headers(Headers(bad), "1.1", offset=7, source="s")
    assert [(i.code, i.field, i.offset) for i in found] == [("bad-syntax", "WARC-Date", 7)]
    assert found == _field_by_field(Headers(bad), "1.1")


def test_a_nul_inside_a_value_is_one_value() -> None:
    # Were the values joined with NUL, 'text/html;a="x' NUL 'y"' NUL '<urn:x>' would read
    # as a good media type and a good URI: two bad values would pass.
    good = [("WARC-Type", "response"), ("Content-Type", "text/html"), ("WARC-Concurrent-To", "<urn:y>")]
    bad = [("WARC-Type", "response"), ("Content-Type", 'text/html;a="x'), ("WARC-Concurrent-To", 'y"\x00<urn:x>')]
    for _ in range(3):
        rules.validate_headers(Headers(good), "1.1")
    got = rules.validate_headers(Headers(bad), "1.1", offset=7, source="s")
    assert {(i.code, i.field) for i in got} >= {("bad-syntax", "Content-Type"), ("bad-syntax", "WARC-Concurrent-To")}
    assert got == _field_by_field(Headers(bad), "1.1")


_VALUES = st.one_of(
    st.sampled_from(["response", "Response", "x", "", " ", "<urn:x>", "urn:x", "< urn:x>", "10", "0", "-1",
                     "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.5Z", "2024-01-02", "text/html", "text/ html",
                     'text/html;a="b\\"c"', "192.0.2.1", "01.2.3.4", "::1", "sha1:ABC", "sha1:AB=", "length",
                     "\x00", "a\x00b", "http://x/\x00", "http://x y"]),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([n for n, _ in _GOOD] + ["WARC-Truncated", "WARC-Segment-Number"]),
                          _VALUES), max_size=12),
       st.sampled_from(["1.0", "1.1"]))
def test_plans_agree_with_the_table_walked_field_by_field(fields: list[tuple[str, str]], version: str) -> None:
    headers = Headers(fields)
    expected = _field_by_field(headers, version)
    for _ in range(3):
        assert rules.validate_headers(headers, version, offset=7, source="s") == expected
