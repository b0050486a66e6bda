"""Arbitration over REST (/api/arbitration/), for arbitrators and admins, one module per
resource: outcomes (the comparison outcome statistics), pairs (escalated and decided,
paginated; one as the arbitrator's page shows it) and decisions (decision, reopening);
serializers beside their endpoints, the schema's examples in ``examples.py``.

!!! BLINDING !!!  Candidates are numbered as on the page, never by id; a family is named
only where the page names it (``AdjudicationSettings.show_family_to_arbitrator``)."""
