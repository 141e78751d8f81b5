"""warckit on Apache Spark: read, index and fetch WARC/ARC files on a cluster (or ``local[N]``).

pyspark is imported only inside these functions (the ``spark`` extra); ``import warckit``
never needs it. See docs/spark.rst.

* :func:`read_warcs`: the records of many files as a DataFrame (the columnar row API's columns).
* :func:`index_warcs`: a globally sorted CDXJ / new-style CDX / ZipNum / Parquet index.
* :func:`fetch_records`: fetch the records an index points at, one ranged read each.
* :func:`expand_inputs`: paths, globs, URLs and manifests → the list of input files.
"""

from __future__ import annotations

from .fetch import fetch_records
from .index import INDEX_FORMATS, IndexSummary, index_warcs
from .inputs import expand_inputs, read_manifest
from .read import read_warcs

__all__ = [
    "INDEX_FORMATS",
    "IndexSummary",
    "expand_inputs",
    "fetch_records",
    "index_warcs",
    "read_manifest",
    "read_warcs",
]
