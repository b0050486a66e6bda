"""Print the table of text limits the README carries (every text field a person types)."""

from django.core.management.base import BaseCommand

from heartbench_site.management.text_inventory import limits_table


class Command(BaseCommand):
    help = "Print every text field a person types with its limit, as the README's Markdown table."

    def handle(self, *args, **options):
        self.stdout.write(limits_table(), ending="")
