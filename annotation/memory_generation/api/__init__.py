"""Memory generation api: plans (quota plans, before launch) and runs (generation)."""
