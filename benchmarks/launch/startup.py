#!/usr/bin/env python3
"""Process start to first kernel done: runs each startup binary K times, alternating which goes
first, and prints one RESULT line per run with the times measured from the moment this script
started the process (CLOCK_MONOTONIC, the clock the binaries print):

  exec_to_main_ms   process start (fork + exec, dynamic loading, static constructors) to main()
  exec_to_done_ms   process start to the end of the first kernel's synchronize
  wall_ms           process start to its exit (copy back, check, teardown included)

  python3 startup.py K BINARY...      e.g. python3 startup.py 20 ./startup_oxide ./startup_cuda
"""
import os
import subprocess
import sys
import time


def run_once(binary):
    start = time.monotonic_ns()
    proc = subprocess.run([binary], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic_ns()
    line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT section=startup ")), None)
    if proc.returncode != 0 or line is None:
        sys.stderr.write(f"startup: {binary} exited {proc.returncode}: {proc.stderr.strip()[:500]}\n")
        return None
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    main_ns, done_ns = int(fields["main_ns"]), int(fields["done_ns"])
    extra = " ".join(f"{k}={fields[k]}" for k in ("context_us", "buffers_us", "prepare_us", "launch_sync_us"))
    return (f"side={fields['side']} backend={fields['backend']} exec_to_main_ms={(main_ns - start) / 1e6:.3f} "
            f"exec_to_done_ms={(done_ns - start) / 1e6:.3f} wall_ms={(end - start) / 1e6:.3f} {extra}")


def main():
    k = int(sys.argv[1])
    binaries = sys.argv[2:]
    failed = False
    for b in binaries:  # one untimed run each: page cache, driver state
        failed |= run_once(b) is None
    if failed:
        sys.exit(1)  # a binary that cannot run once will not run K times either
    for rep in range(k):
        order = binaries if rep % 2 == 0 else list(reversed(binaries))
        for b in order:
            result = run_once(b)
            if result is None:
                failed = True
                continue
            print(f"RESULT section=startup_run rep={rep} binary={os.path.basename(b)} {result}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
