"""An import-linter contract type: import-linter's own layers contract, which also fails
when a module of the root packages lies in no layer.

import-linter's ``exhaustive = true`` only works with ``containers`` (the same layers
repeated inside each container), while our layers run across the top-level packages
(``adjudication.export`` above ``annotation.corpus_import`` above ``humanbaseline`` …). So
this contract checks the same thing across them: every module is a layer or inside one,
except a package's ``__init__`` above a layer (``annotation`` holds ``annotation.corpus``,
a layer cannot hold another), which then must import nothing of the project. Registered
in pyproject.toml as ``contract_types``; ``lint-imports`` runs it."""

import grimp
from importlinter.application import output
from importlinter.contracts.layers import LayersContract
from importlinter.domain.contract import ContractCheck


class EveryModuleInALayer(LayersContract):
    type_name = "layers_every_module"

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        checked = super().check(graph, verbose)
        outside = sorted(self._modules_in_no_layer(graph))
        checked.metadata["outside_every_layer"] = outside
        checked.kept = checked.kept and not outside
        return checked

    def _modules_in_no_layer(self, graph: grimp.ImportGraph):
        roots = tuple(self.session_options["root_packages"])
        layered = {tail.name for layer in self.layers for tail in layer.module_tails}  # type: ignore
        for module in graph.modules:
            if not module.startswith(tuple(f"{r}." for r in roots)) and module not in roots:
                continue
            if any(module == name or module.startswith(f"{name}.") for name in layered):
                continue
            holds_a_layer = any(name.startswith(f"{module}.") for name in layered)
            imports_project = any(
                imported.split(".")[0] in roots
                for imported in graph.find_modules_directly_imported_by(module)
            )
            if holds_a_layer and not imports_project:
                continue
            yield module

    def render_broken_contract(self, check: ContractCheck) -> None:
        super().render_broken_contract(check)
        if check.metadata["outside_every_layer"]:
            output.print("These modules are in no layer (give each one a layer):")
            output.new_line()
            for module in check.metadata["outside_every_layer"]:
                output.print_error(f"- {module}", bold=False)
            output.new_line()
