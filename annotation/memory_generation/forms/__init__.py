"""Memory generation forms: ``plans`` and ``runs``."""
