"""Import of the corpus and the public release (seed 000 App. B.1, B.5, B.7, C.1,
D.1-D.3): release files, characters files and memory storage text, checked whole and
written in one transaction into every stage's records; the admin's upload as an import
job a Celery worker runs; the ``import_corpus`` command; synthetic corpora.

Modules: importing (``import_files``/``import_paths``) → reading, parse_release,
parse_characters, memory_storage (parse into corpus.ParsedCorpus; fields, vocabulary,
problems) → apply (one transaction: stored rows, resolve checks, writer) → bulk,
summary; models (import jobs), services (job writes), selectors, celery_tasks, views,
forms, urls, api, api_urls, serializers, admin; synthetic.
Calls go views/api → services/selectors → models, celery_tasks → services → importing;
down into every stage it writes (adjudication, generation, corpus).
"""
