"""The reference-label audit over REST (/api/audit/labels/), one module per resource:
audits (create, list, one, its items), outcomes (Table 14), an expert's items (blind: queue,
item, draft, selection) and the adjudicator's adjudications; serializers beside their
endpoints, the schema's examples in ``examples.py``.

Each write calls the service the page calls, with the page's form for validation; a
service's ``LabelAuditError`` answers 400 with its messages (the API's exception handler);
a conflict of interest (``LabelAuditConflict``, checked at every act) answers 403.
"""
