#!/usr/bin/env python3
"""Issue 46's table in one interleaved run: every command it names beside its
anchor, each round running every command once in turn (as sidebyside.py does), so
that a shared machine's drift hits all of them alike; then the game loop on each
CPU. Prints one markdown table: medians, ranges, the ratio to the anchor, the goal.

    python3 internal/bench/issue46.py [-r ROUNDS] [--bpx] [--shared DIR] [--work DIR]

It builds bonebake (CGO_ENABLED=0, as the README installs it) and the crowd
package's test binary from this tree, copies the models into a work folder, and
readies the peers as the tests do: the three.js baker (../shared/peers/threejs,
`npm ci` once into a cache folder) and bayonetta_tools (its run.sh, which builds
its Ruby extension once). A peer that cannot be readied leaves its rows out,
saying why. --bpx adds `bpx pack` against `tar | xz -T0` at equal settings on
the 81.9 MB mixed folder (about 30 s a round).
"""
import argparse, hashlib, os, re, shlex, shutil, statistics, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True  # no __pycache__ left in the tree by the import below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sidebyside import run_rounds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ap = argparse.ArgumentParser()
ap.add_argument("-r", "--rounds", type=int, default=11)
ap.add_argument("-w", "--warmup", type=int, default=2)
ap.add_argument("--bpx", action="store_true", help="add bpx pack against tar | xz -T0 (slow)")
ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
ap.add_argument("--work", help="work folder (default: a new temporary one)")
ap.add_argument("--old", metavar="REV", help="also time bonebake as built from git revision REV, beside this tree's")
a = ap.parse_args()
work = a.work or tempfile.mkdtemp(prefix="bonebake-issue46-")
os.makedirs(work, exist_ok=True)
testdata = os.path.join(a.shared, "testdata")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def note(msg):
    print(msg, file=sys.stderr)


def build(src, suffix):
    """bonebake and the crowd package's test binary built from the tree src."""
    bb = os.path.join(work, "bonebake" + suffix)
    sh(["go", "build", "-o", bb, "./cmd/bonebake"], cwd=src, env={**os.environ, "CGO_ENABLED": "0"})
    crowd_test = os.path.join(work, "crowd" + suffix + ".test")
    sh(["go", "test", "-c", "-o", crowd_test, "./crowd"], cwd=src)
    return bb, crowd_test


# The programs under test; with --old, the same built from REV (git archive:
# no worktree of the repository is made).
trees = {"": build(ROOT, "")}
if a.old:
    src = os.path.join(work, "old-src")
    if not os.path.isdir(src):
        os.makedirs(src)
        sh(f"git -C {shlex.quote(ROOT)} archive {shlex.quote(a.old)} | tar -x -C {shlex.quote(src)}", shell=True)
    trees[" (" + a.old + ")"] = build(src, "-old")
bb = trees[""][0]
cmd_test = os.path.join(work, "bonebake.test")
sh(["go", "test", "-c", "-o", cmd_test, "./cmd/bonebake"], cwd=ROOT)
inputs = {"Fox.glb": None, "CesiumMan.gltf": None, "pl000f_0a25.wiiu-be.mot": None}
for d, _, fs in os.walk(testdata):
    for f in fs:
        if f in inputs and inputs[f] is None:
            inputs[f] = os.path.join(d, f)
for f, path in inputs.items():
    if path is None:
        sys.exit(f"issue46: {f} is not under {testdata}")
    shutil.copy(path, work)


def threejs_peer():
    """The three.js peer's folder with its node_modules: the folder the tests'
    testfiles.NpmCache makes (named by the same hash of the files), so that
    neither installs it twice."""
    src = os.path.join(a.shared, "peers", "threejs")
    files = ["bake.mjs", "package.json", "package-lock.json"]
    h = hashlib.sha256()
    for f in files:
        b = open(os.path.join(src, f), "rb").read()
        h.update(f"{f}\0{len(b)}\0".encode() + b)
    dir = os.path.join(tempfile.gettempdir(), "bonebake-threejs-peer-" + h.hexdigest()[:12])
    if not os.path.exists(os.path.join(dir, "node_modules", "three", "package.json")):
        os.makedirs(dir, exist_ok=True)
        for f in files:
            shutil.copy(os.path.join(src, f), dir)
        sh(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=dir, stdout=subprocess.DEVNULL)
    return dir


