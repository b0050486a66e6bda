"""The web tests' fixtures (role groups, users, the secret corpus), shared here."""

from tests.web.conftest import make_user, role_groups, secret_corpus  # noqa: F401
