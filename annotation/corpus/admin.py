"""Django admin for the corpus: a frozen profile version is view-only (create a new
version)."""

from django.contrib import admin
from django.db.models import Count

from annotation.corpus.models import ActivationSet, Character, Memory, ProfileVersion, Scenario


class FrozenFilter(admin.SimpleListFilter):
    title = "frozen"
    parameter_name = "frozen"

    def lookups(self, request, model_admin):
        return [("yes", "Frozen"), ("no", "Draft")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(frozen_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(frozen_at__isnull=True)
        return queryset


class FrozenIsViewOnly:
    """A frozen version never changes (App. B.1): the admin may look, not touch."""

    def has_change_permission(self, request, obj=None):
        frozen = obj is not None and getattr(obj, "is_frozen", False)
        return not frozen and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        frozen = obj is not None and getattr(obj, "is_frozen", False)
        return not frozen and super().has_delete_permission(request, obj)


class ProfileVersionInline(admin.TabularInline):
    model = ProfileVersion
    fields = ["number", "construction_label", "occupation", "frozen_at", "is_demo_standin"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["key", "version_count", "memory_count", "created_at"]
    search_fields = ["key"]
    inlines = [ProfileVersionInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                _versions=Count("versions", distinct=True),
                _memories=Count("memories", distinct=True),
            )
        )

    @admin.display(description="versions", ordering="_versions")
    def version_count(self, obj):
        return obj._versions

    @admin.display(description="memories", ordering="_memories")
    def memory_count(self, obj):
        return obj._memories


@admin.register(ProfileVersion)
class ProfileVersionAdmin(FrozenIsViewOnly, admin.ModelAdmin):
    list_display = [
        "__str__",
        "construction_label",
        "occupation",
        "openness",
        "conscientiousness",
        "extraversion",
        "agreeableness",
        "neuroticism",
        "is_frozen",
        "is_demo_standin",
        "created_at",
    ]
    list_filter = [FrozenFilter, "is_demo_standin"]
    search_fields = ["character__key", "construction_label", "occupation", "description"]
    list_select_related = ["character"]
    autocomplete_fields = ["character"]
    readonly_fields = ["created_at", "frozen_at", "frozen_by"]

    @admin.display(boolean=True, description="frozen", ordering="frozen_at")
    def is_frozen(self, obj):
        return obj.is_frozen


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = [
        "memory_id",
        "anonymized_id",
        "character",
        "event_age",
        "life_stage",
        "emotion_primary",
        "emotion_intensity",
        "is_demo_standin",
    ]
    list_filter = ["life_stage", "is_demo_standin", "character"]
    search_fields = ["memory_id", "anonymized_id", "content_summary"]
    list_select_related = ["character"]
    autocomplete_fields = ["character"]
    readonly_fields = ["created_at"]
    # 11,000 memories at full scale: skip the unfiltered COUNT on every filtered page.
    show_full_result_count = False
    list_per_page = 50


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["scenario_id", "stage", "age", "name", "diamonds_dimension", "intensity"]
    list_filter = ["stage", "diamonds_dimension", "intensity"]
    search_fields = ["scenario_id", "name", "category", "description_for_agent"]
    readonly_fields = ["created_at"]


@admin.register(ActivationSet)
class ActivationSetAdmin(admin.ModelAdmin):
    list_display = ["character", "scenario", "step", "origin", "scenario_age", "memory_count"]
    list_filter = ["step", "origin", "character"]
    search_fields = ["character__key", "scenario__scenario_id"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]

    @admin.display(description="memories")
    def memory_count(self, obj):
        return len(obj.memory_ids or ())
