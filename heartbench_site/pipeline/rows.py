"""The rows of the pipeline page: a stage's tallies, blockers and links, and the
wording helpers every stage uses."""

from dataclasses import dataclass, field

#: A blocker names this many subjects (characters, runs) and counts the rest.
NAMED_AT_MOST = 6


@dataclass(frozen=True)
class Tally:
    label: str
    value: int
    emphasis: bool = False  # the stage's headline number


@dataclass(frozen=True)
class Blocker:
    """What holds a stage up, in words naming whom it waits for; ``url`` is where to act."""

    text: str
    url: str = ""


@dataclass
class Stage:
    key: str
    title: str
    paper: str  # where seed 000 describes the stage
    tallies: list[Tally]
    blockers: list[Blocker] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    group: str = ""

    @property
    def headline(self) -> int:
        return next((t.value for t in self.tallies if t.emphasis), 0)

    @property
    def state(self) -> str:
        """``waiting`` when something holds the stage up, ``empty`` when nothing has
        reached it yet, ``clear`` otherwise."""
        if self.blockers:
            return "waiting"
        return "clear" if self.headline else "empty"


@dataclass
class Pipeline:
    stages: list[Stage]
    deviations: int

    @property
    def groups(self) -> list[tuple[str, list[Stage]]]:
        out: list[tuple[str, list[Stage]]] = []
        for stage in self.stages:
            if not out or out[-1][0] != stage.group:
                out.append((stage.group, []))
            out[-1][1].append(stage)
        return out


def named(names) -> str:
    names = list(names)
    shown = ", ".join(names[:NAMED_AT_MOST])
    rest = len(names) - NAMED_AT_MOST
    return f"{shown} and {rest} more" if rest > 0 else shown


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def waits(n: int) -> str:
    return "waits" if n == 1 else "wait"


def done_by(rows: list[tuple[str, int]], verb: str) -> str:
    """' (3 already {verb} by ana, 1 by ben: each awaits the other reviewer)'."""
    if not rows:
        return ""
    parts = ", ".join(f"{n} by {username}" for username, n in rows)
    return f" ({verb} so far: {parts}; each awaits the other reviewer)"
