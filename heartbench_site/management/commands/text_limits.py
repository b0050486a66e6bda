"""Print the table of text limits of docs/lab-admin/security.md (every text field typed)."""

from django.core.management.base import BaseCommand

from heartbench_site.management.text_inventory import limits_table


class Command(BaseCommand):
    help = "Print every text field a person types with its limit (docs/lab-admin/security.md)."

    def handle(self, *args, **options):
        self.stdout.write(limits_table(), ending="")
