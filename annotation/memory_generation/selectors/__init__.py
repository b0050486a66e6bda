"""Memory generation reads: ``plans`` (quota plans before launch) and ``runs`` (progress,
batches, call records). Each issues a fixed number of queries whatever the row counts."""
