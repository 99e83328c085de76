#!/usr/bin/env python3
"""Times whole commands side by side: each round runs every command once, in turn,
so that a shared machine's drift hits them alike; prints each one's median, range
and its ratio to the first command's median, and its median CPU time (user + system of
the process and its children, which a loaded machine skews less than wall time).

    python3 internal/bench/sidebyside.py [-r ROUNDS] [-w WARMUP] NAME='COMMAND' ...

A command runs as its own process, split into words as sh would split it (no shell
to start, which would add about a millisecond to each: a tenth of a 15 ms bake); one
that needs a shell (a pipe, a redirection, a variable, `;` or `&&`) runs with sh -c.
Its output is discarded; a failing command stops the run.
"""
import argparse, os, shlex, statistics, subprocess, sys, time


def argv(c):
    """The command's words, or sh -c for one that needs a shell."""
    if any(ch in c for ch in "|&;<>()$`*?[]~{}\n"):
        return ["sh", "-c", c]
    return shlex.split(c)


def run_rounds(cmds, rounds, warmup, cwd=None, each_round=None):
    """Runs every command of cmds (name -> command) once a round, in turn, for
    warmup rounds and then rounds more, and returns each one's wall and CPU
    milliseconds of the counted rounds. each_round(r, counted), when given, runs
    after each round's commands (another measurement that should alternate with
    them). A failing command stops the run."""
    times = {n: [] for n in cmds}
    cpu = {n: [] for n in cmds}
    for r in range(warmup + rounds):
        for n, c in cmds.items():
            t0 = time.perf_counter()
            p = subprocess.Popen(argv(c), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t0
            if status != 0:
                sys.exit(f"{n}: exit status {os.waitstatus_to_exitcode(status)}: {c}")
            if r >= warmup:
                times[n].append(dt * 1000)
                cpu[n].append((usage.ru_utime + usage.ru_stime) * 1000)
        if each_round:
            each_round(r, r >= warmup)
    return times, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", "--rounds", type=int, default=15)
    ap.add_argument("-w", "--warmup", type=int, default=2)
    ap.add_argument("cmds", nargs="+", metavar="NAME=COMMAND")
    a = ap.parse_args()
    cmds = dict(c.split("=", 1) for c in a.cmds)
    times, cpu = run_rounds(cmds, a.rounds, a.warmup)
    base = statistics.median(times[next(iter(cmds))])
    print(f"{a.rounds} rounds after {a.warmup} warm-up, alternating")
    print("| command | median | range | median / first's | CPU median |")
    print("|---|---|---|---|---|")
    for n in cmds:
        ts = times[n]
        m = statistics.median(ts)
        print(f"| {n} | {m:.1f} ms | {min(ts):.1f}–{max(ts):.1f} ms | {m / base:.2f} | {statistics.median(cpu[n]):.1f} ms |")


if __name__ == "__main__":
    main()
