"""The order in which the suite's processes take the test files (scripts/test.sh loads this
plugin and runs pytest-xdist with ``--dist loadfile --no-loadscope-reorder``).

Each file runs whole in one process, and a process takes the next file when it is nearly
done with its own. By itself pytest-xdist hands out the files with the most tests first,
which leaves the files with a few long tests (the URL walks, the browser tours, the
rehearsal) for the end, where one of them keeps a process busy while the others have
nothing left: the suite's wall time then is that file's. Handing out the long files first
and the many short ones after lets the processes finish together.

SLOW_FILES lists the files that took the longest in a full run (seconds of one process,
measured with ``--durations``); the rest follow, most tests first, as pytest-xdist would
order them. A file missing from the list only runs later than it could: the list is a
schedule, never a selection, and the tests collected are the same either way.
"""

import pytest

SLOW_FILES = {
    "tests/production/test_production_rehearsal.py": 290,
    "tests/web/test_blinding.py": 270,
    "tests/web/test_generation_blinding.py": 250,
    "tests/browser/test_plain_names.py": 200,
    "tests/reliability/test_api_fuzz.py": 240,
    "tests/reliability/test_state_changes.py": 160,
    "tests/reference_labels/test_blinding_scan.py": 110,
    "tests/site/test_demo_settings.py": 85,
    "tests/comparison/test_blinding_scan.py": 80,
    "tests/browser/test_accessibility.py": 75,
    "tests/web/test_navigation.py": 70,
    "tests/llm/test_demo_prompt_kinds.py": 70,
    "tests/security/test_text_limits.py": 70,
    "tests/llm/test_faults.py": 70,
    "tests/rehearsal/test_rehearsal.py": 65,
    "tests/web/test_access_matrix.py": 65,
    "tests/security/test_url_walk.py": 60,
    "tests/site/test_history_state_moved.py": 55,
    "tests/mcq/test_demo.py": 50,
    "tests/mcq/test_blinding.py": 45,
    "tests/browser/test_corpus_construction.py": 40,
    "tests/agreement/test_model_accuracy.py": 35,
    "tests/reliability/test_faults.py": 30,
}


def file_of(item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    counts: dict[str, int] = {}
    for item in items:
        counts[file_of(item)] = counts.get(file_of(item), 0) + 1
    first_seen = {name: index for index, name in enumerate(counts)}

    def rank(name):
        if name in SLOW_FILES:
            return (0, -SLOW_FILES[name], first_seen[name])
        return (1, -counts[name], first_seen[name])

    order = {name: rank(name) for name in counts}
    # A stable sort: the tests of a file keep their order.
    items.sort(key=lambda item: order[file_of(item)])
