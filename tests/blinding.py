"""The response scan the blinding tests share: fetch every URL a role can reach in each
query and header variant and record what each body exposes."""


def scan_responses(client, urls, exposures, *, query_variants, header_variants):
    """{(url + query, headers): (view name, status, exposures(body))} for ``urls``, a
    {path: view name} mapping. Django admin pages get the first variant only."""
    results = {}
    for path, name in urls.items():
        django_admin = name.startswith("admin:")
        for query in query_variants[:1] if django_admin else query_variants:
            for headers in header_variants[:1] if django_admin else header_variants:
                response = client.get(path + query, **headers)
                body = response.content.decode(errors="replace")
                results[(path + query, str(headers))] = (
                    name,
                    response.status_code,
                    exposures(body),
                )
    return results
