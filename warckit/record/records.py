"""Record models: one typed class per WARC-Type, plus ARC records behind the same interface.

The names live in :mod:`warckit.record.base` (:class:`WarcRecord`),
:mod:`warckit.record.types` (the typed classes, the registry, :class:`ArcRecord`) and
:mod:`warckit.record.bodies` (where a block comes from, :class:`BlockStream`); this
module gathers them.
"""

from __future__ import annotations

from _collections_abc import Callable  # (collections.abc's, without importing collections)

from .base import WarcRecord
from .bodies import BlockStream, Body
from .types import (
    RECORD_TYPES,
    ArcRecord,
    Continuation,
    Conversion,
    Metadata,
    Request,
    Resource,
    Response,
    Revisit,
    UnknownRecord,
    Warcinfo,
    record_class,
    register_type,
)

__all__ = [
    "RECORD_TYPES",
    "ArcRecord",
    "BlockStream",
    "Body",
    "Continuation",
    "Conversion",
    "Metadata",
    "Request",
    "Resource",
    "Response",
    "Revisit",
    "UnknownRecord",
    "WarcRecord",
    "Warcinfo",
    "record_class",
    "register_type",
]

#: Anything that makes a record (a record class, or a function returning one).
RecordFactory = Callable[..., WarcRecord]
