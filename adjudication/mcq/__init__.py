"""MCQ assembly, LLM screening and item review (seed 000 §2.4 Stage 3, App. D.3, D.3.1):
each adjudicated reference becomes a four-option item, the judge screens every version,
and reviewers resolve flagged or incomplete items.

Modules: models (items, options, versions, assembly runs, screening runs with their
screenings and judge calls, review decisions), versions (the one path by which an item
changes; queues its re-screen), services/ (item_assembly, screening_runs: the screening
runs on the one LLM-run framework, item_screening: the judge on one screening,
item_review), celery_tasks, selectors (queues, item page, home card, the
export's chain sections), assembly and screening (pure cores: scoring, option order,
the D.3.1 prompt and output contract), views, forms, urls, api, api_urls, admin, demo.
Calls go views/api → services/selectors → versions → models, celery_tasks → services;
down into ``adjudication.arbitration`` (references), ``annotation.corpus`` and ``llm``.
"""
