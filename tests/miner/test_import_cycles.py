"""No module of the miner imports itself back through others: each shared thing lives in the module that owns it."""

from __future__ import annotations

import grimp
import pytest


@pytest.mark.parametrize("package", ["miner", "corpus.languages"])
def test_no_module_imports_itself_back(package: str) -> None:
    graph = grimp.build_graph(package.split(".")[0])  # imports under TYPE_CHECKING count too
    modules = {name for name in graph.modules if name == package or name.startswith(package + ".")}
    circles = sorted(
        (module, *chain) for module in modules for imported in graph.find_modules_directly_imported_by(module)
        if imported in modules and (chain := graph.find_shortest_chain(importer=imported, imported=module)))
    assert circles == []
