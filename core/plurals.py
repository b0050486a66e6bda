"""Counted nouns for the messages people read: "1 item", "3 items", never "item(s)"."""


def counted(n: int, one: str, many: str | None = None) -> str:
    """``counted(1, "pair")`` → "1 pair"; ``counted(2, "study", "studies")`` → "2 studies"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def agree(n: int, one: str, many: str) -> str:
    """The verb that agrees with a count: ``agree(n, "is", "are")``."""
    return one if n == 1 else many
