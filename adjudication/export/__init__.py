"""Export of the final MCQ set (seed 000 §2.4 Stage 3, App. D.3, App. E; issue #8): the
release layouts, the model-facing files with the keys apart, the construction record with
every item's adjudication chain, and a manifest of hashes, byte-identical on repeat.

Modules: services (the bundle, manifest, zip), selectors (the rows of one export; page
and home-card counts), release, model_facing, construction (the three variants), chain
(the one ordered list of chain sections), encoding (JSON/JSONL/CSV bytes), views, urls.
The top workflow layer: calls go views and the ``write_final_set`` command → services →
the variants → selectors; down into every workflow that provides a chain section
(``annotation.comparison``, ``adjudication.arbitration``, ``adjudication.mcq``,
``audit.reference_labels``).
"""
