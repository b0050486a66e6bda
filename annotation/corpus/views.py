"""Corpus pages for the roles that may read the construction corpus. Thin: parse, call
a selector, render."""

from django.core.paginator import Paginator
from django.shortcuts import redirect, render

from annotation.corpus import selectors
from annotation.corpus.provenance import source_for
from core.roles import CORPUS_READERS, role_required

CHARACTERS_PER_PAGE = 50
MEMORIES_PER_PAGE = 50

corpus_reader_required = role_required(*CORPUS_READERS)


@corpus_reader_required
def corpus_index(request):
    return redirect("corpus:character-list")


@corpus_reader_required
def character_list(request):
    page = Paginator(selectors.character_list(), CHARACTERS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "annotation/character_list.html", {"page": page})


@corpus_reader_required
def character_detail(request, key):
    character = selectors.character_get(key=key)
    current = character.current_versions[0] if character.current_versions else None
    memories = Paginator(
        selectors.memory_list_for_table(character=character), MEMORIES_PER_PAGE
    ).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/character_detail.html",
        {
            "character": character,
            "versions": character.current_versions,
            "current": current,
            # Only admins read which model drafted the profile (issue #35).
            "current_source": source_for(request.user, current.source) if current else "",
            "stage_counts": selectors.memory_life_stage_counts(character=character),
            "memories": memories,
        },
    )


@corpus_reader_required
def memory_detail(request, memory_id):
    return render(
        request,
        "annotation/memory_detail.html",
        {"memory": selectors.memory_get(memory_id=memory_id)},
    )


@corpus_reader_required
def scenario_list(request):
    return render(
        request,
        "annotation/scenario_list.html",
        {"stages": selectors.scenarios_by_life_stage()},
    )


@corpus_reader_required
def scenario_detail(request, scenario_id):
    return render(
        request,
        "annotation/scenario_detail.html",
        {"scenario": selectors.scenario_get(scenario_id=scenario_id)},
    )
