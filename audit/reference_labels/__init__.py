"""The reference-label audit (seed 000 §2.4 last paragraph, App. D.4, Table 14): three
experts outside construction select, blind to the key, on a stratified sample of the
final MCQs; a fourth adjudicates every item without complete agreement.
!!! BLINDING !!!  Experts see only ``expert_pages``' dataclasses.

Modules: models, services, selectors (audits, home cards, the export's section, the
conflicts of interest the admin sees; the rules are ``core.conflicts``), expert_pages
(blind), adjudicator_pages, outcomes (Table 14, Fleiss' κ), views, forms, urls, api,
api_urls, admin, demo.
Calls go views/api → services/selectors and the page modules → models; down into
``adjudication.mcq`` (item versions), ``annotation.corpus`` and ``agreement``.
"""
