"""LLM judge runs on the blinded comparison (issue 22): a configured model does the
annotators' App. D.2 task on chosen pairs, candidates in a seeded order per call.

Modules: models (runs, calls, verdicts), prompts (the pure core: materials → prompt, the
verdict's output contract, seeded orders), services/ (runs: launch, start, cancel, resume;
calls: one call taken up by a worker and its verdict), celery_tasks, selectors, views,
forms, urls, admin, demo. Calls go views → services/selectors → models, celery_tasks →
services; down into ``annotation.comparison``, ``annotation.generation`` and ``llm``.

!!! BLINDING !!!  Nothing here may reach annotators or participants.
"""
