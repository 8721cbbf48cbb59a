"""The house's rules, read from every module's imports (function-level ones included).

- The four packages are layers: provenance <- kbstore <- ingest <- repair; each imports only the ones below it.
  The two command modules (kbstore/cli.py, repair/cli.py) are the roof and may import any package.
- Between repair/'s subpackages, code imports only the public names a subpackage's __init__ lists
  (`from repair.engine import evaluate`), never one of its modules; and the subpackages form a DAG.
- No import cycle between modules.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["provenance", "kbstore", "ingest", "repair"]
ROOF = {"kbstore.cli", "repair.cli", "repair.__main__"}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in LAYERS:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


MODULES = _modules()
SUBPACKAGES = sorted(m.split(".")[1] for m, p in MODULES.items()
                     if m.count(".") == 1 and m.startswith("repair.") and p.name == "__init__.py")


def _exports(sub: str) -> dict[str, str]:
    """A repair subpackage's public names and the module each comes from, read from its __init__'s exports(...) call."""
    tree = ast.parse(MODULES[f"repair.{sub}"].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "exports":
            where = ast.literal_eval(node.args[1])
            names = {n: f"repair.{sub}.{m}" for m, ns in where.items() for n in ns}
            for kw in node.keywords:
                if kw.arg == "modules":
                    names.update({m: f"repair.{sub}.{m}" for m in ast.literal_eval(kw.value)})
            return names
    return {}


EXPORTS = {sub: _exports(sub) for sub in SUBPACKAGES}


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(module, name or None, line) for every import of our packages in `module`: `from module import name`."""
    path = MODULES[module]
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: len(module.split(".")) - (node.level - (1 if is_pkg else 0))]
                base = ".".join(parent + ([node.module] if node.module else []))
            out += [(base, a.name, node.lineno) for a in node.names]
    return [i for i in out if i[0].split(".")[0] in LAYERS]


def _subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "repair" and len(parts) > 1 and parts[1] in SUBPACKAGES else None


def _target(imported: str, name: str | None) -> str:
    """The module an import really reaches: a subpackage's public name resolves to its home module."""
    sub = _subpackage(imported)
    if name is not None and sub is not None and imported == f"repair.{sub}" and name in EXPORTS[sub]:
        return EXPORTS[sub][name]
    if name is not None and f"{imported}.{name}" in MODULES:
        return f"{imported}.{name}"
    return imported if imported in MODULES else imported.rsplit(".", 1)[0]


def test_packages_only_import_the_layers_below():
    upward = [f"{m}:{line} imports {imp}" for m in MODULES if m not in ROOF for imp, _, line in _imports(m)
              if LAYERS.index(imp.split(".")[0]) > LAYERS.index(m.split(".")[0])]
    assert upward == []


def test_repair_subpackages_import_each_other_through_public_names():
    wrong = []
    for m in MODULES:
        mine = _subpackage(m)
        for imp, name, line in _imports(m):
            sub = _subpackage(imp)
            if sub is None or sub == mine:
                continue
            if imp != f"repair.{sub}" or name is None:
                wrong.append(f"{m}:{line} imports {imp}{'.' + name if name else ''} (a module of repair.{sub})")
            elif name not in EXPORTS[sub]:
                wrong.append(f"{m}:{line} imports {name} from repair.{sub}, which does not list it")
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_between_modules():
    graph = {m: {_target(imp, name) for imp, name, _ in _imports(m)} - {m} for m in MODULES}
    assert _cycles(graph) == []


def test_repair_subpackages_form_a_dag():
    graph: dict[str, set[str]] = {}
    for m in MODULES:
        mine = _subpackage(m)
        if mine is not None:
            graph.setdefault(mine, set()).update(
                s for imp, _, _ in _imports(m) if (s := _subpackage(imp)) not in (None, mine))
    assert _cycles(graph) == []


def test_every_public_name_exists():
    import importlib

    for sub in SUBPACKAGES:
        package = importlib.import_module(f"repair.{sub}")
        assert sorted(package.__all__) == sorted(EXPORTS[sub]), sub
        for name in EXPORTS[sub]:
            assert getattr(package, name) is not None, f"repair.{sub}.{name}"


@pytest.mark.parametrize("sub", SUBPACKAGES)
def test_each_subpackage_says_what_it_is(sub):
    doc = ast.get_docstring(ast.parse(MODULES[f"repair.{sub}"].read_text(encoding="utf-8")))
    assert doc and doc.count(".") >= 1 and "\n" not in doc.strip(), f"repair.{sub}: a one-sentence docstring"


def test_the_rules_catch_what_they_are_for(tmp_path, monkeypatch):
    """The checks themselves can fail: an upward import, a private import and a cycle are all reported."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    fake = tmp_path / "provenance" / "x.py"
    fake.parent.mkdir()
    fake.write_text("from repair.engine.harness import evaluate\n")
    monkeypatch.setitem(MODULES, "provenance.x", fake)
    with pytest.raises(AssertionError):
        test_packages_only_import_the_layers_below()
    with pytest.raises(AssertionError):
        test_repair_subpackages_import_each_other_through_public_names()
