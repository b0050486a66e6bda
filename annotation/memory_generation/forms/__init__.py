"""Memory generation forms (crispy, Bootstrap 5): ``plans`` and ``runs``. They parse
input; the rules live in the services."""
