"""Screening candidates for identity leaks before annotation (issue 22, "Blinding
integrity"): model or provider names, self-references as an AI and family-typical
formatting. A pair with a flagged candidate waits until the admin cleans the text (an
edit recorded as such) or accepts the flag.
!!! BLINDING !!!  Flags are provenance: admins only, never shown to annotators.

Modules: leaks (the pure detector, no Django), models, services (screen, clean,
accept), selectors (flag pages, open flags, the export's chain section), forms, views,
urls, admin. Calls go down into ``annotation.generation``; the comparison workflow
(above) calls ``services.screen_pair_candidates`` for every pair it creates.
"""
