"""The memory quality audit over REST (/api/audit/), one module per resource: runs
(start, progress, outcomes, finalize, classify), cases (the flagged-memory queue, one case
as its page shows it, decisions, senior edits) and settings; serializers beside their
endpoints, the schema's examples in ``examples.py``. Thin: the pages' forms validate, the
pages' services act, with the pages' messages."""
