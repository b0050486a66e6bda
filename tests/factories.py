"""factory_boy factories for the corpus and for users holding roles."""

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from core.life_stages import life_stage_for_age

DEFAULT_PASSWORD = "correct-horse-battery-9"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@lab.example")
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def roles(self, create, extracted, **kwargs):
        """UserFactory(roles=[Role.ARBITRATOR, ...]). The role groups come from a data
        migration, which a transactional test's flush before this one may have emptied."""
        if extracted:
            self.groups.add(*[Group.objects.get_or_create(name=str(r))[0] for r in extracted])
        if create:
            self.save()


def _free_key_from(n: int) -> str:
    used = set(Character.objects.values_list("key", flat=True))
    for step in range(99):
        key = f"CHAR_{((n + step) % 99) + 1:02d}"
        if key not in used:
            return key
    return f"CHAR_{(n % 99) + 1:02d}"  # all 99 taken: got, not created


class CharacterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Character
        django_get_or_create = ("key",)

    # The next key in turn that no row holds (keys are two digits, so they wrap at 99): a bare
    # CharacterFactory() is a new character even when the test already made CHAR_NN by name.
    key = factory.Sequence(lambda n: _free_key_from(n))


def unused_character() -> Character:
    """A new character, whatever keys the test has already made by name."""
    return CharacterFactory(key=_free_key_from(0))


class ProfileVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ProfileVersion

    character = factory.SubFactory(CharacterFactory)
    number = factory.Sequence(lambda n: n + 1)
    construction_label = "N_HIGH"
    occupation = "Archive conservator"
    openness = 0.5
    conscientiousness = 0.6
    extraversion = 0.4
    agreeableness = 0.55
    neuroticism = 0.95
    description = "A careful person who reads every situation for what could go wrong."
    self_value_logic = "If I anticipate every failure, nobody can blame me for it."
    core_patterns = factory.LazyFunction(
        lambda: [f"pattern {i}: observable habit {i}" for i in range(1, 9)]
    )


class ScenarioFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scenario

    scenario_id = factory.Sequence(lambda n: f"SCN_SCHOOL_AGE_{n + 1}")
    stage = "school_age"
    age_range = "ages 6-11"
    age = 10
    name = "The Entrusted Caretaker"
    category = "Responsibility"
    intensity = "Medium"
    description_for_agent = "You must choose between a weekend trip and a promise to a teacher."
    setting_location = "Classroom"
    setting_time = "Friday, 4:30 PM"
    setting_atmosphere = "Calm"
    context_text = "Your teacher trusted you with the class plants."
    trigger_sender = "Mom"
    trigger_message = "We leave for the amusement park at nine tomorrow!"
    action_required = "Decide whether to go."


class MemoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Memory

    character = factory.SubFactory(CharacterFactory)
    sequence = factory.Sequence(lambda n: n + 1)
    memory_id = factory.LazyAttribute(lambda m: f"MEM_{m.character.key}_N_HIGH_{m.sequence:04d}")
    anonymized_id = factory.LazyAttribute(lambda m: f"MEM_{m.character.key}_{m.sequence:04d}")
    event_age = 9
    timeline = factory.LazyAttribute(lambda m: f"childhood (age {m.event_age})")
    life_stage = factory.LazyAttribute(lambda m: life_stage_for_age(m.event_age).key)
    context = "A rainy afternoon in the school library, waiting for a parent to arrive late."
    content_summary = "I waited alone in the library and worried that nobody would come for me."
    content_full = factory.LazyAttribute(
        lambda m: f"I remember the rain on the window. ({m.sequence})" * 40
    )
    triggers = factory.LazyFunction(lambda: ["rain", "waiting", "library", "lateness"])
    psych_conclusion = "Abandonment fears surface when caregivers are late."
    behavior_policy = "Arrive early and plan for others' lateness."
    emotion_primary = "fear"
    emotion_secondary = "loneliness"
    emotion_intensity = 0.7
    relevance_tags = factory.LazyFunction(lambda: ["family", "waiting", "school", "fear"])
