"""The runner's bookkeeping with a fake executor: resume, crashes, a missing environment (fast, no kernels)."""
import pytest

from campaign_helpers import DATA
from repair.campaign import debug_config, run_campaign
from repair.campaign.ledger import Ledger
from repair.campaign.outcome import ENVIRONMENT_MISSING, RunOutcome
from repair.errors import EnvironmentMissing


class FakeExecutor:
    """Reports each run's outcome from a table without running anything; remembers what it was asked to run."""

    name, jobs = "fake", 1

    def __init__(self, outcomes: dict[str, dict]):
        self.outcomes, self.ran = outcomes, []

    def run(self, specs, config, out_dir, *, on_start, on_done):
        for spec in specs:
            on_start(spec)
            self.ran.append(spec.key)
            on_done(spec, RunOutcome(key=spec.key, **self.outcomes[spec.key]))


@pytest.fixture
def planned():
    return debug_config(DATA / "mini.yaml", script=DATA / "scripts")


def test_finished_runs_are_skipped_and_crashed_ones_retried_only_when_asked(planned, tmp_path):
    config, specs = planned
    first = FakeExecutor({"add_relu/nearmiss_1": dict(status="repaired", prompt_tokens=7),
                          "leaky_relu/nearmiss_1": dict(status="crashed", stop_reason="signal SIGSEGV")})
    s = run_campaign(config, specs, tmp_path, executor=first)
    assert (s.ran, s.repaired, s.crashed, s.tokens) == (2, 1, 1, 7)
    again = FakeExecutor({})
    s = run_campaign(config, specs, tmp_path, executor=again)
    assert (again.ran, s.skipped, s.repaired, s.crashed) == ([], 2, 1, 1)
    retry = FakeExecutor({"leaky_relu/nearmiss_1": dict(status="failed", stop_reason="attempts")})
    s = run_campaign(config, specs, tmp_path, executor=retry, retry_crashed=True)
    assert retry.ran == ["leaky_relu/nearmiss_1"] and (s.repaired, s.failed, s.crashed) == (1, 1, 0)


def test_a_missing_environment_stops_the_campaign_and_leaves_the_run_to_resume(planned, tmp_path):
    config, specs = planned
    broken = FakeExecutor({"add_relu/nearmiss_1": dict(status="repaired"),
                           "leaky_relu/nearmiss_1": dict(status="crashed", stop_reason=ENVIRONMENT_MISSING,
                                                         error="backend cuda: no GPU")})
    with pytest.raises(EnvironmentMissing, match="leaky_relu/nearmiss_1: backend cuda: no GPU"):
        run_campaign(config, specs, tmp_path, executor=broken)
    rows = {r.key: r for r in Ledger(tmp_path, read_only=True).runs()}
    assert rows["add_relu/nearmiss_1"].outcome.status == "repaired"
    assert rows["leaky_relu/nearmiss_1"].outcome is None  # not recorded: a rerun does it
    fixed = FakeExecutor({"leaky_relu/nearmiss_1": dict(status="failed")})
    s = run_campaign(config, specs, tmp_path, executor=fixed)
    assert fixed.ran == ["leaky_relu/nearmiss_1"] and (s.skipped, s.ran) == (1, 1)


def test_resuming_with_other_settings_is_refused(planned, tmp_path):
    from repair.errors import BadInput

    config, specs = planned
    run_campaign(config, specs, tmp_path, executor=FakeExecutor({k.key: dict(status="failed") for k in specs}))
    other, _ = debug_config(DATA / "mini.yaml", script=DATA / "scripts", ablations=["no-kb"])
    with pytest.raises(BadInput, match="ablations differ"):
        run_campaign(other, specs, tmp_path, executor=FakeExecutor({}))
