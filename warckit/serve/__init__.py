"""The resolution service, ``warckit serve``: the CDX server API over sorted indexes,
WARC records by range, ingest into an embedded store, and Memento (docs/serve.rst).

Starlette and uvicorn (the ``serve`` extra) are imported only by the modules that run
the service, so the index and store modules work without them.
"""
