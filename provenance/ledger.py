"""Who made what, when, from what: W3C PROV nodes (entity, activity, agent) and relations
(wasDerivedFrom, wasGeneratedBy, used, wasAssociatedWith) for KB entries, repair runs, ingest batches,
KB versions and (later) snapshots, plus their PROV-JSON export.

Ids are qualified names in the `nm:` namespace: nm:entry/<sha256>, nm:record/<sha256>, nm:kernel/<sha256>,
nm:problem/<sha256>, nm:operator/<id>, nm:run/<run id>, nm:ingest/<batch id>, nm:kb-version/<n>,
nm:agent/model/<model>, nm:agent/worker/<kind>, nm:agent/tool/<name>@<version>.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

NAMESPACE = "urn:nearmiss:"
PREFIXES = {"nm": NAMESPACE, "prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#"}

# relation -> (PROV-JSON key of the subject, key of the object)
RELATIONS = {
    "wasDerivedFrom": ("prov:generatedEntity", "prov:usedEntity"),
    "wasGeneratedBy": ("prov:entity", "prov:activity"),
    "used": ("prov:activity", "prov:entity"),
    "wasAssociatedWith": ("prov:activity", "prov:agent"),
}
KINDS = ("entity", "activity", "agent")


@dataclass(frozen=True)
class Node:
    id: str
    kind: str  # entity | activity | agent
    prov_type: str
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Relation:
    relation: str
    subject: str
    object: str
    attrs: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"unknown PROV relation {self.relation!r}")


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)

    def node(self, id: str, kind: str, prov_type: str, /, **attrs) -> str:
        self.nodes.append(Node(id, kind, prov_type, {k: v for k, v in attrs.items() if v is not None}))
        return id

    def rel(self, relation: str, subject: str, obj: str, /, **attrs) -> None:
        self.relations.append(Relation(relation, subject, obj, {k: v for k, v in attrs.items() if v is not None}))


def tool_agent(g: Graph, tool_version: str) -> str:
    return g.node(f"nm:agent/tool/nearmiss-repair@{tool_version}", "agent", "prov:SoftwareAgent",
                  name="nearmiss-repair", version=tool_version)


def repair_run(g: Graph, record: dict, record_sha256: str) -> str:
    """The repair run behind a record: the kernels it used and made, its operator, worker and model."""
    op, worker, retrieval = record["operator"], record["worker"], record.get("retrieval") or {}
    run = g.node(f"nm:run/{record['run_id']}", "activity", "nm:RepairRun", startTime=record["started_at"],
                 endTime=record["finished_at"], status=record["status"], backend=record["backend"],
                 tool_version=record["tool_version"])
    rec = g.node(f"nm:record/{record_sha256}", "entity", "nm:RepairRecord", sha256=record_sha256, run_id=record["run_id"],
                 match=record["evidence"]["match"], case_set_sha256=record["evidence"]["case_set_sha256"])
    src = g.node(f"nm:kernel/{record['source']['sha256']}", "entity", "nm:Kernel", sha256=record["source"]["sha256"],
                 language=record["language"])
    dst = g.node(f"nm:kernel/{record['repaired']['sha256']}", "entity", "nm:Kernel", sha256=record["repaired"]["sha256"],
                 language=record["language"])
    problem = g.node(f"nm:problem/{op['problem_sha256']}", "entity", "nm:Problem", sha256=op["problem_sha256"],
                     operator_id=op["id"], family=op.get("family"))
    operator = g.node(f"nm:operator/{op['id']}", "entity", "nm:Operator", operator_id=op["id"], family=op.get("family"))
    g.rel("wasDerivedFrom", problem, operator)
    g.rel("wasGeneratedBy", rec, run)
    g.rel("wasGeneratedBy", dst, run)
    g.rel("wasDerivedFrom", dst, src, **{"prov:type": "nm:Repair"})
    g.rel("used", run, src, role="near-miss")
    g.rel("used", run, problem, role="problem")
    worker_agent = g.node(f"nm:agent/worker/{worker['kind']}", "agent", "prov:SoftwareAgent", kind=worker["kind"])
    g.rel("wasAssociatedWith", run, worker_agent, role="worker")
    if worker.get("model"):
        model = g.node(f"nm:agent/model/{worker['model']}", "agent", "prov:SoftwareAgent", model=worker["model"])
        g.rel("wasAssociatedWith", run, model, role="model", plan=worker.get("prompt_template_sha256"))
    if retrieval.get("snapshot_id"):
        g.rel("used", run, g.node(f"nm:snapshot/{retrieval['snapshot_id']}", "entity", "nm:Snapshot"), role="kb")
    elif retrieval.get("kb_version") is not None:
        g.rel("used", run, g.node(f"nm:kb-version/{retrieval['kb_version']}", "entity", "nm:KBVersion"), role="kb")
    for cited in retrieval.get("cited") or []:
        g.rel("used", run, g.node(f"nm:entry/{cited}", "entity", "nm:Entry"), role="cited-pattern")
    return rec


def admission(g: Graph, record: dict, record_sha256: str, entry_id: str, batch_id: str, gate: dict) -> None:
    """An entry derived from an admitted record, generated by an ingest batch, with the gate's evidence."""
    rec = repair_run(g, record, record_sha256)
    entry = g.node(f"nm:entry/{entry_id}", "entity", "nm:Entry", sha256=entry_id)
    ingest = f"nm:ingest/{batch_id}"
    g.rel("wasDerivedFrom", entry, rec, match=gate.get("match"), min_match=gate.get("min_match"))
    g.rel("wasGeneratedBy", entry, ingest)
    g.rel("used", ingest, rec, role="admitted-record")


