"""The construction corpus (seed 000 §2.1-2.3, App. B.1, B.7, C.1, D.1): characters with
immutable profile versions, memories in the ten-field schema, scenarios in the
four-component schema, and the release's memory activation sets, read by every later
stage; the life-stage bins they are filed under.

Modules: models, life_stages, selectors (reads), views, urls, api (also the
``CorpusAdminApi`` permission), api_urls, serializers, admin.
Calls go views/api → selectors → models; this package imports no other workflow (every
other stage calls down into it). Writes come from ``annotation.corpus_import`` and
profile and scenario review.
"""
