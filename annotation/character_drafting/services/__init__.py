"""Every write of character drafting, by responsibility.

jobs (launch a job, retry its failed drafts, prompt versions, the provider; views and the
API call it) → celery_tasks → execution (a worker drafts one character: calls, checks,
retries, and the profile version it creates) ← redraft (the guards and the job of a
redraft of a reviewed profile).
"""
