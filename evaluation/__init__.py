"""Model evaluation (seed 000 §3.1, App. E, F, G, I, L.1): runs of one model under one
setting over a set of final items, one prompt and one stored response per item, leak
checked, parsed and scored; or runs imported from a predictions file.

Modules: prompt, parsing, leakcheck (pure cores), retrieval (the built-in Naive-RAG),
embeddings (the embedding retriever and its vector cache), providers (which models are
configured), models, services (runs and their items),
prediction_import, analysis (the numbers of the pages), selectors, celery_tasks, views,
forms, urls, api, api_urls, admin, demo, templatetags.
Calls go views/api → services/selectors/analysis → models and the pure cores,
celery_tasks → services; down into ``adjudication.mcq``, ``annotation.corpus``,
``agreement`` and the ``llm`` client library (chat and embeddings).
"""
