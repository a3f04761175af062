"""runner.executors is a floor below trial and verify: it imports neither, nor any private name of another
package; trial and verify are siblings that import each other not at all; and no circle of runner's subpackages
runs through any of the three."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import runner

FLOOR = ("runner.executors", "runner.trial", "runner.verify")


def test_the_executors_are_a_floor_below_trial_and_verify() -> None:
    graph = grimp.build_graph("runner")
    layers = ("runner.commands", {"runner.trial", "runner.verify"}, "runner.executors", "runner.settings")
    assert graph.find_illegal_dependencies_for_layers(layers=layers, containers=set()) == set()


def test_no_circle_of_subpackages_runs_through_trial_verify_or_the_executors() -> None:
    graph = grimp.build_graph("runner")
    packages = {".".join(m.split(".")[:2]) for m in graph.modules if m.count(".") >= 1}
    circles = [(a, b) for a in FLOOR for b in sorted(packages - {a})
               if graph.chain_exists(importer=a, imported=b, as_packages=True)
               and graph.chain_exists(importer=b, imported=a, as_packages=True)]
    assert circles == []


def test_the_executors_import_no_private_name_of_another_package() -> None:
    private = []
    for path in sorted((Path(runner.__file__).parent / "executors").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith("runner.executors"):
                private += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    assert private == []
