"""The offline demo provider and the answers it makes up (``make demo``): loaded only when
a config selects ``kind="offline_demo"`` (``llm.make_client``) or a test or the fake
provider server asks for it, never by ``import llm``.

``client`` is the provider (``OfflineDemoClient``, ``demo_output``); ``answers`` gives each
platform prompt an answer of its kind, made of ``material`` (phrase banks), ``profiles``,
``memories`` (with ``memory_text``), ``judge`` and ``audit``.
"""

from .client import DEMO_LABEL, OfflineDemoClient, demo_output

__all__ = ["DEMO_LABEL", "OfflineDemoClient", "demo_output"]
