"""What ``warckit check`` keeps per head layout: heads with the same field names in
the same order share where each field is, and (per WARC-Type) whether their values
alone decide the field rules."""

from __future__ import annotations

from collections.abc import Iterable

from ..record import rules as _validate

__all__ = ["LAYOUTS", "REFERENCES", "Layout", "layout_of", "names_values"]

#: The fields that name another record (an unknown one is a ``dangling-reference``).
REFERENCES = tuple((f, f.lower()) for f in (
    "WARC-Concurrent-To", "WARC-Refers-To", "WARC-Warcinfo-ID", "WARC-Segment-Origin-ID"))


class Layout:
    """What heads with the same field names in the same order share: where the fields a
    check reads are among their values, and per WARC-Type value the quick tests (by
    position) whose passing means the field rules find nothing (``None``: apply the
    rules). A record of a known layout is checked from its values alone, without
    grouping its fields by name."""

    __slots__ = ("block_digest", "payload_digest", "positions", "record_id", "refs", "steps", "wtype")

    def __init__(self, names: bytes) -> None:
        positions: dict[str, list[int]] = {}
        for i, name in enumerate(names.split(b":")[:-1]):
            positions.setdefault(name.decode("ascii", "surrogateescape").lower(), []).append(i)
        self.positions = positions
        self.wtype = positions["warc-type"][0] if "warc-type" in positions else None
        self.record_id = positions["warc-record-id"][0] if "warc-record-id" in positions else None
        self.refs = tuple((fname, i) for fname, key in REFERENCES for i in positions.get(key, ()))
        self.block_digest = "warc-block-digest" in positions
        self.payload_digest = "warc-payload-digest" in positions
        #: Per WARC-Type value: the quick tests by position (empty: apply the rules).
        self.steps: dict[str, tuple[tuple[int, int], ...]] = {}

    def learn(self, rtype: str, grouped: dict[str, list[str]], version: str) -> None:
        """Keep the quick tests of heads of this layout with WARC-Type *rtype*
        (*grouped*: the fields of one such head by lowercased name)."""
        if len(self.steps) < _LAYOUT_TYPES:
            quick = _validate.clean_steps(grouped, version)
            self.steps[rtype] = () if quick is None else tuple(
                (i, kind) for key, kind in quick for i in self.positions[key])


#: Layouts kept, by (version, field names); more distinct ones than this start over.
LAYOUTS: dict[tuple[str, bytes], Layout] = {}
_LAYOUTS_MAX = 512
#: Names longer than this (bytes) are not kept as a layout (a hostile head).
_LAYOUT_NAMES_MAX = 4096
#: WARC-Type values kept per layout.
_LAYOUT_TYPES = 16


def layout_of(version: str, names: bytes) -> Layout:
    """The layout of heads of *version* with these *names* (as ``field_layout`` gives
    them), kept for the next such head (unless the names are very long)."""
    lay = LAYOUTS.get((version, names))
    if lay is None:
        lay = Layout(names)
        if len(names) <= _LAYOUT_NAMES_MAX:
            if len(LAYOUTS) >= _LAYOUTS_MAX:
                LAYOUTS.clear()
            LAYOUTS[version, names] = lay
    return lay


def names_values(fields: Iterable[tuple[str, str]]) -> tuple[bytes, list[str]]:
    """``field_layout`` of fields already parsed (headers built or changed)."""
    fields = list(fields)
    return b"".join(n.encode("ascii", "surrogateescape") + b":" for n, _ in fields), [v for _, v in fields]
