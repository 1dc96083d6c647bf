#!/usr/bin/env python3
"""What make bench-colocation's priority rows would reach on a host without the costs of hand-overs,
and with them (docs/benchmarks.md, "Online takes the token at once"). A model, not a measurement.

Online requests arrive as a Poisson stream at 30 % load, each 1 ms of chip work (four 250 us
kernels), served first come first served. One offline stream runs kernels of K ms back to back on
the time online work leaves: its first kernel starts A ms after the online queue emptied (the idle
allowance) plus W (the offline process wakes up), each next one G after the previous ended (with a
cap of one kernel in flight, the next launch waits for that end); no kernel is cut short. An online
request that finds the chip lent starts H after the chip is free (the hand-back; 0 when the online
process takes the token at once and its kernel queues on the chip).

    python3 libvnpu/tests/colocation_model.py
"""
import random

LOAD = 0.30
REQUEST_MS = 1.0


def run(kernel_ms, allowance_ms, wake_ms=0.0, gap_ms=0.0, hand_back_ms=0.0, seconds=300, seed=1):
    """(online p99 ms, offline share of the idle time) over seconds of simulated time."""
    rnd = random.Random(seed)
    arrival = rnd.expovariate(LOAD / REQUEST_MS)
    free_at = 0.0  # when the chip ends what it started
    emptied = 0.0  # when the online queue last emptied
    offline_busy = 0.0
    latencies = []
    end = seconds * 1000.0
    while arrival < end:
        lent = kernel_ms > 0 and arrival > emptied + allowance_ms
        if lent:
            start = emptied + allowance_ms + wake_ms
            while start < arrival:
                offline_busy += kernel_ms
                free_at = start + kernel_ms
                start = free_at + gap_ms
        done = max(arrival, free_at) + (hand_back_ms if lent else 0.0) + REQUEST_MS
        latencies.append(done - arrival)
        free_at = emptied = done
        arrival += rnd.expovariate(LOAD / REQUEST_MS)
    latencies.sort()
    online_busy = len(latencies) * REQUEST_MS / end
    p99 = latencies[int(0.99 * len(latencies))]
    return p99, offline_busy / end / (1 - online_busy)


def main():
    alone_p99, _ = run(0, 0)
    print("online alone: p99 %.2f ms" % alone_p99)
    print("host costs (allowance, wake, gap, hand-back; ms) | kernel | p99 ms | target | share")
    for costs in ((0.1, 0, 0, 0), (0.134, 0.06, 0.025, 0.13), (0.134, 0.06, 0.025, 0)):
        for kernel in (0.5, 2.0, 8.0):
            p99, share = run(kernel, *costs)
            print("%s | %.1f | %.2f | %.2f | %.3f"
                  % (costs, kernel, p99, alone_p99 * 1.1 + kernel, share))


if __name__ == "__main__":
    main()
