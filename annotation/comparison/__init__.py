"""Blinded three-candidate comparison (seed 000 §2.4 Stage 2, App. D.2): an admin assigns
each pair to exactly three distinct primary annotators (``ANNOTATORS_PER_PAIR``), who
judge its candidates under letters A-C.
!!! BLINDING !!!  Annotators see letters and text only, never a family, model or run.

Modules: models, services (pairs, assignments, drafts, submit: it reports when a pair is
complete), selectors (queue, blinded page, home card, the export's chain sections), views
(queue, draft autosave), forms, urls, api, api_urls. Calls go views/api →
services/selectors → models; down into ``annotation.generation`` and
``annotation.corpus``. Routing a complete pair is ``adjudication.consensus`` (above).
"""
