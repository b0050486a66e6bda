"""Broken input is rejected with messages naming file, record and field, and nothing at
all is written: not from the broken file, not from the good files imported with it."""

import copy
import functools
import json

import pytest

from annotation.corpus_import.importing import import_files
from annotation.corpus_import.memory_storage import dump_memory_storage
from annotation.corpus_import.problems import ImportProblem, ImportRejected

from . import as_json, corpus_counts, corpus_dump, small_characters

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored_corpus(release_dir):
    """Something to leave untouched: the release scenarios and two small characters."""
    import_files(
        [
            ("scenarios.json", (release_dir / "scenarios.json").read_bytes()),
            ("characters.json", as_json(small_characters())),
        ]
    )
    counts, dump = corpus_counts(), corpus_dump()
    assert counts["annotation.Memory"] == 8
    yield
    assert corpus_counts() == counts
    assert corpus_dump() == dump


@functools.cache
def _release_doc(release_dir, name):
    return json.loads((release_dir / name).read_text())


def release_doc(release_dir, name):
    return copy.deepcopy(_release_doc(release_dir, name))


def references_subset(release_dir, n=3):
    doc = release_doc(release_dir, "ground_truth.json")
    doc["pairs"] = doc["pairs"][:n]
    return doc


def mcq_subset(release_dir, n=3):
    doc = release_doc(release_dir, "mcq.json")
    doc["questions"] = doc["questions"][:n]
    return doc


def step2_subset(release_dir):
    doc = release_doc(release_dir, "activated_memories_step2.json")
    doc["annotations"] = {"CHAR_01": doc["annotations"]["CHAR_01"]}
    return doc


def characters(mutate):
    doc = small_characters()
    mutate(doc)
    return [("characters.json", as_json(doc))]


def memory(doc, character=0, index=0):
    return doc[character]["episodic_memory_set"][index]


def set_in(obj, path, value):
    *parents, last = path
    for key in parents:
        obj = obj[key]
    obj[last] = value


def released(release_dir, name, subset, path, value):
    doc = subset(release_dir)
    if path:
        set_in(doc, path, value)
    return [(name, as_json(doc))]


def storage(mutate_text):
    doc = small_characters(characters=1, memories=1)
    memory(doc)["id"] = "MEM_CHAR_01_N_HIGH_0009"
    fields = {**memory(doc)}
    fields["memory_id"] = fields.pop("id")
    sig = fields.pop("emotion_signature")
    fields.update(
        emotion_primary=sig["primary"],
        emotion_secondary=sig["secondary"],
        emotion_intensity=sig["intensity"],
        is_demo_standin=False,
    )
    return [("memories.txt", mutate_text(dump_memory_storage([fields])).encode())]


