"""Character drafting (seed 000 §2.2 Stage 1, App. B.1/B.2, L.2 → B.3): an admin defines
the design (Table 4's trait-anchored coverage, or custom requirements), a Celery job asks
the configured model to draft each character's profile, every call is kept, and a valid
draft becomes profile version 1 in profile review. When the reviewers or the senior ask
for changes, the admin redrafts one field or the whole profile with their change
requests as guidance; the redraft is the character's next profile version.

Modules: design (the pure design: Table 4, custom lines, the per-character brief),
profile_schema (the pure output schema and checks), prompts (the pure prompt text and
rendering), models, services/ (jobs, execution, redraft, redraft_rules, common),
celery_tasks, selectors, views, forms, urls, api, api_urls, serializers, admin, demo.
Calls go views/api → services.jobs/services.redraft/selectors → models, celery_tasks →
services.execution; down into ``annotation.profile_review`` (cases, change requests, the
review history), ``annotation.corpus`` and the ``llm`` client library.
"""
