"""Runs `clangd --check` on every .cpp file of the directories given and prints each diagnostic
it reports (an error or warning with its name, `[readability-function-size] Line 69: ...`),
then one line with the counts. clangd's own log lines (its tweak trials among them) are not
diagnostics."""
import pathlib
import re
import subprocess
import sys

clangd, *directories = sys.argv[1:]
diagnostic = re.compile(r"^[EW]\[[0-9:.]+\] (\[[^\]]+\].*)$")
files = sorted(f for d in directories for f in pathlib.Path(d).glob("*.cpp"))
count = 0
for f in files:
    run = subprocess.run([clangd, f"--check={f}"], capture_output=True, text=True, timeout=300)
    for line in (run.stdout + run.stderr).splitlines():
        if m := diagnostic.match(line):
            count += 1
            print(f"{f.name}: {m.group(1)}")
print(f"clangd: {len(files)} files, {count} diagnostics")
