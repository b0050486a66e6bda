"""Test doubles for the ``llm`` library: a fake provider server on loopback speaking the
providers' wire formats (nothing above the socket mocked), for tests, benchmarks and dry
runs (``python -m llm.testing.fake_server``).

Modules: fake_server (the HTTP server and its command line), replies (what it answers:
``Reply``, ``Fault`` and the helpers that script them), provider_formats (routes, the
received request, reply and error envelopes), embedding_vectors (the deterministic vectors
of the embeddings route), fact_check (the answers to a repair's fact check, from the
memory text: facts are sentences, checked by containment; the server gives them by
default, and the offline demo provider uses them too). fake_server →
provider_formats/embedding_vectors/fact_check → replies; fact_check → provider_formats;
no Django.
"""
