"""Profile review (seed 000 §2.2 Stage 1, App. B.3): three primary annotators review each
draft character profile with field-level change requests; the arbitrator edits, resolves
every request and freezes the final version. Also holds the history (``ReviewEvent``)
that scenario review shares.

Modules: models, services (writes; ``record_event``), selectors (reads, blinding), views,
forms, urls, api, api_urls, admin, demo.
Calls go views/api → services/selectors → models, and down into ``annotation.corpus``;
``annotation.scenario_review`` calls into this package, never the reverse.
"""
