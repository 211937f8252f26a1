"""The documentation runs as written: every code block of README.md and docs/*.md, in page order, from a fresh
empty directory.

Python blocks of a page share one namespace in one interpreter, as a reader pasting them into a session would;
shell blocks (``bash``, ``sh``, ``shell``, ``console`` with its ``$`` lines) run through bash with ``nbparallel``
on PATH. A block that cannot run here says so just before it, ``<!-- not run: reason -->``; ``text`` blocks are
output and MyST directives (``{toctree}``, ``{results-table}``) are not code.
"""

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PYTHON = {"python"}
SHELL = {"bash", "sh", "shell", "console"}
NOT_CODE = {"text"}
NOT_RUN = re.compile(r"^<!-- not run: (?P<reason>.*?) -->$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)(?P<info>.*)$")
#: at most this many blocks of all pages may be left out (installs, a remote cluster, a repository-writing tool)
MAX_NOT_RUN = 12
#: seconds a page's blocks may take in all
PAGE_TIMEOUT = 300

#: runs the blocks of one page (a JSON list) in the current directory, in order; python blocks in one namespace
#: whose ``__name__`` is ``"__main__"``, so that a guarded cluster block runs and its spawned workers import only
#: this file
RUNNER = r'''
import json, os, subprocess, sys, time

if __name__ == "__main__":
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for block in json.load(open(sys.argv[1])):
        print(f"--- {block['where']} ({block['language']}) {time.time():.1f}", flush=True)
        if block["language"] == "python":
            exec(compile(block["code"], block["where"], "exec"), namespace)
        else:
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block["code"]])
            if done.returncode:
                sys.exit(f"{block['where']}: the shell block exited with status {done.returncode}")
'''


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, its code and the line of its opening fence."""

    page: str
    line: int
    language: str
    code: str
    not_run: str | None

    @property
    def where(self):
        return f"{self.page}:{self.line}"


def page_blocks(path):
    """The fenced blocks of the markdown page ``path``, with the reason of a ``not run`` comment before one."""
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(opening["fence"]))
        before = NOT_RUN.match(lines[i - 1]) if i else None
        blocks.append(Block(str(path.relative_to(ROOT)), i + 1, opening["info"].strip().split(" ")[0],
                            "\n".join(lines[i + 1:end]) + "\n", before["reason"] if before else None))
        i = end + 1
    return blocks


def runnable(block):
    """``block`` as the runner takes it: a console block's ``$`` lines are its commands, the others output."""
    code = block.code
    if block.language == "console":
        code = "".join(line[2:] + "\n" for line in code.splitlines() if line.startswith("$ "))
    return {"where": block.where, "language": "python" if block.language in PYTHON else "shell", "code": code}


def all_blocks():
    return [block for page in PAGES for block in page_blocks(page)]


def test_every_block_is_code_output_or_a_directive():
    unknown = [b.where for b in all_blocks()
               if b.language not in PYTHON | SHELL | NOT_CODE and not b.language.startswith("{")]
    assert unknown == [], "a fenced block needs a language: python, bash, console or text"


def test_few_blocks_are_left_out_and_each_says_why():
    left_out = [b for b in all_blocks() if b.not_run is not None]
    assert 0 < len(left_out) <= MAX_NOT_RUN, [b.where for b in left_out]
    assert all(len(b.not_run.split()) >= 2 for b in left_out), [b.where for b in left_out if len(b.not_run) < 2]
    assert all(b.language in PYTHON | SHELL for b in left_out), "only code blocks are left out"
    comments = sum(len(re.findall(r"<!-- not run:", page.read_text())) for page in PAGES)
    assert comments == len(left_out), "a 'not run' comment stands on the line just before its block"


def test_a_console_block_has_commands():
    console = [b for b in all_blocks() if b.language == "console" and b.not_run is None]
    assert all(runnable(b)["code"].strip() for b in console), [b.where for b in console]


#: pages whose blocks still use data they never make (issue 58 item 4): strict, so a fixed page must leave the list
@pytest.mark.parametrize("page", [
    p for p in PAGES if any(b.language in PYTHON | SHELL and b.not_run is None for b in page_blocks(p))],
    ids=lambda p: p.name)
def test_the_page_runs_as_written_from_an_empty_directory(page, tmp_path):
    blocks = [runnable(b) for b in page_blocks(page) if b.language in PYTHON | SHELL and b.not_run is None]
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    (tmp_path / "run_blocks.py").write_text(RUNNER)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nbparallel").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m nbparallel.cli "$@"\n')
    (bin_dir / "nbparallel").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", MPLBACKEND="Agg")
    for name in [n for n in env if n.startswith("SPARK_")]:  # a Spark Connect session of this test process
        del env[name]
    done = subprocess.run([sys.executable, str(tmp_path / "run_blocks.py"), str(tmp_path / "blocks.json")],
                          cwd=work, env=env, capture_output=True, text=True, timeout=PAGE_TIMEOUT, check=False)
    assert done.returncode == 0, f"{page.name} does not run as written:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    assert done.stdout.count("--- ") == len(blocks)
