"""The response scan the blinding tests share: fetch every URL a role can reach in each
query and header variant and record what each body exposes."""

from contextlib import contextmanager

from django.db import transaction


def scan_responses(client, urls, exposures, *, query_variants, header_variants, fetched=None):
    """{(url + query, headers): (view name, status, exposures(body))} for ``urls``, a
    {path: view name} mapping. Django admin pages get the first variant only.

    ``fetched``, a dict kept by the caller, holds the (status, body) of each request the
    client already sent against the same data (module_data): tests of a module that walk
    as the same person send each request once and each read its answer."""
    fetched = {} if fetched is None else fetched
    results = {}
    for path, name in urls.items():
        django_admin = name.startswith("admin:")
        for query in query_variants[:1] if django_admin else query_variants:
            for headers in header_variants[:1] if django_admin else header_variants:
                key = (path + query, str(headers))
                if key not in fetched:
                    response = client.get(path + query, **headers)
                    fetched[key] = (response.status_code, response.content.decode(errors="replace"))
                status, body = fetched[key]
                results[key] = (name, status, exposures(body))
    return results


@contextmanager
def module_data(django_db_blocker):
    """For a module-scoped fixture that builds rows its tests share: the rows are written
    in a transaction each test's own transaction nests in (a savepoint, rolled back after
    the test as usual), and the module's transaction is rolled back after its last test.
    Nothing is committed, so the rows the migrations seeded stay as they were."""
    with django_db_blocker.unblock(), transaction.atomic():
        try:
            yield
        finally:
            transaction.set_rollback(True)


def control_requests(urls, *, query_variants, header_variants, admin_variants="first"):
    """The requests of the walk above in breadth-first order, for a control: the plain
    request of every URL first, then each URL in the next variant, and so on.

    A control asserts that what its walk saw in 200 responses covers a fixed set of
    strings; it stops as soon as it does, since what the remaining requests add can no
    longer change the outcome (the set only grows). When the set is not covered, the walk
    sends every request, as the unordered walk would. ``admin_variants`` says which
    variants Django admin pages get: "first" (the first query and headers, as
    scan_responses) or "headers" (the first query, every headers variant)."""
    for q, query in enumerate(query_variants):
        for h, headers in enumerate(header_variants):
            for path, name in urls.items():
                if name.startswith("admin:") and (q or (h and admin_variants == "first")):
                    continue
                yield path + query, headers, name


def control_scan(client, urls, exposures, covered, **variants):
    """The exposures seen in 200 responses, fetched in control_requests order until
    ``covered(seen)`` holds (or every request is sent)."""
    seen = set()
    for requested, headers, _ in control_requests(urls, **variants):
        response = client.get(requested, **headers)
        if response.status_code == 200:
            seen.update(exposures(response.content.decode(errors="replace"), requested))
            if covered(seen):
                break
    return seen
