"""Scenario review (seed 000 §2.3, App. C.2): two reviewers screen each scenario jointly
(pass 1, with consensus revisions), rate it independently on the eight DIAMONDS
dimensions (pass 2) and jointly re-assess ratings more than one point apart; coverage
and inter-rater agreement (Table 13). Includes the scenario blueprints an LLM expands
into draft scenarios (§2.3 Stage 2, App. L.4).

Modules: models, services (screening, revision, rating, re-assessment, manual entry),
blueprints (blueprints and their LLM expansion), celery_tasks, selectors (reads,
blinding, coverage), views, forms, urls, api, api_urls, admin, demo.
Calls go views/api → services/blueprints/selectors → models, celery_tasks → blueprints;
down into ``annotation.profile_review`` (``ReviewEvent``, ``ReviewError``) and
``annotation.corpus``.
"""
