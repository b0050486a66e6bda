"""Issue #24: every URL of the site, with an out-of-range value in each path parameter in
turn, answers without a server error.

On the demo (every workflow has real objects), each named URL is built with real ids
(tests/web/test_access_matrix.py ``url_values``), then one parameter at a time is replaced
by values no record has: for a whole number 0, 999999 and 2**63 (past any database
column), for a text parameter an unknown key and an over-long string, for a UUID a fresh
one. Each such URL is requested with GET and with an empty POST (CSRF satisfied: the test
client does not enforce it; the API is called with a token), as the roles the access
matrix allows on that URL, one role it denies, and an anonymous visitor. No answer may be
a 5xx. The Django admin's object pages are walked as the admin (GET).

Callers are chosen per URL (every role it allows, but only one it denies: a refusal comes
before any lookup) to keep the walk near a minute.
"""

from uuid import uuid4

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter, UUIDConverter
from django.urls.exceptions import NoReverseMatch

from core.roles import Role
from tests.api.conftest import token_client
from tests.web.test_access_matrix import ACCESS, PLOTS, PUBLIC, populated, url_values

pytestmark = pytest.mark.django_db

__all__ = ["populated"]  # the fixture, imported for this module

HUGE = 2**63
INT_VALUES = [0, 999999, HUGE]
TEXT_VALUES = ["no-such-key", "x" * 300]
ADMIN_OBJECT_VALUES = ["0", str(HUGE), "x" * 300]


def patterns(resolver=None, namespace=None, converters=None):
    """(view name, {parameter: converter}) for every named URL; a parameter of a regular
    expression pattern (the admin's app_label) has no converter (None)."""
    resolver = resolver or get_resolver()
    converters = converters or {}
    for entry in resolver.url_patterns:
        found = dict(converters)
        for name in entry.pattern.regex.groupindex:
            found[name] = getattr(entry.pattern, "converters", {}).get(name)
        if isinstance(entry, URLResolver):
            ns = entry.namespace
            full = f"{namespace}:{ns}" if namespace and ns else (ns or namespace)
            yield from patterns(entry, full, found)
        elif isinstance(entry, URLPattern) and entry.name is not None:
            yield (f"{namespace}:{entry.name}" if namespace else entry.name), found


def hostile_values(converter):
    if isinstance(converter, IntConverter):
        return INT_VALUES
    if isinstance(converter, UUIDConverter):
        return [uuid4()]
    return TEXT_VALUES


def variants(name, params, values):
    """The URL with each parameter in turn replaced by each of its hostile values."""
    base = values | {"plot": PLOTS.get(name, "none"), "fmt": "png"}
    for param, converter in params.items():
        for bad in hostile_values(converter):
            kwargs = {p: base[p] for p in params} | {param: bad}
            try:
                yield param, reverse(name, kwargs=kwargs)
            except NoReverseMatch:  # the pattern cannot hold the value: no such URL
                continue


def callers_for(name, clients):
    """The sampled callers of one URL: roles it allows, one it denies, anonymous."""
    allowed = ACCESS[name]
    roles = [r for r in Role if allowed == PUBLIC or r in allowed]
    denied = [r for r in Role if r not in roles]
    chosen = roles + denied[:1]
    return [(role.value, clients[role]) for role in chosen] + [("anonymous", clients[None])]


def request(client, method, path):
    """One request in a savepoint rolled back after it: an empty POST that did change
    something (or a database error) leaves the demo as it was for the next request."""
    with transaction.atomic():
        response = getattr(client, method)(path)
        transaction.set_rollback(True)
    return response


def make_clients(users):
    clients = {None: (Client(raise_request_exception=False), None)}
    for role, user in users.items():
        session = Client(raise_request_exception=False)
        session.force_login(user)
        api = token_client(user)
        api.raise_request_exception = False
        clients[role] = (session, api)
    return clients


def call(pair, method, path):
    session, api = pair
    client = api if api is not None and path.startswith("/api/") else session
    return request(client, method, path)


def test_out_of_range_path_parameters_never_answer_a_server_error(populated):
    clients = make_clients(populated)
    admin = populated[Role.ADMIN]
    common, by_namespace = url_values(admin)
    errors, walked = [], 0
    for name, params in patterns():
        if not params or name.startswith("admin:"):
            continue
        values = common | by_namespace.get(name.split(":")[0], {})
        for param, path in variants(name, params, values):
            for who, pair in callers_for(name, clients):
                for method in ("get", "post"):
                    walked += 1
                    status = call(pair, method, path).status_code
                    if status >= 500:
                        errors.append(f"{who} {method.upper()} {path} ({param}): {status}")
    assert walked > 1000, f"the walk made only {walked} requests"
    assert not errors, "\n".join(errors)


def test_the_admins_object_pages_refuse_unknown_ids_without_a_server_error(populated):
    client = Client(raise_request_exception=False)
    client.force_login(populated[Role.ADMIN])
    errors, walked = [], 0
    for name, params in patterns():
        if not name.startswith("admin:") or "object_id" not in params:
            continue
        base = {"content_type_id": 1}
        for bad in ADMIN_OBJECT_VALUES:
            try:
                path = reverse(name, kwargs={p: base.get(p, bad) for p in params})
            except NoReverseMatch:
                continue
            walked += 1
            status = request(client, "get", path).status_code
            if status >= 500:
                errors.append(f"admin GET {path}: {status}")
    assert walked > 200
    assert not errors, "\n".join(errors)
