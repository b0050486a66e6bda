"""The memory quality audit (seed 000 §2.2 Stage 3, App. B.6): criteria 1-6 over every
memory (pattern checks, and the LLM classifier where configured), up to three targeted
automated repairs per defect under the character's full specification, each re-checked by
the same checks, manual review of what is still flagged (a false positive needs the
reviewing team's agreement; the senior's edit is re-audited), then a deduplicated,
ordered and sanitized timeline per character.

Modules: criteria (pure core, the six criteria), repair (pure, repair and classifier
prompts), models, services/ (configuration, runs, repair_loop, review, finalize,
classifier, records), selectors, celery_tasks, views, forms, urls, api, api_urls, admin,
demo. Calls go views/api → services/selectors → models and the pure cores, celery_tasks
→ services; down into ``annotation.corpus`` and the ``llm`` client library.
"""