# (id, files builder, expected file, record, field, message excerpt)
CASES = [
    (
        "big-five-out-of-range",
        lambda rd: characters(lambda d: d[0]["big_five"].update(N=1.4)),
        "characters.json",
        "CHAR_01",
        "big_five.N",
        "must be a number between 0 and 1, got 1.4",
    ),
    (
        "seven-core-patterns",
        lambda rd: characters(lambda d: d[1]["core_patterns"].pop()),
        "characters.json",
        "CHAR_02",
        "core_patterns",
        "must list exactly 8 core behavioral patterns (App. B.1), got 7",
    ),
    (
        "memory-id-syntax",
        lambda rd: characters(lambda d: memory(d).update(id="MEM_CHAR_01_X_HIGH_0001")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_X_HIGH_0001",
        "id",
        "must look like MEM_CHAR_03_C_HIGH_0002",
    ),
    (
        "memory-of-another-character",
        lambda rd: characters(lambda d: memory(d).update(id="MEM_CHAR_02_N_HIGH_0001")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_02_N_HIGH_0001",
        "id",
        "names CHAR_02, but the memory belongs to CHAR_01",
    ),
    (
        "trait-label-disagrees-with-profile",
        lambda rd: characters(lambda d: memory(d, 0, 2).update(id="MEM_CHAR_01_E_HIGH_0003")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_E_HIGH_0003",
        "id",
        "trait label E_HIGH disagrees with its profile's defining trait (CHAR_01: N_HIGH)",
    ),
    (
        "emotion-intensity-not-a-number",
        lambda rd: characters(
            lambda d: memory(d, 0, 1)["emotion_signature"].update(intensity="high")
        ),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0002",
        "emotion_signature.intensity",
        'must be a number between 0 and 1, got "high"',
    ),
    (
        "timeline-without-age",
        lambda rd: characters(lambda d: memory(d, 1, 0).update(timeline="childhood")),
        "characters.json",
        "CHAR_02 / memory MEM_CHAR_02_N_LOW_0001",
        "timeline",
        'cannot read the event age; expected "stage (X years old)"',
    ),
    (
        "event-age-outside-life-span",
        lambda rd: characters(lambda d: memory(d).update(timeline="later life (52 years old)")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0001",
        "timeline",
        "event age 52 is outside the benchmark's life span (6-50)",
    ),
    (
        "missing-required-field",
        lambda rd: characters(lambda d: memory(d, 0, 3).pop("content_full")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0004",
        "content_full",
        "missing required field",
    ),
    (
        "unknown-field",
        lambda rd: characters(lambda d: d[1].update(ocupation=d[1].pop("occupation"))),
        "characters.json",
        "CHAR_02",
        "ocupation",
        "unknown field",
    ),
    (
        "wrong-json-type",
        lambda rd: characters(lambda d: memory(d).update(triggers="rain, bus")),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0001",
        "triggers",
        'must be an array, got "rain, bus"',
    ),
    (
        "duplicate-memory-id",
        lambda rd: characters(lambda d: memory(d, 0, 2).update(id=memory(d, 0, 1)["id"])),
        "characters.json",
        "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0002",
        "id",
        "duplicate: MEM_CHAR_01_N_HIGH_0002 is already defined earlier in this file",
    ),
    (
        "scenario-stage-not-a-bin",
        lambda rd: released(
            rd,
            "scenarios.json",
            lambda r: release_doc(r, "scenarios.json"),
            ["scenarios", "school_age", 0, "stage"],
            "childhood",
        ),
        "scenarios.json",
        "SCN_SCHOOL_AGE_1",
        "stage",
        "must be one of the eight life-stage bins",
    ),
    (
        "scenario-age-outside-its-bin",
        lambda rd: released(
            rd,
            "scenarios.json",
            lambda r: release_doc(r, "scenarios.json"),
            ["scenarios", "adolescence", 2, "age"],
            19,
        ),
        "scenarios.json",
        "SCN_ADOLESCENCE_3",
        "age",
        "age 19 is outside the adolescence bin (ages 12-17)",
    ),
    (
        "mcq-two-correct-options",
        lambda rd: released(
            rd, "mcq.json", mcq_subset, ["questions", 1, "options", 0, "is_correct"], True
        ),
        "mcq.json",
        "Q_CHAR_01_SCN_AGE_30_TRANSITION_4",
        "options",
        "exactly one option must be correct, got 2",
    ),
    (
        "mcq-answer-key-disagrees",
        lambda rd: released(rd, "mcq.json", mcq_subset, ["questions", 0, "correct_answer"], "A"),
        "mcq.json",
        "Q_CHAR_01_SCN_EARLY_ADULT_TRANSITION_6",
        "correct_answer",
        "is A, but the option marked is_correct is D",
    ),
    (
        "reference-to-unknown-scenario",
        lambda rd: released(
            rd,
            "ground_truth.json",
            references_subset,
            ["pairs", 2, "scenario_id"],
            "SCN_SCHOOL_AGE_99",
        ),
        "ground_truth.json",
        "CHAR_01 / SCN_SCHOOL_AGE_99",
        "scenario_id",
        "unknown scenario SCN_SCHOOL_AGE_99",
    ),
    (
        "reference-stage-disagrees-with-scenario",
        lambda rd: released(
            rd, "ground_truth.json", references_subset, ["pairs", 0, "stage"], "school_age"
        ),
        "ground_truth.json",
        "CHAR_01 / SCN_ADOLESCENCE_5",
        "stage",
        "is school_age, but SCN_ADOLESCENCE_5 is a adolescence scenario",
    ),
    (
        "activation-memory-id-syntax",
        lambda rd: released(
            rd,
            "step2.json",
            step2_subset,
            ["annotations", "CHAR_01", "SCN_SCHOOL_AGE_1", "activated_memories", 3, "memory_id"],
            "MEM_CHAR_01_0005",
        ),
        "step2.json",
        "CHAR_01 / SCN_SCHOOL_AGE_1",
        "activated_memories[3].memory_id",
        "must look like MEM_CHAR_03_C_HIGH_0002",
    ),
    (
        "refined-activations-over-fifty",
        lambda rd: released(
            rd,
            "step2.json",
            step2_subset,
            ["annotations", "CHAR_01", "SCN_SCHOOL_AGE_2", "activated_memories"],
            [{"memory_id": f"MEM_CHAR_01_N_HIGH_{i:04d}", "type": "ER"} for i in range(1, 52)],
        ),
        "step2.json",
        "CHAR_01 / SCN_SCHOOL_AGE_2",
        "activated_memories",
        "step-2 refinement keeps at most 50 memories, got 51",
    ),
    (
        "activation-count-disagrees",
        lambda rd: released(
            rd,
            "step2.json",
            step2_subset,
            ["annotations", "CHAR_01", "SCN_SCHOOL_AGE_1", "final_activated_count"],
            7,
        ),
        "step2.json",
        "CHAR_01 / SCN_SCHOOL_AGE_1",
        "final_activated_count",
        "says 7, but 49 memories are listed",
    ),
    (
        "storage-without-delimiter",
        lambda rd: storage(lambda t: t.replace("---content_full---\n", "")),
        "memories.txt",
        "MEM_CHAR_01_N_HIGH_0009 (line 1)",
        "content_full",
        "missing the ---content_full--- delimiter line",
    ),
    (
        "storage-intensity-not-a-number",
        lambda rd: storage(lambda t: t.replace("emotion_intensity: ", "emotion_intensity: high #")),
        "memories.txt",
        "MEM_CHAR_01_N_HIGH_0009 (line 1)",
        "emotion_intensity",
        'must be a number between 0 and 1, got "high #',
    ),
    (
        "storage-unknown-preamble-key",
        lambda rd: storage(lambda t: t.replace("context: ", "contxt: ")),
        "memories.txt",
        "MEM_CHAR_01_N_HIGH_0009 (line 1)",
        "contxt",
        "unknown field",
    ),
    (
        "same-character-in-two-files",
        lambda rd: [
            ("a.json", as_json(small_characters(characters=1))),
            ("b.json", as_json(small_characters(characters=1))),
        ],
        "b.json",
        "CHAR_01",
        "id",
        "duplicate: CHAR_01 is already defined in a.json (record CHAR_01)",
    ),
    (
        "json-object-with-a-repeated-key",
        lambda rd: [
            (
                "step2.json",
                b'{"dataset_meta": {"step": 2}, "annotations": {"CHAR_01": {}, "CHAR_01": {}}}',
            )
        ],
        "step2.json",
        "",
        "CHAR_01",
        'the key "CHAR_01" appears twice in one JSON object',
    ),
]


@pytest.mark.parametrize(
    ("build", "file", "record", "field", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_broken_input_is_rejected_naming_file_record_and_field(
    stored_corpus, release_dir, build, file, record, field, message
):
    files = build(release_dir)

    with pytest.raises(ImportRejected) as rejected:
        import_files(files)

    matching = [
        p for p in rejected.value.errors if (p.file, p.record, p.field) == (file, record, field)
    ]
    assert matching, "\n".join(map(str, rejected.value.errors))
    assert any(message in p.message for p in matching), "\n".join(map(str, matching))
    text = str(matching[0])
    assert text.startswith(f"{file}: ")
    assert (record or "") in text and field in text


# File-level problems: nothing narrower than the file (and a position) can be named.
FILE_CASES = [
    (
        "invalid-json",
        b'{"scenarios": {"school_age": [\n  {"id": "SCN_SCHOOL_AGE_1",,}]}}',
        "invalid JSON at line 2, column 29",
    ),
    ("invalid-utf8", b'{"pairs": [\n"caf\xe9"]}', "not valid UTF-8 at line 2, column 5"),
    ("unknown-json-kind", b'{"rows": []}', "unknown file kind: a JSON document with rows"),
    (
        "unknown-text-kind",
        b"name,age\nAda,9\n",
        "unknown file kind: neither JSON nor the memory storage",
    ),
    ("empty-file", b"   \n", "the file is empty"),
    ("no-records", b'{"questions": []}', "holds no records"),
]


@pytest.mark.parametrize(
    ("content", "message"), [pytest.param(*c[1:], id=c[0]) for c in FILE_CASES]
)
def test_unreadable_files_are_rejected_with_a_position(stored_corpus, content, message):
    with pytest.raises(ImportRejected) as rejected:
        import_files([("upload.json", content)])
    assert any(p.file == "upload.json" and message in p.message for p in rejected.value.errors), (
        "\n".join(map(str, rejected.value.errors))
    )


def test_problem_text_names_file_record_and_field():
    problem = ImportProblem(
        "characters.json",
        "CHAR_03 / memory MEM_CHAR_03_C_HIGH_0002",
        "emotion_signature.intensity",
        'must be a number between 0 and 1, got "high"',
    )
    assert str(problem) == (
        "characters.json: record CHAR_03 / memory MEM_CHAR_03_C_HIGH_0002, "
        'field emotion_signature.intensity: must be a number between 0 and 1, got "high"'
    )


def test_only_the_last_of_several_files_is_broken_and_nothing_is_written(
    stored_corpus, release_dir
):
    scenarios = release_doc(release_dir, "scenarios.json")
    scenarios["scenarios"]["school_age"][0]["name"] = "A renamed scenario"
    broken_mcq = mcq_subset(release_dir)
    broken_mcq["questions"][2]["options"][3]["label"] = "E"
    files = [
        ("scenarios.json", as_json(scenarios)),  # would update a scenario
        ("characters.json", as_json(small_characters(characters=4))),  # would add CHAR_03-04
        ("ground_truth.json", as_json(references_subset(release_dir))),  # would add 3 references
        ("mcq.json", as_json(broken_mcq)),
    ]

    with pytest.raises(ImportRejected) as rejected:
        import_files(files)

    assert [(p.file, p.record, p.field) for p in rejected.value.errors] == [
        ("mcq.json", "Q_CHAR_01_SCN_ENTERING_ADULT_WORLD_2", "options[3].label")
    ]
    # stored_corpus checks on teardown that every table is exactly as before.


def test_problems_of_every_file_are_reported_together(stored_corpus, release_dir):
    files = characters(lambda d: d[0]["big_five"].update(O=-0.1)) + released(
        release_dir, "mcq.json", mcq_subset, ["questions", 0, "stage"], "middle_age"
    )
    with pytest.raises(ImportRejected) as rejected:
        import_files(files)
    assert {p.file for p in rejected.value.errors} == {"characters.json", "mcq.json"}


def test_activations_need_scenarios_stored_or_alongside(release_dir):
    with pytest.raises(ImportRejected) as rejected:
        import_files([("step2.json", as_json(step2_subset(release_dir)))])
    assert [(p.file, p.record, p.field) for p in rejected.value.errors] == [
        ("step2.json", "", "scenario_id")
    ]
    assert "import scenarios.json first or together" in rejected.value.errors[0].message
    assert sum(corpus_counts().values()) == 0


def test_a_flood_of_problems_is_capped_per_file():
    doc = small_characters(characters=1, memories=1200)
    for mem in doc[0]["episodic_memory_set"]:
        mem["emotion_signature"]["intensity"] = "high"
    with pytest.raises(ImportRejected) as rejected:
        import_files([("characters.json", as_json(doc))])
    errors = rejected.value.errors
    assert len(errors) == 1001
    assert errors[-1].message == "200 further problems in this file not listed"
    assert sum(corpus_counts().values()) == 0
