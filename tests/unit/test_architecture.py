"""No module outside a system's own folders imports that system or branches on its name (issue 38).

Every module under spec/, reference/, conformance/ and traces/ is parsed (ast). A system's own folders are
``spec/<package>``, ``reference/<package>``, ``conformance/<package>`` and ``traces/<package>``, its
package being the folder of the record its ``ledgerspec.systems`` entry point names (the cache:
``spec/cache``, ``reference/cache``, ``traces/cache``). Anywhere else a module may not import one of
those packages, nor compare with a system's name (``== "txlog-writer"``, ``in ("cursor-state", ...)``):
it gets a system from the registry (``conformance/systems.py``) and reads its record. A comparison
with a module's constant naming a system (``CACHE = "cache"`` ... ``== CACHE``) counts as one with the name.

The only exceptions are the old module paths kept as aliases for one release (``ALIASES``), each of which
imports the one module it stands for and nothing else.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("spec", "reference", "conformance", "traces")
SHARED_PACKAGES = ("spec", "reference", "conformance", "traces")
"""Where a system has a folder of its own (its package's name in each)."""

ALIASES: dict[str, str] = {
    "conformance/adapters/process_reference.py": "ledgerspec.conformance.cache.adapters.process_reference",
    "conformance/txlog/process_reference.py": "ledgerspec.conformance.txlog_writer.process_reference",
}
"""Old module paths kept as aliases of a system's module for one release (CHANGELOG): each imports only that."""



def _systems() -> dict[str, str]:
    """System name -> its Python package name (the folder of its record), the cache's included."""
    found = {}
    for entry in entry_points(group="ledgerspec.systems"):
        module = entry.value.partition(":")[0]
        if module.startswith("ledgerspec.conformance."):
            found[entry.name] = module.split(".")[2]
    return found


SYSTEMS = _systems()
PACKAGES = {f"ledgerspec.{top}.{package}" for top in SHARED_PACKAGES for package in SYSTEMS.values()}
OWN_FOLDERS = {f"{top}/{package}/" for top in SHARED_PACKAGES for package in SYSTEMS.values()}


def _modules() -> list[Path]:
    return sorted(
        path
        for top in SCANNED
        for path in (ROOT / top).rglob("*.py")
        if not any(path.relative_to(ROOT).as_posix().startswith(own) for own in OWN_FOLDERS)
    )


def _owned(module: str) -> bool:
    return any(module == package or module.startswith(package + ".") for package in PACKAGES)


def _imported(node: ast.AST) -> list[str]:
    """The system packages an import statement imports (``from ledgerspec.spec import txlog_writer`` is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if _owned(alias.name)]
    if isinstance(node, ast.ImportFrom) and node.module:
        if _owned(node.module):
            return [node.module]
        return [name for alias in node.names if _owned(name := f"{node.module}.{alias.name}")]
    return []


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's constants that name a system (``CACHE = "cache"``), by their name."""
    return {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in SYSTEMS
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _names_compared(node: ast.AST, constants: dict[str, str]) -> list[str]:
    """System names a comparison tests against (``== "x"``, ``!= X``, ``in ("x", "y")``)."""
    if not isinstance(node, ast.Compare):
        return []
    found = []
    for side in [node.left, *node.comparators]:
        for value in side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]:
            if isinstance(value, ast.Constant) and value.value in SYSTEMS:
                found.append(value.value)
            elif isinstance(value, ast.Name) and value.id in constants:
                found.append(constants[value.id])
    return found


def problems(path: Path) -> list[str]:
    """Why the module at ``path`` breaks the rule (empty: it does not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    constants = _constants(tree)
    for node in ast.walk(tree):
        found += [f"line {node.lineno}: imports {module}" for module in _imported(node)]
        found += [
            f"line {node.lineno}: compares with the system name {name!r}" for name in _names_compared(node, constants)
        ]
    return sorted(set(found))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_registry_names_the_shipped_systems_and_their_folders():
    assert {"cache": "cache", "cursor-state": "cursor_state", "txlog-writer": "txlog_writer"}.items() <= SYSTEMS.items()
    assert "conformance/txlog_writer/" in OWN_FOLDERS


def test_no_shared_module_imports_a_system_or_branches_on_its_name():
    broken = {_name(path): found for path in _modules() if (found := problems(path))}
    outside = {name: found for name, found in broken.items() if name not in ALIASES}
    assert not outside, "\n".join(f"{name}: {'; '.join(found)}" for name, found in sorted(outside.items()))


def test_an_alias_imports_only_the_module_it_stands_for():
    for alias, target in ALIASES.items():
        assert problems(ROOT / alias) == [f"line 3: imports {target}"]


def test_the_rule_is_seen_when_broken(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from ledgerspec.spec import txlog_writer\nimport ledgerspec.conformance.cursor_state._machine\n"
        "def f(s):\n    return s == 'txlog-writer' or s in ('cursor-state', 'x')\n"
        "CACHE = 'cache'\ndef g(s):\n    return s != CACHE\n"
    )
    assert problems(module) == [
        "line 1: imports ledgerspec.spec.txlog_writer",
        "line 2: imports ledgerspec.conformance.cursor_state._machine",
        "line 4: compares with the system name 'cursor-state'",
        "line 4: compares with the system name 'txlog-writer'",
        "line 7: compares with the system name 'cache'",
    ]


def test_nothing_shared_names_the_test_only_system():
    names = ("fifo-queue", "fifo_queue", "QUEUE-FIFO", "QUEUE-BOUND", "QUEUE-MODEL")
    files = [path for top in SCANNED for path in (ROOT / top).rglob("*") if path.suffix in {".py", ".md", ".json"}]
    named = [_name(path) for path in files if any(name in path.read_text(encoding="utf-8") for name in names)]
    assert named == []


def test_the_spec_imports_no_numpy_and_nothing_of_the_trace_checkers():
    """The normative checks are plain Python; numpy is the trace checkers' accelerator (traces/cache/)."""
    offending = []
    for path in sorted((ROOT / "spec").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offending += [f"{_name(path)}: {name}" for name in names if name.split(".")[0] == "numpy"]
            offending += [f"{_name(path)}: {name}" for name in names if name.startswith("ledgerspec.traces")]
    assert not offending, offending
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, ledgerspec.spec.cache._monitor; print('numpy' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == "False"


def test_every_invariant_a_trace_can_show_has_one_accelerator():
    from ledgerspec.spec.cache.invariants import CATALOGUE
    from ledgerspec.traces.cache.bulk.accelerators import ACCELERATORS

    assert set(ACCELERATORS) == {i.id for i in CATALOGUE if i.on_traces}
    assert all(i.check is not None for i in CATALOGUE if i.id != "CACHE-MODEL")
