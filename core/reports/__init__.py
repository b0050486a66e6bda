"""Statistics computed once, on a worker, and read by the pages (issue #34).

``models``: :class:`StoredReport`, one row per report instance (a kind and a key, e.g.
the chosen runs), holding the last result with the fingerprint of the inputs it was
computed from. ``services``: :func:`report_for` (what a page calls: the stored figures,
whether they are stale, and queueing a new computation when they are), and
:func:`compute_report` (what the worker runs). A kind ``"<package>.<name>"`` is declared
in ``<package>.stored_reports`` with :func:`services.register`.
"""
