"""The matched-information human baseline (seed 000 App. J, Table 19): a balanced
150-item subset, participants who answer it with the same materials the models saw,
and the report comparing them.
!!! BLINDING !!!  Participant pages render only ``selectors.item_materials``.

Modules: subset (pure core, the ILP selection), report (pure core, App. J statistics),
models, services, selectors, celery_tasks, views, forms, urls, admin, demo.
Calls go views → services/selectors → models and the pure cores, celery_tasks →
services; down into ``evaluation`` (retrieval sets, model predictions),
``adjudication.mcq``, ``annotation.generation`` (model families), ``annotation.corpus``
and ``agreement``.
"""
