"""Candidate generation (seed 000 §2.4 Stage 1, App. D.1, App. L.5): a run fans out into
one unit per (character, scenario, family); a worker runs each unit's memory screening,
re-ranking and response with the family's model, and writes one ``Candidate``.
!!! BLINDING !!!  Families and model names are admin-only provenance.

Modules: models, services/ (runs, units, activation, calls, transitions), celery_tasks,
selectors (progress and the admin's reads), prompts (prompt text and output schemas),
default_prompts (version 1), views, forms, urls, api, api_urls, serializers, admin, demo.
Calls go views/api → services.runs/selectors → models, celery_tasks →
services.units; down into ``annotation.corpus`` and the ``llm`` client library.
"""
