"""Memory generation reads: ``plans`` (quota plans, before launch) and ``runs`` (generation)."""
