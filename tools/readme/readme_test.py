#!/usr/bin/env python3
"""The README, run as a newcomer runs it: every ```bash block, in order, in one shell, against real processes.

Each block's command lines run one after another in a single bash process (so a variable one block sets is there
for the next, as in a terminal), each checked for exit status 0. What the README leaves to the reader (start this in
a second terminal, press Ctrl-C, a photo of your own) is said by a directive in an HTML comment right before the
block, which GitHub does not show:

    <!-- readme-test
    background: ./glassledger server        a command starting so runs in the background, as in terminal 1
    ready: curl -ksf https://...            after it, polled until it succeeds (at most --ready-seconds)
    stop-after: ./glassledger server        after the block: Ctrl-C (SIGINT) to that background, waited for
    stop-before: ./glassledger server       the same, before the block (a later section that needs its ports)
    skip: ./mvnw -B verify -- REASON        a command starting so is not run, and the reason is printed
    skip-if: SHELL => PREFIX -- REASON      a command starting with PREFIX is not run where SHELL succeeds then
    skip-block: REASON                      the whole block is not run
    requires: SHELL -- REASON               the block runs only where SHELL succeeds (with --strict: fails otherwise)
    before: SHELL                           runs before the block: what the reader brings (a file of their own)
    replace: TEXT => SHELL                  TEXT (a placeholder such as <key id>) in the block becomes $(SHELL)
    check: SHELL                            after the block, must succeed: what the block was for, checked
    cleanup: SHELL                          registered when the block runs; run at the end whatever happened
    -->

A fence of another language with `<!-- readme-test file: NAME -->` before it is written to NAME in the working
directory before any block runs (the README's example ops.json). Every ```bash block must have been run, skipped
with a reason, or fail the test: a new block cannot go unchecked.

Usage: readme_test.py --in DIR [--readme FILE] [--strict] [--own-network] [--timeout SECONDS] [--dry-run]
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DIRECTIVE = re.compile(r"^<!--\s*readme-test\b(.*?)-->\s*$", re.S)
KEYS = {"background", "ready", "stop-after", "stop-before", "skip", "skip-if", "skip-block", "requires", "before",
        "replace", "check", "cleanup", "file"}


@dataclass
class Block:
    lang: str
    line: int  # README line of the first line inside the fence
    lines: list[str]
    directives: list[tuple[str, str]] = field(default_factory=list)

    def get(self, key: str) -> list[str]:
        return [v for k, v in self.directives if k == key]


def parse_directives(text: str, at: int) -> list[tuple[str, str]]:
    out = []
    body = text.strip()
    for raw in body.splitlines():
        raw = raw.strip()
        if not raw:
            continue
        key, sep, value = raw.partition(":")
        key = key.strip()
        if not sep or key not in KEYS:
            raise SystemExit(f"README.md:{at}: unknown readme-test directive {raw!r} (known: {', '.join(sorted(KEYS))})")
        out.append((key, value.strip()))
    return out


def parse(readme: Path) -> list[Block]:
    lines = readme.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!-- readme-test"):
            start = i
            text = line
            while "-->" not in text and i + 1 < len(lines):
                i += 1
                text += "\n" + lines[i]
            m = DIRECTIVE.match(text)
            if not m:
                raise SystemExit(f"README.md:{start + 1}: a readme-test comment that does not end in -->")
            pending = parse_directives(m.group(1), start + 1)
            i += 1
            continue
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence:
            lang = fence.group(1)
            body_start = i + 1
            j = body_start
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j == len(lines):
                raise SystemExit(f"README.md:{i + 1}: a fence that never closes")
            blocks.append(Block(lang, body_start + 1, lines[body_start:j], pending))
            pending = []
            i = j + 1
            continue
        if pending and line.strip():
            raise SystemExit(f"README.md:{i + 1}: a readme-test comment must stand right before its block")
        i += 1
    return blocks


def commands(block: Block) -> list[tuple[int, str]]:
    """The block's commands: a line and its backslash continuations, without blank and comment-only lines."""
    out = []
    cur: list[str] = []
    first = 0
    for n, raw in enumerate(block.lines):
        if not cur:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            first = block.line + n
        cur.append(raw)
        if raw.rstrip().endswith("\\"):
            continue
        out.append((first, "\n".join(cur)))
        cur = []
    if cur:
        raise SystemExit(f"README.md:{first}: a command continued past the end of its block")
    return out


