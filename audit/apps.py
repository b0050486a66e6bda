from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Memory quality audit and reference-label audit"

    def ready(self):
        from adjudication.export.chain import register_chain_section
        from audit.reference_labels.selectors import label_audit_chain_section

        register_chain_section("label_audit", label_audit_chain_section)
