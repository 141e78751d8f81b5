"""WACZ packages (spec 1.1.1): make one from WARCs, validate one, look URLs up in one.

Reading the records of a WACZ is :func:`warckit.open` (see :mod:`warckit.read.wacz`);
this package, on the tools layer, makes and checks packages and answers queries from
their embedded index.
"""

from __future__ import annotations

from .create import WaczSummary, create_wacz
from .datapackage import WACZ_VERSION, Resource
from .query import WaczIndex
from .validate import WaczReport, validate_wacz

__all__ = ["WACZ_VERSION", "Resource", "WaczIndex", "WaczReport", "WaczSummary", "create_wacz",
           "validate_wacz"]
