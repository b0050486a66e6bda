import pytest
from django.test import Client

from core.roles import Role
from tests.factories import UserFactory


@pytest.fixture
def eager(settings):
    """Tasks run in the calling process (the mail lands in django.core.mail.outbox)."""
    from heartbench_site.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def admin(db):
    return UserFactory(username="lab-admin", roles=[Role.ADMIN])


@pytest.fixture
def admin_client(admin):
    client = Client()
    client.force_login(admin)
    return client
