#!/usr/bin/env python3
"""Summarises an async-profiler 'collapsed' profile (one line per stack: frames joined by ';',
then a sample count) the way docs/benchmarks.md reads profiles: samples per thread (threads of
one pool, like creel-client-1-1 and -2, together), then the heaviest (thread, deepest Creel frame,
leaf) triples, which say which Creel step spends the time and on what (a syscall, a copy, a
compiler phase).

    profile_summary.py FILE [--top N] [--skip-idle] [--baseline FILE2]

--skip-idle drops samples whose leaf is an event loop's or a pool's idle wait (epoll, futex), so a
wall-clock profile shows busy time and the main thread's waits only.
--baseline adds, per thread, FILE2's samples and the difference: with FILE2 the profile of
`fs stat` of the same file, the difference is what the transfer itself costs in a fresh JVM."""
import collections
import re
import sys

IDLE = ("epoll_pwait2", "epoll_wait", "__GI_epoll_wait", "__futex_abstimed_wait_common", "futex_wait")


def pool(thread):
    name = thread.strip("[]").split(" tid=")[0]
    return re.sub(r"[-#]?\d+$", "", re.sub(r"-\d+-\d+$", "", name)) or name


def load(path, skip_idle):
    threads, triples, total = collections.Counter(), collections.Counter(), 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames, n = stack.split(";"), int(count)
            t = pool(frames[0])
            if skip_idle and frames[-1] in IDLE and not t.startswith("main"):
                continue
            total += n
            threads[t] += n
            creel = [x for x in frames if x.startswith("io/creel/")]
            triples[(t, creel[-1] if creel else "-", frames[-1])] += n
    return threads, triples, total


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    path, top, skip_idle = argv[1], 25, "--skip-idle" in argv
    if "--top" in argv:
        top = int(argv[argv.index("--top") + 1])
    threads, triples, total = load(path, skip_idle)
    base = None
    if "--baseline" in argv:
        base, _, base_total = load(argv[argv.index("--baseline") + 1], skip_idle)
    if base is None:
        print("samples: %d" % total)
        print()
        print("| thread (pool) | samples | share |")
        print("|---|---|---|")
        for t, n in threads.most_common(12):
            print("| %s | %d | %.0f %% |" % (t, n, 100.0 * n / total))
    else:
        print("samples: %d; baseline %d; difference %+d" % (total, base_total, total - base_total))
        print()
        print("| thread (pool) | samples | baseline | difference |")
        print("|---|---|---|---|")
        for t, n in threads.most_common(12):
            print("| %s | %d | %d | %+d |" % (t, n, base[t], n - base[t]))
    print()
    print("| samples | thread | deepest Creel frame | leaf |")
    print("|---|---|---|---|")
    for (t, c, leaf), n in triples.most_common(top):
        print("| %d | %s | %s | %s |" % (n, t, c.replace("io/creel/", ""), leaf[:60]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
