"""Between top-level folders, dependencies point down the layers (issue 33): at most two
folders import from a folder above them, each explained in the layout page of the guides
(docs/developers/layout.md).

``lint-imports`` checks every module against the layers contract (pyproject.toml); a
folder (``annotation/``, ``audit/``, ``adjudication/``) holds stages at several layers,
so a folder's place is its span: the highest and the lowest layer of its stages (its
entry points Django loads, the contract's second layer, left out: they import only their
own stages). Folder B lies above folder A when B's span is higher at both ends; an import
from A into B is then an upward direction between folders."""

import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "layers_every_module"
# (importing folder, imported folder): each explained in docs/developers/layout.md.
EXPLAINED = {
    ("annotation", "adjudication"),  # the corpus importer fills arbitration and MCQ tables
    ("audit", "adjudication"),  # the reference-label audit audits the final MCQs
}


def _contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == CONTRACT]
    names = [[n.strip() for n in layer.replace("|", ":").split(":")] for layer in layers]
    return config["root_packages"], names


def upward_folder_imports() -> dict[tuple[str, str], list[tuple[str, str]]]:
    roots, layers = _contract()
    entry_layer = next(i for i, names in enumerate(layers) if "annotation.models" in names)

    def layer_of(module):
        for i, names in enumerate(layers):
            if any(module == n or module.startswith(f"{n}.") for n in names):
                return i
        return None

    graph = grimp.build_graph(*roots, cache_dir=None)
    spans = defaultdict(set)
    for module in graph.modules:
        layer = layer_of(module)
        if layer is not None and layer != entry_layer:
            spans[module.split(".")[0]].add(layer)
    top = {folder: min(found) for folder, found in spans.items()}
    floor = {folder: max(found) for folder, found in spans.items()}
    upward = defaultdict(list)
    for module in graph.modules:
        a = module.split(".")[0]
        for imported in graph.find_modules_directly_imported_by(module):
            b = imported.split(".")[0]
            if b in top and a in top and b != a and top[b] < top[a] and floor[b] < floor[a]:
                upward[(a, b)].append((module, imported))
    return dict(upward)


def test_at_most_two_folders_import_from_a_folder_above_them_each_explained():
    upward = upward_folder_imports()
    # A new direction fails; one that is gone too, so the layout page says no more than is true.
    assert set(upward) == EXPLAINED, {k: v for k, v in upward.items() if k not in EXPLAINED}
    assert len({importer for importer, _ in upward}) <= 2
    layout = (ROOT / "docs" / "developers" / "layout.md").read_text()
    for importer, imported in EXPLAINED:
        assert f"`{importer}/` → `{imported}/`" in layout
