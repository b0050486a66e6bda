"""Consensus-then-arbitration (seed 000 §2.4 Stage 2, App. D.2): a pair every annotator
has judged is adopted unanimously or escalated; an arbitrator discards it or sets its
reference response (adopt, edit, rewrite); an admin may reopen the decision.

Modules: models (ReferenceResponse, ArbitrationDecision, AdjudicationSettings), services
(consensus routing, decisions, reopening), selectors (queue, pair page, App. D.2 outcome
statistics, home card, the export's chain section), views, forms, urls, api/ (one
module per resource: outcomes, pairs, decisions; the schema's examples in examples.py),
api_urls, admin. Calls go views/api → services/selectors → models; down into
``annotation.comparison``, ``annotation.generation``, ``annotation.corpus`` and ``agreement``.
"""
