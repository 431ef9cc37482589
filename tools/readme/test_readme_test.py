"""The README test's own checks: a README of a few lines each, run for real by bash in a temporary directory.

Run: python3 -m unittest discover -s tools/readme   (tools/readme/run runs them first)
"""
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import readme_test  # noqa: E402


class ReadmeTestTest(unittest.TestCase):
    def run_readme(self, text: str, *flags: str) -> tuple[int, str, Path]:
        work = Path(tempfile.mkdtemp(prefix="readme-selftest-"))
        self.addCleanup(shutil.rmtree, work, True)
        (work / "README.md").write_text(textwrap.dedent(text), encoding="utf-8")
        p = subprocess.run([sys.executable, str(HERE / "readme_test.py"), "--in", str(work), "--timeout", "60",
                            "--ready-seconds", "10", *flags], capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr, work

    def test_everyCommandRuns_inOneShell_andItsVariablesCarryOver(self):
        rc, out, work = self.run_readme("""\
            ```bash
            X=hello
            echo "$X" > a.txt
            ```
            Text between blocks.
            ```bash
            grep -q hello a.txt && echo "$X again" > b.txt
            ```
            """)
        self.assertEqual(0, rc, out)
        self.assertEqual("hello again\n", (work / "b.txt").read_text())

    def test_aFailingCommand_failsTheRun_namingItsReadmeLine(self):
        rc, out, work = self.run_readme("""\
            ```bash
            true
            false   # line 3
            touch never
            ```
            """)
        self.assertEqual(1, rc, out)
        self.assertIn("README TEST FAILED at README.md:3: exit 1", out)
        self.assertFalse((work / "never").exists(), "nothing after a failure runs")

    def test_aFailingPipeStage_fails(self):
        rc, out, _ = self.run_readme("""\
            ```bash
            cat missing-file | wc -l
            ```
            """)
        self.assertEqual(1, rc, out)

    def test_aFailingCheck_fails(self):
        rc, out, _ = self.run_readme("""\
            <!-- readme-test
            check: [ "$(cat a.txt)" = other ]
            -->
            ```bash
            echo value > a.txt
            ```
            """)
        self.assertEqual(1, rc, out)
        self.assertIn("(check", out)

    def test_background_ready_andCtrlC(self):
        # The background command traps INT to leave a mark, as a server's shutdown hook would.
        rc, out, work = self.run_readme("""\
            <!-- readme-test
            background: ./serve
            ready: test -f up
            stop-after: ./serve
            -->
            ```bash
            printf '#!/usr/bin/env bash\\ntrap "touch stopped; exit 0" INT\\ntouch up\\nwhile true; do sleep 0.1; done\\n' > serve && chmod +x serve
            ./serve
            test -f up
            ```
            """)
        self.assertEqual(0, rc, out)
        self.assertTrue((work / "stopped").exists(), "Ctrl-C reached the background command: " + out)

    def test_aBackgroundCommandThatExits_failsTheReadinessWait(self):
        rc, out, _ = self.run_readme("""\
            <!-- readme-test
            background: exit 3
            ready: test -f never
            -->
            ```bash
            exit 3
            ```
            """)
        self.assertEqual(1, rc, out)
        self.assertIn("exited before it was ready", out)

    def test_skip_replace_file_before_andCleanup(self):
        rc, out, work = self.run_readme("""\
            <!-- readme-test
            file: ops.json
            -->
            ```json
            {"ops": []}
            ```
            <!-- readme-test
            skip: false -- a reason
            before: echo photo > cat.jpg
            replace: <key id> => echo k1
            cleanup: touch cleaned
            -->
            ```bash
            false
            cp cat.jpg copy.jpg
            echo <key id> > id.txt
            grep -q ops ops.json
            ```
            """)
        self.assertEqual(0, rc, out)
        self.assertIn("skipped: a reason", out)
        self.assertEqual("k1\n", (work / "id.txt").read_text())
        self.assertEqual("photo\n", (work / "copy.jpg").read_text())
        self.assertTrue((work / "cleaned").exists())

    def test_skipIf_skipsOnlyWhereItsConditionHolds(self):
        rc, out, work = self.run_readme("""\
            <!-- readme-test
            skip-if: test -f built => make-it -- already built
            -->
            ```bash
            touch built
            make-it
            ```
            """)
        self.assertEqual(0, rc, out)
        self.assertIn("skipped: already built", out)

    def test_unmetRequirement_skipsTheBlock_orFailsWithStrict(self):
        text = """\
            <!-- readme-test
            requires: false -- something this machine has not
            -->
            ```bash
            touch ran
            ```
            """
        rc, out, work = self.run_readme(text)
        self.assertEqual(0, rc, out)
        self.assertFalse((work / "ran").exists())
        rc, out, _ = self.run_readme(text, "--strict")
        self.assertEqual(1, rc, out)

    def test_directivesThatCannotRot(self):
        cases = {
            "matches no command": """\
                <!-- readme-test
                skip: ./nothing-like-this -- reason
                -->
                ```bash
                true
                ```
                """,
            "unknown readme-test directive": """\
                <!-- readme-test
                skipp: true
                -->
                ```bash
                true
                ```
                """,
            "must stand right before its block": """\
                <!-- readme-test
                skip: true -- reason
                -->
                Some prose in between.
                ```bash
                true
                ```
                """,
        }
        for message, text in cases.items():
            with self.subTest(message):
                work = Path(tempfile.mkdtemp(prefix="readme-selftest-"))
                self.addCleanup(shutil.rmtree, work, True)
                (work / "README.md").write_text(textwrap.dedent(text), encoding="utf-8")
                with self.assertRaises(SystemExit) as e:
                    readme_test.script(readme_test.parse(work / "README.md"), False)
                self.assertIn(message, str(e.exception.code))


if __name__ == "__main__":
    unittest.main()
