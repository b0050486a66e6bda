"""Candidate generation (seed 000 §2.4 Stage 1, App. D.1, App. L.5): a run fans out into
one unit per (character, scenario, family); a worker runs each unit's memory screening,
re-ranking and response with the family's model, and writes one ``Candidate``.
!!! BLINDING !!!  Families and model names are admin-only provenance.

A pair is generated only past its gates (gates: frozen profile, scenario review
complete, memory audit finalized; an admin's override is a recorded protocol
deviation), and activation reads the audited corpus (``audit.memory_quality.corpus``).

Modules: models, gates, services/ (runs, units, activation, calls, transitions),
celery_tasks, selectors (progress and the admin's reads), prompts (prompt text and
output schemas), default_prompts (version 1), views, forms, urls, api, api_urls,
serializers, admin, demo.
Calls go views/api → services.runs/selectors → models, celery_tasks →
services.units; down into ``annotation.scenario_review`` and ``audit.memory_quality``
(the gates, the audited corpus), ``annotation.corpus`` and the ``llm`` client library.
"""
