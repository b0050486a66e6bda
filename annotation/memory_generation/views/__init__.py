"""Memory generation views: plans (quota plans, before launch) and runs (generation)."""