def bayonetta_peer():
    """bayonetta_tools' run.sh, its Ruby extension built by a first run."""
    run = os.path.join(a.shared, "peers", "bayonetta_tools", "run.sh")
    sh(["bash", run, os.path.join(work, "bt-out"), "pl000f_0a25.wiiu-be.mot"], cwd=work, stdout=subprocess.DEVNULL)
    return run


# A Go program that writes a line: what any Go command's start costs here.
hello = os.path.join(work, "hello")
os.makedirs(hello + ".src", exist_ok=True)
for name, text in [("main.go", 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n'),
                   ("go.mod", "module hello\n\ngo 1.26\n")]:
    with open(os.path.join(hello + ".src", name), "w") as f:
        f.write(text)
sh(["go", "build", "-o", hello, "."], cwd=hello + ".src", env={**os.environ, "CGO_ENABLED": "0"})

# name -> command, run in work. Each row pairs a command with its anchor: (work,
# ours, anchor or None, goal text, goal test on (ours, anchor) medians or None).
cmds = {"bonebake --version": f"{bb} --version", "hello": hello}
rows = [("`bonebake --version` (the start of every command) against a Go hello world", "bonebake --version", "hello", "", None)]
# bonebake's commands, each output in a folder of its own per tree (a model baked
# into a folder takes the first species id free there).
outdirs = []
for t, (b, _) in trees.items():
    d = "out" + ("-old" if t else "")
    outdirs += [f"{d}/fox", f"{d}/ces", f"{d}/bat"]
    cmds[f"bake Fox 2000{t}"] = f"{b} bake Fox.glb --fps 2000 -o {d}/fox/f.bpat"
    cmds[f"bake CesiumMan{t}"] = f"{b} bake CesiumMan.gltf -o {d}/ces/c.bpat"
    cmds[f"bat Fox 2000{t}"] = f"{b} bat Fox.glb --fps 2000 -o {d}/bat"
    cmds[f"mot dump{t}"] = f"{b} mot dump pl000f_0a25.wiiu-be.mot --json"
    cmds[f"simulate 10 s{t}"] = f"{b} simulate --seconds 10 --json"
    if t:
        cmds[f"bonebake --version{t}"] = f"{b} --version"
try:
    peer = threejs_peer()
    cmds["three.js Fox 2000"] = f"node {peer}/bake.mjs Fox.glb --fps 2000 --out f3.bpat --quiet"
    cmds["three.js CesiumMan"] = f"node {peer}/bake.mjs CesiumMan.gltf --out c3.bpat --quiet"
    rows += [("`bake Fox.glb --fps 2000`", "bake Fox 2000", "three.js Fox 2000", "≥ 20× three.js", lambda o, x: x / o >= 20),
             ("`bake CesiumMan.gltf`", "bake CesiumMan", "three.js CesiumMan", "≥ 15× three.js", lambda o, x: x / o >= 15)]
except (OSError, subprocess.CalledProcessError) as e:
    note(f"issue46: the three.js peer could not be readied ({e}): its rows are left out")
# The write floor: a program writing the Fox's 16.2 MB at 2000 fps, a file of the
# same size replaced each round.
cmds["write 16.2 MB"] = "dd if=/dev/zero of=floor.bin bs=262144 count=62 status=none"
rows.append(("`bake Fox.glb --fps 2000` against writing its bytes", "bake Fox 2000", "write 16.2 MB", "", None))
rows.append(("`bat Fox.glb --fps 2000`", "bat Fox 2000", "bake Fox 2000", "≤ 0.5 s", lambda o, x: o <= 500))
try:
    run = bayonetta_peer()
    cmds["bayonetta_tools"] = f"bash {run} bt-out pl000f_0a25.wiiu-be.mot"
    rows.append(("`mot dump --json` against bayonetta_tools' decoder", "mot dump", "bayonetta_tools", "", None))
except (OSError, subprocess.CalledProcessError) as e:
    note(f"issue46: bayonetta_tools could not be readied ({e}): its row is left out")
    rows.append(("`mot dump --json`", "mot dump", None, "", None))
rows.append(("`simulate --seconds 10`", "simulate 10 s", None, "", None))
if a.bpx:
    mixed = os.path.join(work, "mixed")
    if not os.path.isdir(mixed):
        sh(["go", "run", "./internal/bench/mixedtree", mixed], cwd=ROOT)
    for t, (b, _) in trees.items():
        cmds[f"bpx pack{t}"] = f"{b} bpx pack mixed -o p{len(t)}.bpx"
    cmds["tar | xz -T0"] = "tar -C mixed -cf - . | xz -T0 --lzma2=preset=6,dict=1MiB --block-size=4MiB > t.xz"
    rows.append(("`bpx pack` the 81.9 MB mixed folder", "bpx pack", "tar | xz -T0", "≤ 1.0× tar | xz -T0", lambda o, x: o <= x))
# Nothing slower than REV: each of bonebake's commands against its build, within
# 3 % (this VM's spread between rounds is larger).
for t in list(trees)[1:]:
    for n in [n for n in cmds if n.endswith(t)]:
        mine = n[:-len(t)]
        rows.append((f"`{mine}` against {t.strip(' ()')}", mine, n, "not slower", lambda o, x: o <= 1.03 * x))


# The game loop, per CPU: a 2-vCPU VM may give its two CPUs unequal shares of
# their host cores, and a run lands on either.
cpus = sorted(os.sched_getaffinity(0)) if shutil.which("taskset") else []
bench = {
    "GameLoop 100k": "^BenchmarkGameLoop$/^units=100000$/^api=crowd$",
    "BatchStep 100k": "^BenchmarkBatchStep$/^units=100000$",
}


def gobench(name, cpu, crowd_test):
    c = [crowd_test, "-test.run", "^$", "-test.bench", bench[name], "-test.benchtime", "300x", "-test.cpu", "1"]
    if cpu is not None:
        c = ["taskset", "-c", str(cpu)] + c
    out = subprocess.run(c, check=True, capture_output=True, text=True, cwd=work).stdout
    m = re.search(r"([0-9.]+) cpu-ns/unit", out)
    if not m:
        sys.exit(f"issue46: no cpu-ns/unit in {name}'s output:\n{out}")
    return float(m.group(1))


def meter_share():
    """The bone-jump meter's share of simulate's CPU: BenchmarkSimulate (20,000
    units, 10 s) profiled, the meter's cumulative samples over all of them."""
    prof = os.path.join(work, "simulate.prof")
    subprocess.run([cmd_test, "-test.run", "^$", "-test.bench", "^BenchmarkSimulate$", "-test.benchtime", "6x",
                    "-test.cpu", "2", "-test.cpuprofile", prof], check=True, capture_output=True, cwd=work)
    top = subprocess.run(["go", "tool", "pprof", "-top", "-cum", cmd_test, prof], check=True, capture_output=True,
                         text=True).stdout
    total = re.search(r"Total samples = ([0-9.]+)(m?s)", top)
    meter = re.search(r"([0-9.]+)(m?s) +[0-9.]+% +\S+\.\(\*jumpMeter\)\.measure\.func1", top)
    if not total or not meter:
        sys.exit(f"issue46: the meter's share is not in pprof's output:\n{top}")
    sec = lambda m: float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
    return 100 * sec(meter) / sec(total)


for d in outdirs:
    os.makedirs(os.path.join(work, d), exist_ok=True)
loops = {(n, c, t): [] for n in bench for c in (cpus or [None]) for t in trees}
loads = []
meter = []


def between(r, counted):
    """After each round's commands: the game loop on each CPU and the meter's
    share, so that they alternate with the commands too."""
    note(f"issue46: round {r + 1} of {a.warmup + a.rounds}")
    loads.append(os.getloadavg()[0])
    for key in loops:
        n, c, t = key
        v = gobench(n, c, trees[t][1])
        if counted:
            loops[key].append(v)
    v = meter_share()
    if counted:
        meter.append(v)


times, cpu_ms = run_rounds(cmds, a.rounds, a.warmup, cwd=work, each_round=between)


def cell(s):
    """s as a markdown table cell: its pipes escaped."""
    return s.replace("|", "\\|")


def ms(v):
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v:.1f} ms"


