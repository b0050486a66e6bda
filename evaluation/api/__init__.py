"""Evaluation runs over REST (/api/evaluation/), for admins as the pages, one module per
resource: runs (list, launch, progress, resume), predictions (paginated, filtered,
ordered) and imports; serializers beside their endpoints, the schema's examples in
``examples.py``."""
