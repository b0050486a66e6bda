"""The export loads straight into the tools the field uses (issue #23): unzipped, the
folder is a Hugging Face dataset whose card names the configurations model_facing
(default), answers, memories and construction, and every Parquet file reads with pandas;
rows and columns are those of the JSON files of the same export."""

import io
import json
import zipfile

import pytest
import yaml

from adjudication.export.datasets import CONFIGS, SPLIT
from adjudication.export.services import FOLDER, build_export, verify_manifest
from audit.hygiene.card import DEFAULT_LICENSE, DEFAULT_OUT_OF_SCOPE
from audit.hygiene.models import HygieneFlag
from tests.hygiene.conftest import screen_now

pytestmark = pytest.mark.django_db

MODEL_FACING_COLUMNS = [
    "question_id",
    "character_id",
    "occupation",
    "scenario_id",
    "stage",
    "age",
    "name",
    "description_for_agent",
    "setting_location",
    "setting_time",
    "setting_atmosphere",
    "context_text",
    "trigger_sender",
    "trigger_message_content",
    "trigger_action_required",
    "option_A",
    "option_B",
    "option_C",
    "option_D",
]


@pytest.fixture
def offline_hf(tmp_path, monkeypatch):
    """datasets without the network, its cache in tmp_path."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    return tmp_path / "hf-cache"


def _unzip(data: bytes, target):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(target)
    return target / FOLDER


def test_the_export_loads_with_datasets_and_pandas(imported_release, tmp_path, offline_hf):
    import datasets
    import pandas

    screen = screen_now(None)  # issue #37: the card records the release hygiene screen
    bundle = build_export()
    assert verify_manifest(bundle.files) == []
    assert {path for _, path, _ in CONFIGS} | {"README.md"} <= set(bundle.manifest["files"])
    root = _unzip(bundle.zip_bytes(), tmp_path / "unzipped")

    items = json.loads((root / "model_facing/items.json").read_text())["questions"]
    answers = json.loads((root / "model_facing/answers.json").read_text())["answers"]
    memories = json.loads((root / "model_facing/memories.json").read_text())["memories"]
    construction = json.loads((root / "construction/items.json").read_text())["questions"]
    assert len(items) == len(answers) == len(construction) == 673
    assert memories  # the stand-in characters' memories
    expected = {
        "model_facing": (len(items), MODEL_FACING_COLUMNS),
        "answers": (len(answers), ["question_id", "correct_answer"]),
        "memories": (
            len(memories),
            ["memory_id", "character_id", "timeline", "event_age", "content_full"],
        ),
        "construction": (len(construction), sorted(construction[0])),
    }

    card = (root / "README.md").read_text()
    assert card.startswith("---\n") and "configs:" in card
    _assert_release_card(card, screen)
    for name, path, _ in CONFIGS:
        rows, columns = expected[name]
        frame = pandas.read_parquet(root / path)
        assert list(frame.columns) == columns, name
        assert len(frame) == rows, name
        loaded = datasets.load_dataset(str(root), name, cache_dir=str(offline_hf))
        assert list(loaded) == [SPLIT], name
        assert loaded[SPLIT].column_names == columns, name
        assert loaded[SPLIT].num_rows == rows, name

    # The default configuration is the model-facing items; no key is among its columns.
    default = datasets.load_dataset(str(root), split=SPLIT, cache_dir=str(offline_hf))
    assert default.column_names == MODEL_FACING_COLUMNS
    assert default["question_id"] == [q["question_id"] for q in items]
    first = items[0]
    row = default[0]
    assert row["scenario_id"] == first["scenario"]["scenario_id"]
    assert [row[f"option_{o['label']}"] for o in first["options"]] == [
        o["content"] for o in first["options"]
    ]

    # Answers and construction rows are the JSON rows; nested fields are JSON strings.
    keyed = pandas.read_parquet(root / "model_facing/answers.parquet")
    assert keyed.to_dict("records") == answers
    record = pandas.read_parquet(root / "construction/items.parquet").iloc[0]
    assert json.loads(record["options"]) == construction[0]["options"]
    assert json.loads(record["chain"]) == construction[0]["chain"]
    assert record["question_id"] == construction[0]["question_id"]
    written = pandas.read_parquet(root / "model_facing/memories.parquet")
    assert written.iloc[0]["content_full"] == memories[0]["content_full"]


def _assert_release_card(card: str, screen):
    """Licence, intended use, out-of-scope uses and the screening summary, in the YAML
    header; the summary's counts are those of the screen's flag records."""
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] == DEFAULT_LICENSE
    release = header["heartbench_release"]
    assert release["intended_use"]
    assert release["out_of_scope_uses"] == list(DEFAULT_OUT_OF_SCOPE)
    screening = release["screening"]
    flags = HygieneFlag.objects.filter(run=screen)
    assert screening["run_date"] == screen.finished_at.date().isoformat()
    # 673 references and their 2,692 options, 11 x 3 memories.
    assert screening["texts_screened"] == screen.text_done == 673 + 4 * 673 + 33
    assert screening["flags"] == flags.count() > 0
    assert screening["flags_by_kind"]["offensive"] == flags.filter(rule="lexicon").count()
    assert screening["unresolved"] == flags.exclude(status="dismissed").count()
    assert "## Release hygiene screening" in card and f"| Flags | {flags.count()} |" in card


def test_parquet_files_and_card_are_byte_identical_on_repeat(secret_corpus):
    first, second = build_export().files, build_export().files
    for _, path, _ in CONFIGS:
        assert first[path] == second[path], path
    assert first["README.md"] == second["README.md"]
