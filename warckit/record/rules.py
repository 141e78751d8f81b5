"""Table-driven validation of WARC record heads, one rule table per WARC version.

The same tables drive the guided writer (a record breaking an ``error`` rule is
refused before a byte is written) and ``warckit check`` (every broken rule is a
finding). Source: WARC 1.1 §5-§7 and WARC 1.0 §5-§6, summarised in SPEC-DIGEST §1.2,
§1.3 (the mandatory / forbidden table), §1.6 and §1.7.

Severities: ``error`` = a "shall" of the standard is broken; ``warning`` = a "should"
or a community recommendation (WARC 1.1-annotated) is not followed, or the value is
readable only leniently.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .._util.dates import parse_warc_date
from .._speedups import _headers_py as _syntax
from .._speedups.headers import impl as _hp
from ..errors import Issue
from .headers import Headers

__all__ = [
    "PROFILE_URIS",
    "RECORD_TYPES",
    "RULES",
    "FieldRule",
    "RuleTable",
    "forbidden_fields",
    "group_fields",
    "mandatory_fields",
    "profile_name",
    "rules_for",
    "validate",
    "validate_grouped",
    "validate_headers",
]

#: The record types WARC 1.0 and 1.1 define (§6).
RECORD_TYPES: tuple[str, ...] = (
    "warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion",
    "continuation",
)
_ALL = frozenset(RECORD_TYPES)

#: Revisit profile URIs by version and profile name (WARC 1.1 §6.7, SPEC-DIGEST §1.6).
PROFILE_URIS: Mapping[str, Mapping[str, str]] = {
    "1.1": {
        "identical-payload-digest": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
        "server-not-modified": "http://netpreserve.org/warc/1.1/revisit/server-not-modified",
    },
    "1.0": {
        "identical-payload-digest": "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",
        "server-not-modified": "http://netpreserve.org/warc/1.0/revisit/server-not-modified",
    },
}

# RFC 2616 §2.2 token: any CHAR except CTLs and separators.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_URI = _syntax.SYNTAX[_syntax.URI]
_BRACKETED_URI = _syntax.SYNTAX[_syntax.BRACKETED_URI]
_DIGITS = _syntax.SYNTAX[_syntax.DIGITS]
_MEDIA_TYPE = _syntax.SYNTAX[_syntax.MEDIA_TYPE]
_DATE_10 = _syntax.SYNTAX[_syntax.DATE_10]
_DATE_11 = _syntax.SYNTAX[_syntax.DATE_11]
_IPV4 = _syntax.SYNTAX[_syntax.IPV4]
_TRUNCATED = frozenset({"length", "time", "disconnect", "unspecified"})


Checker = Callable[[str, str], tuple[str, str] | None]
"""A syntax check: ``(value, version) -> None`` or ``(severity, message)``."""


def _uri(value: str, version: str) -> tuple[str, str] | None:
    if _URI.match(value):
        return None
    if _BRACKETED_URI.match(value):
        # Quirk: WARC 1.0's grammar writes uri as "<" URI ">" but its own examples (and
        # most writers) omit the brackets; wget 1.14 wrote them. Both are accepted in 1.0.
        if version == "1.0":
            return None
        return ("error", "a URI in WARC 1.1 has no enclosing angle brackets")
    if any(c in value for c in " \t"):
        return ("error", "a URI must not contain whitespace (percent-encode it as %20)")
    return ("error", "not a URI (RFC 3986: scheme ':' …, no spaces or controls)")


def _bracketed_uri(value: str, version: str) -> tuple[str, str] | None:
    if _BRACKETED_URI.match(value):
        return None
    if _URI.match(value):
        return ("error", "must be a URI in angle brackets: '<' uri '>'")
    return ("error", "not a '<' uri '>' (no whitespace allowed inside)")


def _digits(value: str, version: str) -> tuple[str, str] | None:
    return None if _DIGITS.match(value) else ("error", "must be decimal digits (1*DIGIT)")


def _segment_number(value: str, version: str) -> tuple[str, str] | None:
    if not _DIGITS.match(value):
        return ("error", "must be decimal digits (1*DIGIT)")
    if int(value) < 1:
        return ("error", "segment numbers start at 1")
    return None


def _date(value: str, version: str) -> tuple[str, str] | None:
    if version == "1.0":
        if _DATE_10.match(value):
            return None
        if _DATE_11.match(value):
            return ("error", "WARC 1.0 dates are YYYY-MM-DDThh:mm:ssZ (no fraction, "
                             "no other granularity); fractions need WARC/1.1")
    elif _DATE_11.match(value):
        return None
    if parse_warc_date(value) is not None:
        return ("error", "not a W3C-ISO8601 UTC date ending in 'Z'")
    return ("error", "not a date (W3C-ISO8601, e.g. 2024-01-02T03:04:05Z)")


def _digest(value: str, version: str) -> tuple[str, str] | None:
    label, sep, digest = value.partition(":")
    if not sep or not label or not digest:
        return ("error", "must be algorithm ':' digest-value")
    if not _TOKEN.match(label):
        return ("error", "the algorithm label is not a token")
    if not _TOKEN.match(digest):
        # Quirk: base32 padding '=' and base64 '/' are not token characters
        # (WARC 1.1-annotated #48); readers accept them, writers should not produce them.
        return ("warning", "the digest value is not a token (base64 or padded base32?)")
    return None


def _media_type(value: str, version: str) -> tuple[str, str] | None:
    return None if _MEDIA_TYPE.match(value) else ("error", "not a media type (type/subtype;param=value)")


def _ip(value: str, version: str) -> tuple[str, str] | None:
    if _IPV4.match(value):
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return ("error", "not an IPv4 or IPv6 address")
    return None


def _token(value: str, version: str) -> tuple[str, str] | None:
    return None if _TOKEN.match(value) else ("error", "must be a token")


def _truncated(value: str, version: str) -> tuple[str, str] | None:
    if not _TOKEN.match(value):
        return ("error", "must be a token")
    if value not in _TRUNCATED:
        return ("warning", "not one of length, time, disconnect, unspecified (extension value?)")
    return None


def _wtype(value: str, version: str) -> tuple[str, str] | None:
    if value in _ALL:
        return None
    if value.lower() in _ALL:
        return ("warning", "record types are written in lowercase")
    return ("warning", "unknown record type (readers skip it)")


def _text(value: str, version: str) -> tuple[str, str] | None:
    return None


@dataclass(frozen=True, slots=True)
class FieldRule:
    """What one WARC named field may be, per record type.

    Attributes:
        name: The field name as the standard spells it.
        syntax: Checks a value; ``None`` when it is fine.
        mandatory: Types on which the field shall appear.
        forbidden: Types on which it shall not appear.
        repeatable: The field may occur more than once.
        section: The standard's section, cited in messages.
    """

    name: str
    syntax: Checker
    mandatory: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    repeatable: bool = False
    section: str = ""


@dataclass(frozen=True, slots=True)
class RuleTable:
    """All field rules of one WARC version."""

    version: str
    rules: tuple[FieldRule, ...]
    by_name: Mapping[str, FieldRule] = field(default_factory=dict)
    #: ``(lowercased name, rule)`` for every rule, in table order.
    keyed: tuple[tuple[str, FieldRule], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {r.name.lower(): r for r in self.rules})
        object.__setattr__(self, "keyed", tuple((r.name.lower(), r) for r in self.rules))


def _f(*types: str) -> frozenset[str]:
    return frozenset(types)


def _table(version: str) -> RuleTable:
    v11 = version == "1.1"
    rules = [
        FieldRule("WARC-Record-ID", _bracketed_uri, _ALL, section="5.2"),
        FieldRule("Content-Length", _digits, _ALL, section="5.3"),
        FieldRule("WARC-Date", _date, _ALL, section="5.4"),
        FieldRule("WARC-Type", _wtype, _ALL, section="5.5"),
        FieldRule("Content-Type", _media_type, section="5.6"),
        FieldRule("WARC-Concurrent-To", _bracketed_uri,
                  forbidden=_f("warcinfo", "conversion", "continuation"), repeatable=True,
                  section="5.7"),
        FieldRule("WARC-Block-Digest", _digest, section="5.8"),
        FieldRule("WARC-Payload-Digest", _digest, forbidden=_f("warcinfo", "metadata"),
                  section="5.9"),
        FieldRule("WARC-IP-Address", _ip, forbidden=_f("warcinfo", "conversion", "continuation"),
                  section="5.10"),
        FieldRule("WARC-Refers-To", _bracketed_uri,
                  forbidden=_f("warcinfo", "response", "resource", "request", "continuation"),
                  section="5.11"),
        FieldRule("WARC-Target-URI", _uri,
                  _f("response", "resource", "request", "revisit", "conversion", "continuation"),
                  forbidden=_f("warcinfo"), section="5.12" if v11 else "5.11"),
        FieldRule("WARC-Truncated", _truncated, section="5.13"),
        FieldRule("WARC-Warcinfo-ID", _bracketed_uri, forbidden=_f("warcinfo"), section="5.14"),
        FieldRule("WARC-Filename", _text, forbidden=_ALL - {"warcinfo"}, section="5.15"),
        FieldRule("WARC-Profile", _uri, _f("revisit"), section="5.16"),
        FieldRule("WARC-Identified-Payload-Type", _media_type, forbidden=_f("warcinfo", "metadata"),
                  section="5.17"),
        FieldRule("WARC-Segment-Number", _segment_number, _f("continuation"), section="5.18"),
        FieldRule("WARC-Segment-Origin-ID", _bracketed_uri, _f("continuation"),
                  forbidden=_ALL - {"continuation"}, section="5.19"),
        FieldRule("WARC-Segment-Total-Length", _digits, forbidden=_ALL - {"continuation"},
                  section="5.20"),
    ]
    if v11:
        rules += [
            FieldRule("WARC-Refers-To-Target-URI", _uri, forbidden=_ALL - {"revisit"},
                      section="5.11"),
            FieldRule("WARC-Refers-To-Date", _date, forbidden=_ALL - {"revisit"}, section="5.11"),
        ]
    # Quirk: WARC 1.0 does not define WARC-Refers-To-Target-URI / -Date; Heritrix writes
    # them into WARC/1.0 revisits anyway (IIPC dedup proposal). In 1.0 they are
    # extension fields: allowed, not checked.
    return RuleTable(version, tuple(rules))


#: Rule tables by version.
RULES: Mapping[str, RuleTable] = {"1.1": _table("1.1"), "1.0": _table("1.0")}


def rules_for(version: str) -> RuleTable:
    """The rule table for *version* (``"1.0"`` or ``"1.1"``; others get 1.0's)."""
    return RULES.get(version, RULES["1.0"])


def mandatory_fields(version: str, record_type: str) -> tuple[str, ...]:
    """The fields a *record_type* record shall carry in *version*, in table order.

    Conditional rules (the payload digest of an identical-payload-digest revisit) are
    not included.
    """
    return tuple(r.name for r in rules_for(version).rules if record_type in r.mandatory)


def forbidden_fields(version: str, record_type: str) -> tuple[str, ...]:
    """The fields a *record_type* record shall not carry in *version*."""
    return tuple(r.name for r in rules_for(version).rules if record_type in r.forbidden)


def profile_name(uri: str | None) -> str | None:
    """``identical-payload-digest`` / ``server-not-modified`` from a profile URI (path suffix)."""
    if not uri:
        return None
    last = uri.strip().strip("<>").rstrip("/").rsplit("/", 1)[-1].lower()
    if last in ("identical-payload-digest", "server-not-modified"):
        return last
    # Quirk: pywb/warcio write the non-standard "uri-agnostic-identical-payload-digest";
    # it follows the identical-payload-digest rules (docs/check.rst).
    if last.endswith("-identical-payload-digest"):
        return "identical-payload-digest"
    return None


def validate_headers(
    headers: Headers,
    version: str,
    *,
    block_length: int | None = None,
    source: str | None = None,
    offset: int | None = None,
) -> tuple[Issue, ...]:
    """Check a record head against the rule table of *version*.

    Args:
        headers: The record's named fields.
        version: ``"1.1"`` or ``"1.0"``.
        block_length: Actual block size, when known (checks Content-Type advice).
        source: File name for the findings.
        offset: Record offset for the findings.

    Returns:
        Every broken rule, as :class:`~warckit.errors.Issue` (empty when valid).
    """
    return validate_grouped(headers.grouped(), version, block_length=block_length, source=source,
                            offset=offset)


def group_fields(fields: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """``{lowercased name: [values in order]}`` in one pass over the fields (what
    :meth:`Headers.all` gives for every name, without a lookup per name;
    :meth:`Headers.grouped` for a record's head)."""
    return _hp.group_fields(fields)


_SEGMENT = _syntax.SYNTAX[_syntax.SEGMENT]


def _accept(syntax: Checker, version: str) -> int | None:
    """The kind of quick test (:data:`warckit._speedups._headers_py.SYNTAX`) for values
    *syntax* accepts: where it matches a value as stored, *syntax* returns None for the
    value stripped (no match: ask *syntax*)."""
    quick: dict[Checker, int] = {
        _uri: _syntax.URI, _bracketed_uri: _syntax.BRACKETED_URI, _digits: _syntax.DIGITS,
        _media_type: _syntax.MEDIA_TYPE, _ip: _syntax.IPV4, _digest: _syntax.DIGEST, _wtype: _syntax.WTYPE,
        _truncated: _syntax.TRUNCATED, _segment_number: _syntax.SEGMENT,
        _date: _syntax.DATE_10 if version == "1.0" else _syntax.DATE_11,
    }
    return quick.get(syntax)


#: A plan step: the rule, the key whose values to check (None: none), the findings that
#: follow from the head's shape, and the kind of quick test whose match means the value
#: is fine (None: none).
_Step = tuple["FieldRule", str | None, tuple[tuple[str, str], ...], int | None]


class _Plan:
    """What to do per rule for heads of one shape (see :func:`_plan`).

    Besides the steps, a plan whose checked values all have quick tests keeps them as
    ``(key, kind)`` pairs: one call of ``accept_values`` (compiled) says every value is fine.
    """

    __slots__ = ("clean", "findings", "quick", "steps")

    def __init__(self, steps: tuple[_Step, ...], rtype: str, grouped: dict[str, list[str]]) -> None:
        self.steps = steps
        self.findings = tuple((code, rule.name, message) for rule, _, found, _ in steps for code, message in found)
        quick = [(key, kind) for _, key, _, kind in steps if key is not None]
        self.quick: tuple[tuple[str, int], ...] | None = tuple(quick)  # type: ignore[arg-type]
        if not quick or any(kind is None for _, kind in quick):
            self.quick = None
        #: Whether heads of this shape whose values pass the quick tests break no rule: no
        #: finding from the shape, and no conditional rule that applies (they depend on the
        #: record type and which fields occur, both part of the shape).
        self.clean = self.quick is not None and not self.findings and (
            rtype not in _ALL or (rtype != "revisit" and "warc-segment-number" not in grouped
                                  and (rtype == "continuation" or "content-type" in grouped)))


_PLANS: dict[tuple[object, ...], _Plan] = {}
_PLANS_MAX = 512
#: Whether every value of the given ``(key, kind)`` steps passes its quick test.
_accept_values = _hp.accept_values


def _plan(table: RuleTable, version: str, rtype: str, known: bool, grouped: dict[str, list[str]]) -> _Plan:
    """The plan for a head of this shape: per rule ``(rule, key whose values to check or
    None, (code, message) of the findings that follow from the shape alone, quick test)``.

    The shape is the version, the record type and which fields occur how often: most
    records of a file share a few shapes, so the rule table is walked once per shape.
    """
    shape = (version, rtype, tuple(grouped), tuple(map(len, grouped.values())))
    plan = _PLANS.get(shape)
    if plan is not None:
        return plan
    steps: list[_Step] = []
    found: list[tuple[str, str]] = []
    add = found.append
    for key, rule in table.keyed:
        values = grouped.get(key)
        if not values:
            if known and rtype in rule.mandatory:
                add(("missing-field",
                     f"{rule.name} is mandatory on {rtype} records (WARC {version} §{rule.section})"))
            elif not known and rule.mandatory == _ALL:
                add(("missing-field",
                     f"{rule.name} is mandatory on every record (WARC {version} §{rule.section})"))
            if found:
                steps.append((rule, None, tuple(found), None))
                found.clear()
            continue
        if known and rtype in rule.forbidden:
            add(("forbidden-field",
                 f"{rule.name} shall not appear on {rtype} records (WARC {version} §{rule.section})"))
        if len(values) > 1 and not rule.repeatable:
            add(("repeated-field",
                 (f"{rule.name} occurs {len(values)} times; only WARC-Concurrent-To may repeat "
                  f"(WARC {version} §{rule.section})")))
        checked = rule.syntax is not _text
        if found or checked:
            steps.append((rule, key if checked else None, tuple(found), _accept(rule.syntax, version)))
        found.clear()
    plan = _Plan(tuple(steps), rtype, grouped)
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.clear()
    _PLANS[shape] = plan
    return plan


def clean_steps(grouped: dict[str, list[str]], version: str) -> tuple[tuple[str, int], ...] | None:
    """For heads of the shape of *grouped* (its version, WARC-Type and which fields occur
    how often): the quick tests ``(key, kind)`` whose passing every value means
    :func:`validate_grouped` finds nothing; ``None`` when heads of this shape need
    :func:`validate_grouped` itself (the shape breaks a rule, or a conditional one applies).
    """
    wtype_values = grouped.get("warc-type")
    rtype = wtype_values[0].strip() if wtype_values else ""
    plan = _PLANS.get((version, rtype, tuple(grouped), tuple(map(len, grouped.values()))))
    if plan is None:
        plan = _plan(rules_for(version), version, rtype, rtype in _ALL, grouped)
    return plan.quick if plan.clean else None


def validate_grouped(
    grouped: dict[str, list[str]],
    version: str,
    *,
    block_length: int | None = None,
    source: str | None = None,
    offset: int | None = None,
) -> tuple[Issue, ...]:
    """:func:`validate_headers` on a head's fields grouped by lowercased name
    (``{name: [values in order]}``), for a caller that has them grouped already."""
    wtype_values = grouped.get("warc-type")
    rtype = wtype_values[0].strip() if wtype_values else ""
    plan = _PLANS.get((version, rtype, tuple(grouped), tuple(map(len, grouped.values()))))
    if plan is not None and plan.clean and _accept_values(grouped, plan.quick or ()):
        return ()  # (the common case: a head of a shape that breaks no rule, every value fine)
    issues: list[Issue] = []

    def add(code: str, severity: str, name: str, message: str) -> None:
        issues.append(Issue(code, message, severity, offset, source, name))

    known = rtype in _ALL
    if plan is None:
        plan = _plan(rules_for(version), version, rtype, known, grouped)
    quick = plan.quick
    if quick is not None and _accept_values(grouped, quick):
        for code, name, message in plan.findings:
            add(code, "error", name, message)
    else:
        patterns = _syntax.SYNTAX
        for rule, key, found, kind in plan.steps:
            for code, message in found:
                add(code, "error", rule.name, message)
            if key is None:
                continue
            for value in grouped[key]:
                if kind is not None and patterns[kind].match(value):
                    continue
                problem = rule.syntax(value.strip(), version)
                if problem is not None:
                    severity, message = problem
                    add("bad-syntax", severity, rule.name,
                        f"{rule.name} {value!r}: {message} (WARC {version} §{rule.section})")
    if not known:
        return tuple(issues)
    get = grouped.get
    # Conditional rules.
    if rtype == "revisit":
        profiles = get("warc-profile")
        given = profiles[0] if profiles else None
        pname = profile_name(given)
        if given is not None and pname is None:
            add("unknown-profile", "warning", "WARC-Profile",
                "unrecognised revisit profile; readers shall not interpret the record (§6.7)")
        profile = (given or "").strip().strip("<>").rstrip("/")
        if pname is not None and not profile.endswith("/revisit/" + pname):
            add("nonstandard-profile", "warning", "WARC-Profile",
                f"profile URI is not the WARC 1.0/1.1 {pname} URI; matched on its suffix")
        if pname == "identical-payload-digest" and not get("warc-payload-digest"):
            add("missing-field", "error", "WARC-Payload-Digest",
                "WARC-Payload-Digest is mandatory on identical-payload-digest revisits "
                f"(WARC {version} §6.7.2)")
    segs = get("warc-segment-number")
    if segs and _DIGITS.match(segs[0].strip()):
        n = int(segs[0].strip())
        if rtype == "continuation" and n < 2:
            add("bad-segment-number", "error", "WARC-Segment-Number",
                "a continuation record's WARC-Segment-Number is 2 or more (§7)")
        if rtype != "continuation" and n != 1:
            add("bad-segment-number", "error", "WARC-Segment-Number",
                f"a first segment has WARC-Segment-Number 1, not {n} (§7)")
    if rtype != "continuation" and not get("content-type"):
        size = block_length
        if size is None:
            lengths = get("content-length")
            if lengths and _DIGITS.match(lengths[0].strip()):
                size = int(lengths[0].strip())
        if size:
            add("missing-content-type", "warning", "Content-Type",
                f"a {rtype} record with a non-empty block should have a Content-Type (§5.6)")
    return tuple(issues) if issues else ()


def validate(record: object, *, source: str | None = None) -> tuple[Issue, ...]:
    """Validate a record read by warckit (anything with ``headers`` and ``version``)."""
    headers: Headers = getattr(record, "headers")  # noqa: B009 - duck-typed record
    version: str = getattr(record, "version")  # noqa: B009
    return validate_headers(
        headers, version, source=source or getattr(record, "source", None),
        offset=getattr(record, "offset", None),
    )
