"""Every write of candidate generation, by responsibility.

runs (launch, start, cancel, retry a run; prompt versions; views and the API call it) →
celery_tasks → units (a worker runs one unit's three stages) → activation (screening and
re-ranking) → calls (providers, prompts, one recorded call) and transitions (unit and
run states under row locks).
"""