def split_reason(value: str) -> tuple[str, str]:
    what, _, reason = value.partition(" -- ")
    return what.strip(), reason.strip() or "(no reason given)"


def q(s: str) -> str:
    return shlex.quote(s)


PRELUDE = r"""
set -o pipefail
__gl_logs=$1
__gl_ready_seconds=$2
__gl_bg_pids=()
__gl_bg_names=()
__gl_cleanups=()
__gl_t0=$SECONDS
__gl_step() { printf '\n\033[1m$ %s\033[0m   (%s)\n' "$2" "$1"; __gl_ts=$SECONDS; }
__gl_done() { local rc=$1; if [ "$rc" -ne 0 ]; then printf 'README TEST FAILED at %s: exit %s\n' "$2" "$rc"; __gl_bgtails; exit 1; fi; printf '   ok (%ss)\n' $((SECONDS - __gl_ts)); }
__gl_fail() { printf 'README TEST FAILED at %s: %s\n' "$1" "$2"; __gl_bgtails; exit 1; }
__gl_bgtails() { local i; for i in "${!__gl_bg_names[@]}"; do echo "--- last lines of background '${__gl_bg_names[$i]}' ($__gl_logs/bg-$i.log):"; tail -25 "$__gl_logs/bg-$i.log"; done; }
# __gl_bg NAME CMD: CMD in the background (as in another terminal), its output to a log.
# With job control on (set -m) for the start, as in a terminal: the command gets a process group of its own (its
# PID), which Ctrl-C signals whole; without it, bash would start it with SIGINT ignored, and a JVM started so
# ignores Ctrl-C too.
__gl_bg() { local i=${#__gl_bg_names[@]}; set -m; bash -c "$2" > "$__gl_logs/bg-$i.log" 2>&1 < /dev/null & __gl_bg_pids+=($!); set +m; __gl_bg_names+=("$1"); echo "   (in the background: pid $!, log $__gl_logs/bg-$i.log)"; }
# __gl_ready WHERE COND: polls COND until it succeeds, failing if the newest background ends first.
__gl_ready() {
  local deadline=$((SECONDS + __gl_ready_seconds)) last=$((${#__gl_bg_pids[@]} - 1))
  until eval "$2" > /dev/null 2>&1; do
    if [ "$last" -ge 0 ] && ! kill -0 "${__gl_bg_pids[$last]}" 2>/dev/null; then __gl_fail "$1" "the background command exited before it was ready"; fi
    [ $SECONDS -lt $deadline ] || __gl_fail "$1" "not ready within ${__gl_ready_seconds} s: $2"
    sleep 0.5
  done
  echo "   ready: $2"
}
# __gl_stop WHERE NAME: Ctrl-C to the background started from NAME (its process group), waited for.
__gl_stop() {
  local i pid
  for i in "${!__gl_bg_names[@]}"; do
    [ "${__gl_bg_names[$i]}" = "$2" ] || continue
    pid=${__gl_bg_pids[$i]}
    [ -n "$pid" ] || continue
    echo "   (Ctrl-C to '$2', pid $pid)"
    kill -INT -- "-$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 60))
    while kill -0 "$pid" 2>/dev/null; do
      [ $SECONDS -lt $deadline ] || __gl_fail "$1" "'$2' did not stop within 60 s of Ctrl-C"
      sleep 0.2
    done
    wait "$pid" 2>/dev/null
    __gl_bg_pids[$i]=""
    return 0
  done
  __gl_fail "$1" "nothing started from '$2' runs in the background"
}
__gl_cleanup() {
  local i c
  for c in "${__gl_cleanups[@]}"; do echo "(cleanup) $c"; eval "$c" > /dev/null 2>&1 || true; done
  for i in "${!__gl_bg_pids[@]}"; do
    [ -n "${__gl_bg_pids[$i]}" ] || continue
    kill -INT -- "-${__gl_bg_pids[$i]}" 2>/dev/null || true
  done
  for i in "${!__gl_bg_pids[@]}"; do
    [ -n "${__gl_bg_pids[$i]}" ] || continue
    for _ in $(seq 1 100); do kill -0 "${__gl_bg_pids[$i]}" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-${__gl_bg_pids[$i]}" 2>/dev/null || true
  done
}
trap __gl_cleanup EXIT
"""


