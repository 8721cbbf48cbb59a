"""AscendC starter rules over what a kernel hands from one pipe to another and the precision it accumulates in.

Beside repair.rules.ascendc: a buffer handed from one pipe to another with no SetFlag/WaitFlag ordering the two
(`missing-pipe-sync`: a vector result read by GetValue with no V_S flag, a TBuf filled by a GM -> UB copy and read by
a vector instruction with no MTE2_V, a vector or scalar result copied out with no V_MTE3 or S_MTE3). It shows only
where the compiler does not insert the flags (`--cce-auto-sync=off`, REPAIR_ASCENDC_AUTO_SYNC=off on ascendc-cpu,
whose fault names the buffer, both instructions and the HardEvent). The facts are in ingest.rules.facts_cpp_sync
over the trace of ingest.rules.pipe_trace.
"""
from __future__ import annotations

from ingest.rules.model import Fact
from repair.rules.ascendc import rule


def missing_pipe_sync() -> tuple:
    """A statement takes a buffer another pipe wrote, and no flag, barrier or queue orders the two pipes: the flag
    pair the hand-over needs goes before the statement."""
    c = "missing-pipe-sync"
    return (
        rule("handover", c, "$F($$$A)", "$F($$$A)", derive={"_H": Fact(fact="cpp-pipe-handover")}, context="kernel",
             title="a buffer is handed from one pipe to another with no SetFlag/WaitFlag between them"),
    )