def page_costs(n=2000):
    """Microseconds of CPU to first touch a fresh anonymous page, and one that
    MADV_POPULATE_WRITE has already given the process (on a VM whose host
    shadows the page tables, the first access to either still exits to it)."""
    import mmap
    out = []
    for populate in (False, True):
        m = mmap.mmap(-1, n * 4096)
        if populate:
            m.madvise(23)  # MADV_POPULATE_WRITE, Linux 5.14
        t = time.process_time()
        for i in range(n):
            m[i * 4096] = 1
        out.append((time.process_time() - t) / n * 1e6)
        m.close()
    return out


med = {n: statistics.median(t) for n, t in times.items()}
rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
print(f"{a.rounds} rounds after {a.warmup} warm-up, every command once a round in turn; tree {rev}; "
      f"load average {min(loads):.1f}–{max(loads):.1f}")
try:
    fresh, populated = page_costs()
    print(f"First touch of a page: {fresh:.1f} µs of CPU fresh, {populated:.1f} µs after MADV_POPULATE_WRITE.")
except (OSError, ValueError) as e:
    print(f"First touch of a page: not measured ({e}).")
print()
print("| work | bonebake: wall median (range), CPU | anchor: wall median, CPU | anchor / bonebake | goal | met |")
print("|---|---|---|---|---|---|")
for what, ours, anchor, goal, ok in rows:
    o = med[ours]
    c = f"{ms(o)} ({ms(min(times[ours]))}–{ms(max(times[ours]))}), {ms(statistics.median(cpu_ms[ours]))}"
    if anchor:
        x = med[anchor]
        acell = f"{anchor}: {ms(x)}, {ms(statistics.median(cpu_ms[anchor]))}"
        ratio = f"{x / o:.2f}×"
    else:
        x, acell, ratio = None, "", ""
    met = "" if ok is None else ("yes" if ok(o, x) else "**no**")
    print(f"| {cell(what)} | {c} | {cell(acell)} | {ratio} | {cell(goal)} | {met} |")
for (n, c, t), vs in loops.items():
    if t:
        continue
    where = f" on CPU {c}" if c is not None else ""
    goal, met = ("≤ 10 ns", "yes" if statistics.median(vs) <= 10 else "**no**") if n.startswith("GameLoop") else ("", "")
    acell = ratio = ""
    for ot in list(trees)[1:]:
        ovs = loops[(n, c, ot)]
        acell, ratio = f"{ot.strip(' ()')}: {statistics.median(ovs):.2f} ({min(ovs):.2f}–{max(ovs):.2f})", f"{statistics.median(ovs) / statistics.median(vs):.2f}×"
    print(f"| `{n}`{where}, cpu-ns/unit | {statistics.median(vs):.2f} ({min(vs):.2f}–{max(vs):.2f}) | {acell} | {ratio} | {goal} | {met} |")
m = statistics.median(meter)
print(f"| the bone-jump meter's share of `simulate` (BenchmarkSimulate's profile), % | {m:.1f} ({min(meter):.1f}–{max(meter):.1f}) | | | < 20 % | {'yes' if m < 20 else '**no**'} |")
