"""Judge-run services: ``runs`` (launch, start, cancel, resume; run-level state) and
``calls`` (one call taken up by a worker, sent, and its verdict stored)."""