def script(blocks: list[Block], strict: bool) -> tuple[str, list[str]]:
    """The bash script that runs the blocks, and a summary line per block."""
    out = [PRELUDE]
    summary = []
    for b in blocks:
        where = f"README.md:{b.line}"
        if b.lang != "bash":
            continue
        cmds = commands(b)
        if not cmds:
            continue
        out.append(f"\nprintf '\\n\\033[1;34m=== {where}: block of {len(cmds)} command(s)\\033[0m\\n'")
        if b.get("skip-block"):
            summary.append(f"{where}: skipped whole: {b.get('skip-block')[0]}")
            out.append(f"echo '   skipped: '{q(b.get('skip-block')[0])}")
            continue
        guards = []
        for v in b.get("requires"):
            cond, reason = split_reason(v)
            if strict:
                guards.append(f"if ! ({cond}) > /dev/null 2>&1; then __gl_fail {q(where)} {q('required: ' + cond + ' (' + reason + ')')}; else")
            else:
                guards.append(f"if ! ({cond}) > /dev/null 2>&1; then echo '   skipped (not here: {cond}): '{q(reason)}; else")
        out.extend(guards)
        for c in b.get("cleanup"):
            out.append(f"__gl_cleanups+=({q(c)})")
        for name in b.get("stop-before"):
            out.append(f"__gl_stop {q(where)} {q(name)}")
        for c in b.get("before"):
            out.append(f"echo '   (before the block, what the reader brings: '{q(c)}')'; eval {q(c)} || __gl_fail {q(where)} {q('before: ' + c)}")
        replaces = []
        for v in b.get("replace"):
            text, sep, shell = v.partition(" => ")
            if not sep:
                raise SystemExit(f"{where}: replace wants TEXT => SHELL, not {v!r}")
            replaces.append((text.strip(), shell.strip()))
        backgrounds = b.get("background")
        skips = [split_reason(v) for v in b.get("skip")]
        skip_ifs = []
        for v in b.get("skip-if"):
            what, reason = split_reason(v)
            cond, sep, prefix = what.partition(" => ")
            if not sep:
                raise SystemExit(f"{where}: skip-if wants SHELL => PREFIX -- REASON, not {v!r}")
            skip_ifs.append((cond.strip(), prefix.strip(), reason))
        ready = b.get("ready")
        used = set()
        ran = skipped = 0
        for line, cmd in cmds:
            at = f"README.md:{line}"
            skip = next(((p, r) for p, r in skips if cmd.startswith(p)), None)
            if skip:
                used.add(("skip", skip[0]))
                skipped += 1
                out.append(f"printf '\\n$ %s   (%s)\\n   skipped: %s\\n' {q(cmd)} {q(at)} {q(skip[1])}")
                continue
            run = cmd
            cond = next(((c, p, r) for c, p, r in skip_ifs if cmd.startswith(p)), None)
            if cond:
                used.add(("skip-if", cond[1]))
            for text, shell in replaces:
                if text in run:
                    used.add(("replace", text))
                    run = run.replace(text, f'"$({shell})"')
            ran += 1
            bg = next((p for p in backgrounds if cmd.startswith(p)), None)
            if bg is not None:
                used.add(("background", bg))
                out.append(f"__gl_step {q(at)} {q(cmd + '   [in the background, as in another terminal]')}")
                out.append(f"__gl_bg {q(bg)} {q(run)}")
                for r in ready:
                    out.append(f"__gl_ready {q(at)} {q(r)}")
                continue
            if cond:
                out.append(f"if ({cond[0]}) > /dev/null 2>&1; then printf '\\n$ %s   (%s)\\n   skipped: %s\\n' "
                           f"{q(cmd)} {q(at)} {q(cond[2])}; else")
            out.append(f"__gl_step {q(at)} {q(cmd)}")
            out.append(run)
            out.append(f"__gl_done $? {q(at)}")
            if cond:
                out.append("fi")
        for key, value in [("skip", p) for p, _ in skips] + [("background", p) for p in backgrounds] \
                + [("replace", t) for t, _ in replaces] + [("skip-if", p) for _, p, _ in skip_ifs]:
            if (key, value) not in used:
                raise SystemExit(f"{where}: the directive {key}: {value!r} matches no command of its block")
        for c in b.get("check"):
            out.append(f"__gl_step {q(where + ' (check)')} {q('check: ' + c)}")
            out.append(f"( {c} )")
            out.append(f"__gl_done $? {q(where + ' (check: ' + c + ')')}")
        for name in b.get("stop-after"):
            out.append(f"__gl_stop {q(where)} {q(name)}")
        out.extend(["fi"] * len(guards))
        summary.append(f"{where}: {ran} run, {skipped} skipped" + (f" (if {', '.join(b.get('requires'))})" if guards else ""))
    out.append("\nprintf '\\nREADME test: every block passed in %s s\\n' $((SECONDS - __gl_t0))")
    return "\n".join(out) + "\n", summary