def ingest_batch(g: Graph, batch: dict, version: int | None) -> str:
    act = g.node(f"nm:ingest/{batch['batch_id']}", "activity", "nm:Ingest", startTime=batch["started_at"],
                 endTime=batch["finished_at"], min_match=batch["min_match"], embedder=batch.get("embedder"),
                 admitted=batch["admitted"], duplicates=batch["duplicates"], rejected=batch["rejected"])
    g.rel("wasAssociatedWith", act, tool_agent(g, batch["tool_version"]), role="pipeline")
    if version is not None:
        ver = g.node(f"nm:kb-version/{version}", "entity", "nm:KBVersion", version=version, created_at=batch["finished_at"])
        g.rel("wasGeneratedBy", ver, act)
        if version > 1:
            g.rel("wasDerivedFrom", ver, f"nm:kb-version/{version - 1}", **{"prov:type": "prov:Revision"})
    return act


def to_prov_json(nodes: list[dict], relations: list[dict]) -> dict:
    """PROV-JSON (W3C member submission 2013): prefix, entity/activity/agent maps, one map per relation."""
    doc: dict = {"prefix": {k: v for k, v in PREFIXES.items() if k != "prov"}}
    for kind in KINDS:
        doc[kind] = {}
    for n in nodes:
        attrs = {_qualify(k): v for k, v in sorted(n["attrs"].items())}
        if n.get("prov_type"):
            attrs["prov:type"] = n["prov_type"]
        doc[n["kind"]][n["id"]] = attrs
    counters: dict[str, int] = {}
    for r in sorted(relations, key=lambda r: (r["relation"], r["subject"], r["object"])):
        subj_key, obj_key = RELATIONS[r["relation"]]
        counters[r["relation"]] = counters.get(r["relation"], 0) + 1
        body = {subj_key: r["subject"], obj_key: r["object"]}
        for k, v in sorted(r["attrs"].items()):
            body[_qualify(k)] = v
        doc.setdefault(r["relation"], {})[f"_:{r['relation']}{counters[r['relation']]}"] = body
    return doc


def _batch_sibling(edge: dict, seen: set[str]) -> bool:
    return edge["relation"] == "used" and edge["subject"].startswith("nm:ingest/") and edge["object"] not in seen


def _qualify(key: str) -> str:
    return key if ":" in key else f"nm:{key}"


def chain(start: str, edges_from, nodes_of, *, max_depth: int = 6) -> list[dict]:
    """Breadth-first provenance chain from a node: [{depth, relation, subject, object, attrs, node}].

    edges_from(ids) -> relation dicts whose subject is in ids; nodes_of(ids) -> {id: node dict}.
    An ingest batch used every record of its batch; only the ones already on the chain are followed.
    """
    out: list[dict] = []
    seen = {start}
    frontier = deque([start])
    depth = 0
    while frontier and depth < max_depth:
        depth += 1
        level = list(frontier)
        frontier.clear()
        edges = [e for e in edges_from(level) if not _batch_sibling(e, seen)]
        nodes = nodes_of(sorted({e["object"] for e in edges}))
        for e in edges:
            out.append({"depth": depth, **{k: e[k] for k in ("relation", "subject", "object", "attrs")},
                        "node": nodes.get(e["object"])})
            if e["object"] not in seen:
                seen.add(e["object"])
                frontier.append(e["object"])
    return out
