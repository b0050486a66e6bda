"""Branded error pages, the /api/ index and the favicon (issue 21)."""

import pytest
from django.template import loader
from django.test import Client
from django.urls import include, path, reverse

from core.roles import Role
from heartbench_site import urls as site_urls

pytestmark = pytest.mark.django_db


def broken(request):
    raise RuntimeError("a bug in a view")


# This module doubles as a URLconf: the site's URLs plus a view that fails.
urlpatterns = [path("broken/", broken), path("", include(site_urls))]


@pytest.mark.urls("tests.web.test_error_pages")
def test_a_failing_view_answers_the_branded_500_page(settings):
    settings.DEBUG = False
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500
    body = response.content.decode()
    assert "Something went wrong" in body
    assert "It is not your fault" in body
    assert 'href="/"' in body and "Back to your home" in body
    assert "vendor/bootstrap/css/bootstrap.min.css" in body


def test_the_500_page_renders_without_a_request_or_the_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        body = loader.get_template("500.html").render()
    assert "500 · Something went wrong" in body


def test_404_and_403_say_what_happened_and_link_home(client_for):
    client = client_for(Role.BASELINE_PARTICIPANT)
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert "There is nothing at this address" in missing.content.decode()
    denied = client.get(reverse("pipeline"))
    assert denied.status_code == 403
    body = denied.content.decode()
    assert "Your roles do not include access to this page" in body
    for page in (missing, denied):
        assert f'href="{reverse("home")}"' in page.content.decode()


def test_the_api_index_lists_what_the_caller_may_call(client_for):
    body = client_for(Role.PRIMARY_ANNOTATOR).get("/api/").content.decode()
    assert 'data-testid="api-endpoints"' in body
    assert "/api/compare/" in body  # the annotator's own API
    assert "/api/generation/" not in body  # the admin's generation API
    assert reverse("api-docs") in body and reverse("api-schema") in body


def test_the_api_index_of_an_admin_includes_the_generation_api(client_for):
    body = client_for(Role.ADMIN).get("/api/").content.decode()
    assert "/api/generation/" in body


def test_a_baseline_participant_sees_no_construction_api_and_no_docs_link(client_for):
    response = client_for(Role.BASELINE_PARTICIPANT).get("/api/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "/api/corpus/" not in body
    assert reverse("api-docs") not in body


def test_the_api_index_asks_an_anonymous_visitor_to_log_in(client):
    response = client.get("/api/")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_favicon_is_linked_and_favicon_ico_leads_to_it(client_for, client):
    body = client_for(Role.ADMIN).get(reverse("home")).content.decode()
    assert 'rel="icon" href="/static/app/favicon.svg"' in body
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/app/favicon.svg"
