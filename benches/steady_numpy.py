#!/usr/bin/env python3
"""The steady-state Monte Carlo model of `fallcost bench`, written with numpy, vectorised.

The comparison point for the Rust engine's speed (docs/guide/monte-carlo.md). Same model, same
benchmark chain as `fallcost::sim::bench::chain`: GPT-5.6 Sol -> Claude Sonnet 5 -> Claude
Haiku 4.5 at 2,000 input / 500 output tokens, 0.5% failures per link (half gray, billed the
input side and half the output), lognormal latencies (Sol p50 2 s / p99 12 s, Sonnet 1.5 / 10,
Haiku 0.8 / 5), a 10 s timeout (a healthy attempt slower than T trips and is billed like a gray
failure). All four patterns on the same draws, per request: cost, failed, wasted attempts,
wasted cost (sum and sum of squares), and each pattern's latency in a 1,920-bin log histogram.
Vectorised in chunks of 1e6 requests, one process.

Usage:  python3 benches/steady_numpy.py [REQUESTS]      (default 2e7)
Needs numpy (pip install numpy); CI does not run it.
"""
import math
import sys
import time

import numpy as np

MTOK = 1e6
IN_T, OUT_T = 2000.0, 500.0
# (input $/MTok, output $/MTok, p50 s, p99 s)
LINKS = [(5.0, 30.0, 2.0, 12.0), (2.0, 10.0, 1.5, 10.0), (1.0, 5.0, 0.8, 5.0)]
F, GRAY, GRAY_OUT, T, FAST_S = 0.005, 0.5, 0.5, 10.0, 0.5
Z99 = 2.326347874040841
LN_LO, PER_OCT, BINS = -10 * math.log(2), 64, 1920
INV_W = PER_OCT / math.log(2)


def prices(i):
    inp, out = LINKS[i][0], LINKS[i][1]
    success = (IN_T * inp + OUT_T * out) / MTOK
    gray = (IN_T * inp + GRAY_OUT * OUT_T * out) / MTOK
    cancel = IN_T * inp / MTOK
    return success, gray, cancel


def attempt(rng, i, n):
    """Outcome codes (0 ok, 1 fast, 2 gray, 3 trip), log-latency, seconds, failure cost."""
    _, p50, p99 = None, LINKS[i][2], LINKS[i][3]
    mu, sigma = math.log(p50), math.log(p99 / p50) / Z99
    u = rng.random(n)
    ln_l = mu + sigma * rng.standard_normal(n)
    code = np.where(u < F * GRAY, 2, np.where(u < F, 1, np.where(ln_l > math.log(T), 3, 0)))
    success, gray, _ = prices(i)
    fail_cost = np.where(code >= 2, gray, 0.0)
    secs = np.where(code == 0, np.exp(ln_l), np.where(code == 1, FAST_S, T))
    return code, ln_l, secs, fail_cost


def chunk(rng, n, acc, hists):
    c0, ln0, t0, w0 = attempt(rng, 0, n)
    c1, ln1, t1, w1 = attempt(rng, 1, n)
    ok0, ok1 = c0 == 0, c1 == 0
    both_fail = ~ok0 & ~ok1
    # the third link is drawn only for the requests that reach it
    k = int(both_fail.sum())
    c2s, _, t2s, w2s = attempt(rng, 2, k)
    c2, t2, w2 = np.zeros(n, dtype=c2s.dtype), np.zeros(n), np.zeros(n)
    c2[both_fail], t2[both_fail], w2[both_fail] = c2s, t2s, w2s
    ok2 = c2 == 0
    s0, _, x0 = prices(0)
    s1, _, x1 = prices(1)
    s2, _, _ = prices(2)
    tail_cost = np.where(ok2, s2, w2)
    tail_failed = (~ok2).astype(float)
    # no-fallback
    nf = (np.where(ok0, s0, w0), (~ok0).astype(float), (~ok0).astype(float), np.where(ok0, 0.0, w0), t0)
    # sequential (fallbacks cold = base input here: no prefix)
    seq_cost = np.where(ok0, s0, w0 + np.where(ok1, s1, w1 + tail_cost))
    seq_failed = np.where(ok0 | ok1, 0.0, tail_failed)
    seq_wa = np.where(ok0, 0.0, np.where(ok1, 1.0, 2.0 + tail_failed))
    seq_wc = np.where(ok0, 0.0, w0 + np.where(ok1, 0.0, w1 + np.where(ok2, 0.0, w2)))
    seq_t = np.where(ok0, t0, t0 + np.where(ok1, t1, t1 + t2))
    seq = (seq_cost, seq_failed, seq_wa, seq_wc, seq_t)
    # hedged: the faster leg wins when both succeed
    first = ln0 <= ln1
    both = ok0 & ok1
    tf_cost = np.where(both, np.where(first, s0 + x1, s1 + x0),
                       np.where(ok0, s0 + w1, np.where(ok1, w0 + s1, w0 + w1 + tail_cost)))
    nc_cost = np.where(both, s0 + s1,
                       np.where(ok0, s0 + w1, np.where(ok1, w0 + s1, w0 + w1 + tail_cost)))
    h_failed = np.where(both_fail, tail_failed, 0.0)
    h_wa = np.where(both_fail, 2.0 + tail_failed, 1.0)
    tf_wc = np.where(both, np.where(first, x1, x0), np.where(ok0, w1, np.where(ok1, w0, w0 + w1 + np.where(ok2, 0.0, w2))))
    nc_wc = np.where(both, np.where(first, s1, s0), np.where(ok0, w1, np.where(ok1, w0, w0 + w1 + np.where(ok2, 0.0, w2))))
    h_t = np.where(both, np.exp(np.minimum(ln0, ln1)),
                   np.where(ok0, t0, np.where(ok1, t1, np.maximum(t0, t1) + t2)))
    tf = (tf_cost, h_failed, h_wa, tf_wc, h_t)
    nc = (nc_cost, h_failed, h_wa, nc_wc, h_t)
    for p, figures in enumerate((nf, seq, tf, nc)):
        for m in range(4):
            x = figures[m]
            acc[p, m, 0] += x.sum()
            acc[p, m, 1] += (x * x).sum()
        b = np.clip(((np.log(figures[4]) - LN_LO) * INV_W).astype(np.int64), 0, BINS - 1)
        hists[p] += np.bincount(b, minlength=BINS)


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 20_000_000
    rng = np.random.default_rng(42)
    acc = np.zeros((4, 4, 2))
    hists = np.zeros((4, BINS), dtype=np.int64)
    size = 1_000_000
    start = time.perf_counter()
    done = 0
    while done < n:
        m = min(size, n - done)
        chunk(rng, m, acc, hists)
        done += m
    secs = time.perf_counter() - start
    names = ["no-fallback", "sequential", "hedged-take-first", "hedged-no-cancel"]
    for p, name in enumerate(names):
        print(f"{name:18} cost/1k {acc[p, 0, 0] / n * 1000:.4f}")
    print(f"numpy, 1 process: {n} requests in {secs:.2f} s = {n / secs / 1e6:.1f} M requests/s")


if __name__ == "__main__":
    main()
