"""What an import did, per kind of record, in a form both people and JSON can read."""

from dataclasses import dataclass, field

KINDS = (
    "characters",
    "profile_versions",
    "scenarios",
    "memories",
    "references",
    "mcq_items",
    "activation_sets",
    "candidates",
)
OUTCOMES = ("created", "updated", "unchanged")


@dataclass
class ImportSummary:
    counts: dict = field(default_factory=lambda: {k: dict.fromkeys(OUTCOMES, 0) for k in KINDS})
    files: list = field(default_factory=list)  # [{"name", "kind", "records"}]
    skipped: list = field(default_factory=list)  # [{"path", "reason"}]
    notices: list = field(default_factory=list)

    def add(self, kind: str, outcome: str, n: int = 1) -> None:
        self.counts[kind][outcome] += n

    @property
    def changed(self) -> bool:
        return any(c["created"] or c["updated"] for c in self.counts.values())

    def as_dict(self) -> dict:
        return {
            "counts": {k: dict(v) for k, v in self.counts.items()},
            "files": [dict(f) for f in self.files],
            "skipped": [dict(s) for s in self.skipped],
            "notices": list(self.notices),
        }

    def lines(self) -> list[str]:
        out = [f"{f['name']}: {f['kind']}, {f['records']} records" for f in self.files]
        out += [f"skipped {s['path']}: {s['reason']}" for s in self.skipped]
        width = max(len(k) for k in KINDS)
        for kind in KINDS:
            c = self.counts[kind]
            out.append(
                f"{kind.ljust(width)}  {c['created']:>6} created  {c['updated']:>6} updated  "
                f"{c['unchanged']:>6} unchanged"
            )
        out += [f"note: {n}" for n in self.notices]
        return out
