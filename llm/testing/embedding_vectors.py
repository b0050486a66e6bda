"""The fake server's embeddings: deterministic vectors by feature hashing of word tokens.

Each casefolded word token (runs of letters and digits, as ``[^\\W_]+``) adds ±1 to one
coordinate: the coordinate is the first four bytes of the token's sha256 (big-endian)
modulo the size, the sign is + when the fifth byte is even. The sum is scaled to unit
length. Texts sharing words therefore share coordinates and have a higher cosine, the
same text always gets the same vector in every process, and a text without a word gets
the first unit vector. The size is the request's ``dimensions``, else
``DEFAULT_DIMENSIONS``. Pure Python: tests recompute it independently with numpy.
"""

from __future__ import annotations

import hashlib
import math
import re

DEFAULT_DIMENSIONS = 64
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def hashed_embedding(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for token in _TOKEN.findall(text.casefold()):
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        index = int.from_bytes(digest[:4], "big") % dimensions
        vector[index] += 1.0 if digest[4] % 2 == 0 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:
        return [1.0] + [0.0] * (dimensions - 1)
    return [x / norm for x in vector]


def token_count(text: str) -> int:
    return len(_TOKEN.findall(text.casefold()))


def embeddings_body(request_body: dict) -> dict:
    """The OpenAI embeddings answer to one request body (``input`` a string or a list)."""
    texts = request_body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    dimensions = request_body.get("dimensions") or DEFAULT_DIMENSIONS
    return {
        "object": "list",
        "model": request_body.get("model") or "fake-embedding",
        "data": [
            {"object": "embedding", "index": i, "embedding": hashed_embedding(str(t), dimensions)}
            for i, t in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": sum(token_count(str(t)) for t in texts),
            "total_tokens": sum(token_count(str(t)) for t in texts),
        },
    }
