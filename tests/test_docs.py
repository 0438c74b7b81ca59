"""docs/scenario.md documents exactly the columns the tables have, in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cclab.result import TABLES, TRACE_TABLES

DOC = Path(__file__).resolve().parents[1] / "docs" / "scenario.md"
#: The trace's tables are documented with tracing itself.
TRACE_DOC = DOC.parent / "tracing.md"


def documented_columns(table: str) -> list[str]:
    doc = TRACE_DOC if table in TRACE_TABLES else DOC
    text = doc.read_text(encoding="utf-8")
    m = re.search(rf"^### `{table}`\n(.*?)(?=^#)", text, flags=re.S | re.M)
    assert m, f"docs/{doc.name} has no section ### `{table}`"
    return re.findall(r"^\| `([a-z_0-9]+)` \|", m.group(1), flags=re.M)


@pytest.mark.parametrize("table", TABLES)
def test_every_column_is_documented(quick_result, table):
    actual = list(getattr(quick_result, table).columns)
    assert documented_columns(table) == actual, f"update the `{table}` table in docs/{'tracing' if table in TRACE_TABLES else 'scenario'}.md"


def test_every_summary_key_is_documented(quick_result):
    text = DOC.read_text(encoding="utf-8").split("### Summary", 1)[1]
    documented = set(re.findall(r"`([a-z_0-9]+)`", text))
    missing = set(quick_result.summary()) - documented
    assert not missing, f"summary keys missing from docs/scenario.md: {sorted(missing)}"


ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block, "README.md: Quick start has no ```sh block"
    return [ln for ln in block.group(1).splitlines() if ln.strip()]


def test_quick_start_has_two_commands_and_ci_runs_the_second_verbatim():
    cmds = quick_start_commands()
    assert len(cmds) == 2, cmds
    assert cmds[0].startswith("pip install . && cclab run scenarios/")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert cmds[1] in ci, ".ci/run must run README's test command verbatim"
    assert "set -euo pipefail" in ci