def write_files(blocks: list[Block], work: Path) -> None:
    for b in blocks:
        for name in b.get("file"):
            target = work / name
            target.write_text("\n".join(b.lines) + "\n", encoding="utf-8")
            print(f"(README.md:{b.line}: its {b.lang or 'text'} block written to {name})")


def default_interrupts() -> None:
    """In the script's process, before exec: SIGINT and SIGQUIT back to their default actions. A command started in
    the background by a non-interactive shell inherits them ignored (CI's second lane is such a command), a shell
    cannot undo an ignore it inherited, and its children, the README's servers included, would then ignore the
    Ctrl-C that `stop-after` sends them."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def in_own_network(cmd: list[str]) -> list[str]:
    """Runs CMD in a network namespace of its own with only loopback up, where the README's fixed ports meet no
    other test's (.ci/run runs the tests beside it); the Docker daemon's containers (host network) stay in the
    daemon's, reached through its socket. Nothing outside is reachable there: the tree must be built already.
    Without unshare or root, as it is."""
    if os.geteuid() != 0 or subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        print("(readme test: no network namespace here (needs root and unshare); the README's ports are this host's)")
        return cmd
    return ["unshare", "--net", "bash", "-c", 'ip link set lo up && exec "$@"', "readme-netns"] + cmd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--in", dest="work", required=True, help="the tree to run the README in (a fresh clone)")
    ap.add_argument("--readme", help="the README (default: DIR/README.md)")
    ap.add_argument("--strict", action="store_true", help="an unmet `requires:` fails instead of skipping")
    ap.add_argument("--timeout", type=int, default=2400, help="the whole run's limit in seconds")
    ap.add_argument("--ready-seconds", type=int, default=300, help="a readiness wait's limit")
    ap.add_argument("--own-network", action="store_true",
                    help="in a network namespace of its own, loopback only (no downloads then): beside other tests")
    ap.add_argument("--dry-run", action="store_true", help="print the script, run nothing")
    ap.add_argument("--home", help="HOME for the run (default: a new empty one, ~/.m2 linked into it)")
    args = ap.parse_args()
    work = Path(args.work).resolve()
    readme = Path(args.readme).resolve() if args.readme else work / "README.md"
    blocks = parse(readme)
    text, summary = script(blocks, args.strict)
    if args.dry_run:
        print(text)
        print("\n".join(summary))
        return 0
    logs = Path(tempfile.mkdtemp(prefix="readme-test-logs-"))
    (logs / "script.sh").write_text(text, encoding="utf-8")
    write_files(blocks, work)
    env = dict(os.environ)
    # A newcomer's HOME: no trusted state, no key of an earlier run; the Maven repository this machine has (the
    # wrapper and the dependencies), linked, so that nothing is downloaded again.
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="readme-test-home-"))
    real_m2 = Path(os.path.expanduser("~")) / ".m2"
    if not args.home and real_m2.is_dir():
        (home / ".m2").symlink_to(real_m2)
    env["HOME"] = str(home)
    for k in ["GLASSLEDGER_URL", "GLASSLEDGER_PIN", "GLASSLEDGER_API_KEY", "EXAMPLE_API_KEY"]:
        env.pop(k, None)
    print(f"README test: {readme} in {work} (HOME={home}, logs in {logs})")
    print("\n".join(summary))
    cmd = ["bash", str(logs / "script.sh"), str(logs), str(args.ready_seconds)]
    if args.own_network:
        cmd = in_own_network(cmd)
    started = time.monotonic()
    p = subprocess.Popen(cmd, cwd=work, env=env, start_new_session=True, preexec_fn=default_interrupts)
    try:
        rc = p.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"README TEST FAILED: not done within {args.timeout} s; stopping it", flush=True)
        os.killpg(p.pid, signal.SIGTERM)  # the script's EXIT trap runs its cleanups
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
        rc = 124
    print(f"README test: exit {rc} after {time.monotonic() - started:.0f} s")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
