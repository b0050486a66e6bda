"""What the audit's LLM calls cost (issue #36): the configured prices of the repair model
and of the LLM classifier, in USD per million tokens, beside the prefixes that configure
those models (``configuration``)."""

import os
from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

__all__ = ["CLASSIFIER_PROVIDER_PREFIX", "REPAIR_PROVIDER_PREFIX", "call_prices"]

REPAIR_PROVIDER_PREFIX = "HEARTBENCH_AUDIT_REPAIR"
CLASSIFIER_PROVIDER_PREFIX = "HEARTBENCH_AUDIT_CLASSIFIER"


def call_prices(kind: str) -> tuple[Decimal, Decimal]:
    """(in, out) USD per million tokens of the audit's ``kind`` of call ("repair" or
    "classifier"): ``HEARTBENCH_AUDIT_REPAIR_PRICE_IN``/``_PRICE_OUT`` and
    ``HEARTBENCH_AUDIT_CLASSIFIER_PRICE_IN``/``_PRICE_OUT``, from the settings when set
    there, else from the environment (as the providers are); unset: 0, not priced."""
    prefix = REPAIR_PROVIDER_PREFIX if kind == "repair" else CLASSIFIER_PROVIDER_PREFIX
    return _price(f"{prefix}_PRICE_IN"), _price(f"{prefix}_PRICE_OUT")


def _price(name: str) -> Decimal:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name) or "0"
    try:
        price = Decimal(str(value).strip())
    except InvalidOperation:
        price = Decimal("NaN")
    if not price.is_finite() or price < 0:
        raise ImproperlyConfigured(f"{name} is a price in USD per million tokens, not {value!r}.")
    return price
